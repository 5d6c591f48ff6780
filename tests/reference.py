"""Plain per-user, per-pull reference implementations (obvious code, slow).

Each function simulates ONE run pull by pull, exactly as the seed's pseudocode
reads, and returns (regret at checkpoints, N_a(T)). They share nothing with
the kernels except the parameter derivations of ``bandsim.algorithms``.
"""
import numpy as np

from bandsim.algorithms.batched import batch_size, confidence_radius
from bandsim.algorithms.central import dp_se_epoch
from bandsim.algorithms.shuffle import confidence_bound
from bandsim.shuffle import BinarySummation


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
            for i in S:
                x = tape.pull(rng, i, reward)
                if x is None:
                    break
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
            total = 0.0
            for _ in range(n):
                x = tape.pull(rng, a, reward)
                if x is None:
                    break
                total += x
            mu[a] = total / n
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
            bits = []
            for _ in range(m):
                x = tape.pull(rng, a, reward)
                if x is None:
                    break
                bits.append(int(rng.random() < x))
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
            xs = []
            for _ in range(n):
                x = tape.pull(rng, a, reward)
                if x is None:
                    break
                xs.append(x)
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
