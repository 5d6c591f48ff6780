"""Plain per-user, per-pull reference implementations (obvious code, slow).

Each function simulates ONE run pull by pull, exactly as the seed's pseudocode
reads, and returns (regret at checkpoints, N_a(T)). They share nothing with
the kernels except the parameter derivations of ``bandsim.algorithms``.
"""
import math

import numpy as np

from bandsim.algorithms.elimination import batch_size, confidence_radius, dp_se_epoch
from bandsim.algorithms.arm_elimination import confidence_bound
from bandsim.mechanisms.binary_summation import BinarySummation


class Tape:
    """Pull-by-pull bookkeeping: pseudo-regret recorded at the checkpoints."""

    def __init__(self, means, horizon, checkpoints):
        self.means = np.asarray(means, dtype=float)
        self.gaps = self.means.max() - self.means
        self.T = horizon
        self.cps = list(checkpoints)
        self.t = 0
        self.regret = 0.0
        self.pulls = np.zeros(len(means), dtype=np.int64)
        self.out = []

    def pull(self, rng, arm, reward):
        """Record one pull of ``arm``; returns its reward, or None past the horizon."""
        if self.t >= self.T:
            return None
        self.t += 1
        self.pulls[arm] += 1
        self.regret += self.gaps[arm]
        while self.cps and self.cps[0] == self.t:
            self.out.append(self.regret)
            self.cps.pop(0)
        return reward(rng, arm)

    @property
    def done(self):
        return self.t >= self.T

    def round(self, rng, arms, reward):
        """One pull of each arm in ``arms``, in order: {arm: reward} (cut at T)."""
        out = {}
        for a in arms:
            x = self.pull(rng, a, reward)
            if x is None:
                break
            out[a] = x
        return out

    def block(self, rng, arm, n, reward):
        """Up to ``n`` consecutive pulls of ``arm``: the list of rewards (cut at T)."""
        out = []
        for _ in range(n):
            x = self.pull(rng, arm, reward)
            if x is None:
                break
            out.append(x)
        return out


def bernoulli(means):
    return lambda rng, a: float(rng.random() < means[a])


def dp_se(rng, means, horizon, epsilon, beta, checkpoints, reward=None):
    """Seed 001, Algorithm 9, one pull at a time (round-robin inside an epoch)."""
    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    S = list(range(len(means)))
    epoch = 0
    while len(S) > 1 and not tape.done:
        epoch += 1
        c = dp_se_epoch(epoch, len(S), epsilon, beta)
        total = {i: 0.0 for i in S}
        r = 0
        while r < c["R_e"] and not tape.done:
            r += 1
            for i, x in tape.round(rng, S, reward).items():
                total[i] += x
        if tape.done:
            break
        noisy = {i: total[i] / r + rng.laplace(0.0, 1.0 / (epsilon * r)) for i in S}
        best = max(noisy.values())
        S = [i for i in S if not best - noisy[i] > 2 * c["h_e"] + 2 * c["c_e"]]
    while not tape.done:
        tape.pull(rng, S[0], reward)
    return np.array(tape.out), tape.pulls


def batch_se(rng, means, horizon, p, growth, checkpoints, reward=None):
    """Seed 003, Algorithm 1 with the identity protocol, one user at a time."""
    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    phi = list(range(len(means)))
    b = 0
    while len(phi) > 1 and not tape.done:
        b += 1
        n = batch_size(b, growth)
        mu = {}
        for a in phi:
            mu[a] = sum(tape.block(rng, a, n, reward)) / n
        if tape.done:
            break
        beta = confidence_radius(b, len(phi), n, p)
        best_lcb = max(mu[a] - beta for a in phi)
        phi = [a for a in phi if mu[a] + beta >= best_lcb]
    while not tape.done:
        tape.pull(rng, phi[0], reward)
    return np.array(tape.out), tape.pulls


def shuffle_ae(rng, means, horizon, epsilon, delta, checkpoints, batch, reward=None):
    """Seed 000, Algorithms 1/2 (SDP-AE, VB-SDP-AE), one user at a time.

    ``batch(t)`` is the batch size of phase t (m, or 2^t). Every user's reward
    x is binarized by a Bernoulli(x) draw, encoded by the local randomizer of
    Algorithm 3, the batch's messages are shuffled and the analyzer debiases
    the count of ones (:class:`bandsim.shuffle.BinarySummation`, per-user
    path). UCB/LCB per arm, remove a if UCB_a < max LCB (line 15/16).
    """
    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    mech = BinarySummation(epsilon, delta)
    sigma = np.sqrt(mech.sigma2)
    V = list(range(len(means)))
    S = np.zeros(len(means))
    N = np.zeros(len(means), dtype=np.int64)
    t = 0
    while len(V) > 1 and not tape.done:
        t += 1
        m = batch(t)
        for a in V:
            bits = [int(rng.random() < x) for x in tape.block(rng, a, m, reward)]
            if tape.done:
                break
            S[a] += mech.sum_per_user(bits, rng)
            N[a] += m
        if tape.done:
            break
        mu = {a: S[a] / N[a] for a in V}
        width = {a: confidence_bound(t, N[a], sigma, horizon) for a in V}
        best_lcb = max(mu[a] - width[a] for a in V)
        V = [a for a in V if not mu[a] + width[a] < best_lcb]
    while not tape.done:
        tape.pull(rng, V[0], reward)
    return np.array(tape.out), tape.pulls


def sdp_ae(rng, means, horizon, epsilon, delta, batch_size, checkpoints, reward=None):
    """Seed 000, Algorithm 1 (fixed batch size m), one user at a time."""
    return shuffle_ae(rng, means, horizon, epsilon, delta, checkpoints,
                      lambda t: batch_size, reward)


def vb_sdp_ae(rng, means, horizon, epsilon, delta, checkpoints, reward=None):
    """Seed 000, Algorithm 2 (batch 2^t in phase t), one user at a time."""
    return shuffle_ae(rng, means, horizon, epsilon, delta, checkpoints, lambda t: 2**t, reward)


# --------------------------------------------------------------------------
# Seed 003, Algorithm 1 over the protocol P = (R, S, A), one user at a time.
# Plain numpy samplers; only the parameters (g, τ, m, noise, β(b)) come from
# bandsim.protocols.


def ref_encode(rng, x, g):
    """Algorithm 2 line 3: x̂ = ⌊x g⌋ + Ber(x g − ⌊x g⌋)."""
    y = x * g
    fl = int(np.floor(y))
    return fl + int(rng.random() < y - fl)


def ref_polya(rng, r, beta):
    """Pólya(r, β) as Poisson(Gamma(r, β/(1 − β))) (seed 003, footnote 6)."""
    return int(rng.poisson(rng.gamma(r, beta / (1 - beta))))


def ref_dlaplace(rng, beta):
    """Lap_Z: difference of two geometric failure counts, P(k) = β^k (1 − β)."""
    return int(rng.geometric(1 - beta)) - int(rng.geometric(1 - beta))


def ref_dgauss(rng, sigma2):
    """N_Z(0, σ²): Canonne–Kamath–Steinke Algorithm 3 (t = ⌊σ⌋ + 1)."""
    t = int(np.floor(np.sqrt(sigma2))) + 1
    while True:
        y = ref_dlaplace(rng, np.exp(-1.0 / t))
        if rng.random() < np.exp(-(abs(y) - sigma2 / t) ** 2 / (2 * sigma2)):
            return y


def ref_user_noise(rng, mech):
    """One user's η_i for a bandsim.protocols.Mechanism (per the theorems)."""
    n = mech.n
    if mech.name in ("dist-dp", "dist-dp-shuffle"):
        beta = mech.fpar[1]
        return ref_polya(rng, 1.0 / n, beta) - ref_polya(rng, 1.0 / n, beta)
    if mech.name == "dist-rdp":
        mu = mech.fpar[0] / n
        return int(rng.poisson(mu)) - int(rng.poisson(mu))
    if mech.name == "dist-cdp":
        return ref_dgauss(rng, mech.fpar[0] / n)
    if mech.name == "local":
        return ref_dlaplace(rng, mech.fpar[1])
    return 0  # central


def ref_protocol(rng, mech, xs):
    """R for every user, S = modular sum (relaxed for the shuffle), A (Alg. 3/5)."""
    g, tau, m, n = mech.g, mech.tau, mech.m, mech.n
    yhat = 0
    for x in xs:
        yhat = (yhat + (ref_encode(rng, x, g) + ref_user_noise(rng, mech)) % m) % m
    if mech.name == "dist-dp-shuffle" and rng.random() < mech.fpar[2]:
        yhat = int(rng.integers(0, m))
    if mech.name == "central":
        yhat = (yhat + ref_dlaplace(rng, mech.fpar[1]) % m) % m
    return (yhat - m) / g if yhat > n * g + tau else yhat / g


def protocol_se(rng, means, horizon, mechanism, p, growth, checkpoints, reward=None):
    """Seed 003, Algorithm 1 with protocol ``mechanism(n)`` (a bandsim Mechanism)."""
    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    phi = list(range(len(means)))
    b = 0
    while len(phi) > 1 and not tape.done:
        b += 1
        n = batch_size(b, growth)
        mech = mechanism(n)
        mu = {}
        for a in phi:
            xs = tape.block(rng, a, n, reward)
            if tape.done:
                break
            mu[a] = ref_protocol(rng, mech, xs) / n
        if tape.done:
            break
        beta = confidence_radius(b, len(phi), n, p, mech.sigma, mech.h)
        best_lcb = max(mu[a] - beta for a in phi)
        phi = [a for a in phi if mu[a] + beta >= best_lcb]
    while not tape.done:
        tape.pull(rng, phi[0], reward)
    return np.array(tape.out), tape.pulls

# ---------------------------------------------------------------- seed 001, per step

def _next_reward(rng, means, a, sigma=None):
    """One reward: Bernoulli = one uniform (u < μ); clipped Gaussian if sigma is given."""
    if sigma is None:
        return 1.0 if rng.random() < means[a] else 0.0
    return float(np.clip(means[a] + sigma * rng.standard_normal(), 0.0, 1.0))


class BinaryTree:
    """Seed 001, Algorithm 5 for one stream, exactly as printed (lines 5-10).

    Noise Lap(scale) is drawn as scale (E1 - E2) with E1, E2 standard
    exponentials (the same Laplace sampler as the kernels).
    """

    def __init__(self, scale, levels=64):
        self.scale = scale
        self.alpha = [0.0] * levels
        self.alpha_hat = [0.0] * levels
        self.t = 0

    def insert(self, rng, x):
        self.t += 1
        t = self.t
        i = min(j for j in range(64) if (t >> j) & 1)
        s = x
        for j in range(i):
            s += self.alpha[j]
        self.alpha[i] = s
        for j in range(i):
            self.alpha[j] = self.alpha_hat[j] = 0.0
        self.alpha_hat[i] = s + self.scale * (rng.standard_exponential()
                                              - rng.standard_exponential())
        out = 0.0
        for j in reversed(range(64)):  # released sum, highest level first
            if (t >> j) & 1:
                out += self.alpha_hat[j]
        return out


def ucb(rng, means, horizon, checkpoints, gamma=0.0, scale=0.0, sigma=None, reward=None):
    """Seed 001, Algorithm 1 (UCB1, gamma = scale = 0) or Algorithm 6 (DP-UCB), per pull.

    The index is computed as (sum + Γ)/n + sqrt(2 log t) * (1/sqrt(n)), the
    kernel's arithmetic for the printed sum/n + sqrt(2 log t / n) + Γ/n, so
    that the same random stream gives the same pulls. Returns (regret at
    checkpoints, N_a(T), the sequence of pulled arms).
    """
    import math

    K = len(means)
    tape = Tape(means, horizon, checkpoints)
    trees = [BinaryTree(scale) for _ in range(K)]
    total = [0.0] * K
    n = [0] * K
    seq = []

    def pull(a):
        tape.pull(rng, a, lambda rng, a: None)
        x = reward(rng, a) if reward else _next_reward(rng, means, a, sigma)
        total[a] = trees[a].insert(rng, x) if scale > 0 else total[a] + x
        n[a] += 1
        seq.append(a)

    for a in range(K):
        if not tape.done:
            pull(a)
    while not tape.done:
        t = tape.t + 1
        lt = math.sqrt(2.0 * math.log(t))
        index = [(total[i] + gamma) / n[i] + lt * (1.0 / math.sqrt(n[i])) for i in range(K)]
        pull(max(range(K), key=lambda i: (index[i], -i)))
    return np.array(tape.out), tape.pulls, np.array(seq)


def se(rng, means, horizon, checkpoints, sigma=None, reward=None):
    """Seed 001, Algorithm 2, one pull at a time (n = pulls per viable arm)."""
    import math

    tape = Tape(means, horizon, checkpoints)
    S = list(range(len(means)))
    total = {i: 0.0 for i in S}
    n = 0
    while len(S) > 1 and not tape.done:
        for i in S:
            if tape.done:  # HALT if t = T (line 7)
                break
            tape.pull(rng, i, lambda rng, a: None)
            total[i] += reward(rng, i) if reward else _next_reward(rng, means, i, sigma)
        if tape.done:
            break
        n += 1
        mu = {i: total[i] / n for i in S}
        best = max(mu.values())
        S = [i for i in S if not best - mu[i] > 2.0 * math.sqrt(2.0 * math.log(horizon) / n)]
    while not tape.done:
        tape.pull(rng, S[0], lambda rng, a: None)
    return np.array(tape.out), tape.pulls


def dp_se2(rng, means, horizon, epsilon, beta, checkpoints, modified=False, reward=None):
    """Seed 001, Algorithm 10 (DP-SE 2), one pull at a time; SVT at r = 2^l."""
    from bandsim.algorithms.svt import dp_se2_check

    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    K = len(means)
    S = list(range(K))
    while len(S) > 1 and not tape.done:
        total = {i: 0.0 for i in S}
        B = rng.laplace(0.0, 6.0 / epsilon)
        r, level = 0, 0
        while not tape.done:
            level += 1
            while r < 2**level and not tape.done:
                r += 1
                for i, x in tape.round(rng, S, reward).items():
                    total[i] += x
            if tape.done:
                break
            A = rng.laplace(0.0, 6.0 / epsilon)
            c = dp_se2_check(level, len(S), K, epsilon, beta, modified)
            h, c_r = c["h_r"], c["c_r"]
            f = 2.0 if modified else 10.0
            mu = [total[i] / r for i in S]
            if max(mu) - min(mu) > f * h + (A + B + c_r) / r:
                break
        if tape.done:
            break
        noisy = {i: total[i] / r + rng.laplace(0.0, 2.0 / (epsilon * r)) for i in S}
        best = max(noisy.values())
        width = 2 * h + 4 * np.log(4 * K * len(S) / beta) / (epsilon * r)
        S = [i for i in S if not best - noisy[i] > width]
    while not tape.done:
        tape.pull(rng, S[0], reward)
    return np.array(tape.out), tape.pulls


def dp_nas(rng, values, probs, alpha, beta, epsilon, exponential=False, max_samples=2**30):
    """Seed 001, Algorithm 7 (DP-NAS) or 8 (DP exponential NAS), one sample at a time.

    Returns (stopping time, released estimate).
    """
    import math

    R = max(abs(v) for v in values)
    cdf = np.cumsum(probs)

    def sample():  # inverse CDF of one uniform
        u = rng.random()
        return next((v for v, c in zip(values, cdf) if u < c), values[-1])

    s1, s2, s3 = 12 * R / epsilon, 12 * R / epsilon, 4 * R / epsilon
    B = rng.laplace(0.0, s1)
    t, k, total = 0, 0, 0.0
    while t < max_samples:
        if exponential:
            k += 1
            while t < 2**k:
                t += 1
                total += sample()
            A = rng.laplace(0.0, s2)
            c = s1 * math.log(4 / beta) + s2 * math.log(8 * k**2 / beta) + s3 / alpha * math.log(4 / beta)
            h = R * math.sqrt(2 / t * math.log(16 * k**2 / beta))
        else:
            t += 1
            A = rng.laplace(0.0, s2)
            total += sample()
            c = s1 * math.log(4 / beta) + s2 * math.log(8 * t**2 / beta) + s3 / alpha * math.log(4 / beta)
            h = R * math.sqrt(2 / t * math.log(16 * t**2 / beta))
        if abs(total / t) >= h * (1 + 1 / alpha) + (c + B + A) / t:
            break
    return t, total / t + rng.laplace(0.0, s3) / t


# --- Fixed-confidence top two (AdaP-TT, AdaP-TT*, TTUCB), one pull at a time -------------
# Written from Azize, Jourdan, Al Marjani & Basu (NeurIPS 2023) Algorithm 1 and Azize's
# PhD thesis (2024) §5.4 (Algorithm 10, Eqs. 5.9-5.14, App. C.5 Eq. C.30); plain Python,
# one Bernoulli reward per pull, thresholds recomputed here from the equations.

_Z2 = np.pi ** 2 / 6  # ζ(s), s = 2
_SIG2 = 0.25          # σ² for rewards in [0, 1]


def _cg(x, _memo={}):
    """C_G(x) = min over λ in (1/2, 1) of (g_G(λ) + x)/λ (thesis Eq. C.30)."""
    if x not in _memo:
        from scipy.optimize import minimize_scalar
        from scipy.special import zeta

        g = lambda lam: (2 * lam - 2 * lam * np.log(4 * lam) + np.log(zeta(2 * lam))
                         - 0.5 * np.log(1 - lam) + x) / lam
        _memo[x] = minimize_scalar(g, bounds=(0.5 + 1e-9, 1 - 1e-12), method="bounded",
                                   options={"xatol": 1e-12}).fun
    return _memo[x]


def _c_gauss(wa, wb, K, delta):  # Eq. 5.10
    return 2 * _cg(round(np.log((K - 1) / delta) / 2, 12)) + 2 * np.log(4 + np.log(wa)) \
        + 2 * np.log(4 + np.log(wb))


def _c_private(wa, wb, K, eps, delta):  # Eq. 5.11, k(x) = log2 x + 2
    ka, kb = (np.log2(wa) + 2) ** 2, (np.log2(wb) + 2) ** 2
    return 2 * _c_gauss(wa, wb, K, delta / (2 * _Z2 ** 2 * ka * kb)) + sum(
        np.log(2 * K * _Z2 * k / delta) ** 2 / w for w, k in ((wa, ka), (wb, kb))) \
        / (eps ** 2 * _SIG2)


def _c_star(wa, wb, K, eps, delta, d):  # Eq. 5.14
    from scipy.special import lambertw

    def h(w):
        y = 2 * np.log(3 * K * _Z2 * (np.log2(w) + 2) ** 2 / delta) + 4 * np.log(4 + np.log(w)) \
            + 0.5
        return -lambertw(-np.exp(-y), -1).real / 2

    if d < 3 * eps:
        return 0.5 * _c_private(wa, wb, K, eps, 2 * delta / 3) + np.sqrt(2) / (eps * 0.5) * sum(
            np.sqrt(h(w) / w) * np.log(3 * K * _Z2 * (np.log2(w) + 2) ** 2 / delta)
            for w in (wa, wb))
    kmax = max(np.log2(wa), np.log2(wb)) + 2
    return 3 / _SIG2 * np.log(3 * K * _Z2 * kmax / delta) + 3 * eps / (np.sqrt(2) * 0.5) * sum(
        np.sqrt(w * h(w)) for w in (wa, wb))


def top_two_bai(rng, means, delta, epsilon=None, beta=0.5, threshold="eq-5.11",
                budget=10**7, noise=1.0):
    """One fixed-confidence run of AdaP-TT (``epsilon`` given) or TTUCB (``epsilon`` None).

    AdaP-TT: each arm's rewards in doubling episodes (sizes 1, 1, 2, 4, …); when an
    episode closes its mean is released + Lap(noise/(ε Ñ)) and replaces the previous one;
    every round the UCB leader argmax μ̃ + sqrt(g/Ñ) + g/(εÑ), g = ln(pulls in closed
    episodes), is recomputed, the β-tracking pulls it or the challenger
    argmin_{a≠B} (μ̃_B − μ̃_a)/sqrt(1/N_B + 1/N_a) (``eq-5.14``: AdaP-TT*'s cost
    Δ·min(3ε, |Δ|)/(1/N_B + 1/N_a)); the GLR stop (Eq. 5.9 against Eq. 5.11, the
    released code's heuristic, or Eq. 5.14) is tested on (μ̃, Ñ) after every release
    (nothing else changes them: the thesis's every-round test is the same). TTUCB:
    every reward observed, cumulative means, bonus sqrt(ln n / N), threshold Eq. 5.10.
    ``noise`` scales the Laplace noise (a negative control). Returns (τ, arm, stopped).
    """
    mu = list(means)
    K = len(mu)
    private = epsilon is not None
    star = threshold == "eq-5.14"
    N, N0, Nt, L, NL = [1] * K, [1] * K, [1] * K, [0] * K, [0] * K
    S = [0.0] * K
    mt = []
    for a in range(K):
        x = float(rng.random() < mu[a])
        mt.append(x + (rng.laplace(0, noise / epsilon) if private else 0.0))
        S[a] = 0.0 if private else x
    n, fresh = K, True
    while n < budget:
        h = max(range(K), key=mt.__getitem__)
        ok = fresh
        for b in range(K if fresh else 0):
            if b == h:
                continue
            d = max(mt[h] - mt[b], 0.0)
            inv = 1 / Nt[h] + 1 / Nt[b]
            if not d > 0:
                ok = False
            elif threshold == "heuristic":
                ld = np.log(1 / delta)
                ok &= 0.5 * d * d / inv >= ld + np.log(1 + np.log(Nt[h])) + np.log(
                    1 + np.log(Nt[b])) + inv * ld ** 2 / epsilon ** 2
            elif star:
                ok &= d * min(3 * epsilon, d) / (2 * _SIG2 * inv) >= _c_star(
                    Nt[h], Nt[b], K, epsilon, delta, d)
            elif private:
                ok &= d * d / (2 * _SIG2 * inv) >= _c_private(Nt[h], Nt[b], K, epsilon, delta)
            else:
                ok &= d * d / (2 * _SIG2 * inv) >= _c_gauss(Nt[h], Nt[b], K, delta)
        if ok:
            return n, h, True
        fresh = not private
        g = math.log(sum(N0)) if private else math.log(n)
        ie = 1 / epsilon if private else 0.0
        B = max(range(K), key=lambda a: mt[a] + math.sqrt(g / Nt[a]) + g * ie / Nt[a])
        L[B] += 1
        if NL[B] <= beta * L[B]:
            a = B
            NL[B] += 1
        else:
            cost = [np.inf] * K
            for c in range(K):
                if c != B:
                    dd = mt[B] - mt[c]
                    cost[c] = (dd * min(3 * epsilon, abs(dd)) / (1 / N[B] + 1 / N[c]) if star
                               else dd / math.sqrt(1 / N[B] + 1 / N[c]))
            a = min(range(K), key=cost.__getitem__)
        x = float(rng.random() < mu[a])
        N[a] += 1
        n += 1
        S[a] += x
        if not private:
            mt[a], Nt[a] = S[a] / N[a], N[a]
        elif N[a] >= 2 * N0[a]:
            Nt[a] = N[a] - N0[a]
            mt[a] = S[a] / Nt[a] + rng.laplace(0, noise / (epsilon * Nt[a]))
            N0[a], S[a], fresh = N[a], 0.0, True
    return budget, -1, False
