"""Per-pull references of the algorithms beyond the seeds (one reward at a time)."""
import inspect
import math

import numpy as np

from tests.reference import BinaryTree, Tape, bernoulli  # noqa: F401

# Straight from the papers' pseudocode, one reward at a time, with the
# readings recorded in docs/fidelity.md ("Beyond the seeds"). Nothing is
# shared with the kernels: the indices, the divergences and the episode
# lengths are recomputed here in plain Python (exact rationals for ⌈α N⌉).


def _clip01(x):
    return min(1.0, max(0.0, x))


def _kl(p, q):
    import math

    q = min(max(q, 1e-15), 1 - 1e-15)
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


def _kl_ucb(x, level, hi=1.0):
    """max{q in [x, hi] : kl(x, q) <= level}, by 60 halvings."""
    if x >= hi or _kl(x, hi) <= level:
        return hi
    lo = x
    for _ in range(60):
        mid = (lo + hi) / 2
        if _kl(x, mid) <= level:
            lo = mid
        else:
            hi = mid
    return lo


def _d_eps(x, y, eps):
    """d_eps(x, y) = inf over z between x and y of eps |z - x| + kl(z, y), closed form."""
    import math

    if y <= x:
        return 0.0
    g = x / (x + (1 - x) * math.exp(-eps))  # = x e^eps / (x (e^eps - 1) + 1)
    if y <= g:
        return _kl(x, y)
    return -math.log(1 - y * (1 - math.exp(-eps))) - eps * x


def _d_eps_ucb(x, level, eps):
    """max{mu in [x, 1] : d_eps(x, mu) <= level}."""
    import math

    if eps * (1 - x) <= level:
        return 1.0
    g = x / (x + (1 - x) * math.exp(-eps))  # = x e^eps / (x (e^eps - 1) + 1)
    if level >= _kl(x, g):
        return min(1.0, (1 - math.exp(-(level + eps * x))) / (1 - math.exp(-eps)))
    return _kl_ucb(x, level, g)


def _pick(rng, values, largest=True):
    """Index of the largest (smallest) value, ties uniformly at random."""
    best = max(values) if largest else min(values)
    tied = [i for i, v in enumerate(values) if v == best]
    return tied[0] if len(tied) == 1 else tied[int(rng.integers(len(tied)))]


def adap(rng, means, horizon, epsilon, alpha, checkpoints, kl=False, reward=None):
    """AdaP-UCB / AdaP-KLUCB (Azize & Basu, NeurIPS 2022, Algorithm 1, Eq. (7)), per pull.

    Pull every arm once (m_a = r_a + Lap(1/ε), n_a = 1); then at t_ℓ pull the
    arm of largest index until its count doubles; when the episode ends,
    n_A = its size and m_A = its mean + Lap(1/(ε n_A)). Ties at random.
    """
    import math

    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    K = len(means)
    m, n, N = [0.0] * K, [0] * K, [0] * K
    for a in range(K):
        x = tape.pull(rng, a, reward)
        if x is None:
            break
        m[a], n[a], N[a] = x + rng.laplace(0.0, 1.0 / epsilon), 1, 1
    while not tape.done:
        tl = tape.t + 1
        index = []
        for a in range(K):
            if kl:
                x = _clip01(m[a] + alpha * math.log(tl) / (epsilon * n[a]))
                index.append(_kl_ucb(x, alpha * math.log(tl) / n[a]))
            else:
                index.append(m[a] + math.sqrt(alpha * math.log(tl) / (2 * n[a]))
                             + alpha * math.log(tl) / (epsilon * n[a]))
        A = _pick(rng, index)
        xs = tape.block(rng, A, N[A], reward)
        full = len(xs) == N[A]
        N[A] += len(xs)
        if full:
            n[A] = len(xs)
            m[A] = sum(xs) / n[A] + rng.laplace(0.0, 1.0 / (epsilon * n[A]))
    return np.array(tape.out), tape.pulls


def _next_target(N, alpha, grid):
    """The count at which the next episode of an arm with N pulls ends (exact rationals)."""
    import math
    from fractions import Fraction

    a = Fraction(str(alpha))
    if not grid:
        return max(N + 1, math.ceil(a * N))
    k = 0
    while math.ceil(a**k) <= N:
        k += 1
    return math.ceil(a**k)


def dp_kl(rng, means, horizon, epsilon, alpha, checkpoints, imed=False, grid=False,
          reward=None):
    """DP-KLUCB / DP-IMED (Azize, Wu, Honda, Orabona, Ito & Basu, NeurIPS 2025), per pull.

    Pull every arm once (S̃_a = r_a + Lap(1/ε), N_a = 1); then at t_ℓ pick the
    arm (largest DP-KLUCB index, or smallest DP-IMED index) and pull it until
    N_A = ⌈α N_A⌉ (at least one pull; or the next grid point ⌈α^k⌉); the
    episode's reward sum + Lap(1/ε) is added to S̃_A. Ties at random.
    """
    import math

    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    K = len(means)
    S, N = [0.0] * K, [0] * K
    for a in range(K):
        x = tape.pull(rng, a, reward)
        if x is None:
            break
        S[a], N[a] = x + rng.laplace(0.0, 1.0 / epsilon), 1
    while not tape.done:
        tl = tape.t + 1
        x = [_clip01(S[a] / N[a]) for a in range(K)]
        if imed:
            best = max(x)
            A = _pick(rng, [N[a] * _d_eps(x[a], best, epsilon) + math.log(N[a])
                            for a in range(K)], largest=False)
        else:
            A = _pick(rng, [_d_eps_ucb(x[a], math.log(tl) / N[a], epsilon) for a in range(K)])
        xs = tape.block(rng, A, _next_target(N[A], alpha, grid) - N[A], reward)
        N[A] += len(xs)
        S[A] += sum(xs) + rng.laplace(0.0, 1.0 / epsilon)
    return np.array(tape.out), tape.pulls


def lazy_dp_ts(rng, means, horizon, epsilon, checkpoints, log2=False, reward=None):
    """Lazy-DP-TS (Hu & Hegde, UAI 2022, Algorithm 2), per pull; LOG = ln (or log2)."""
    import math

    LOG = math.log2 if log2 else math.log
    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    K = len(means)
    O, mt, r, psi = [1] * K, [0.0] * K, [0] * K, [[] for _ in range(K)]
    for j in range(K):
        x = tape.pull(rng, j, reward)
        if x is None:
            break
        mt[j] = x + rng.laplace(0.0, 1.0 / epsilon)
    while not tape.done:
        t = tape.t + 1
        theta = []
        for j in range(K):
            mbar = _clip01(mt[j] + 3 * LOG(t) / (epsilon * O[j]))
            theta.append(rng.beta(mbar * O[j] + 1, (1 - mbar) * O[j] + 1))
        J = int(np.argmax(theta))
        psi[J].append(tape.pull(rng, J, reward))
        if len(psi[J]) == 2 ** (r[J] + 1):
            O[J] = 2 ** (r[J] + 1)
            mt[J] = (sum(psi[J]) + rng.laplace(0.0, 1.0 / epsilon)) / O[J]
            r[J] += 1
            psi[J] = []
    return np.array(tape.out), tape.pulls


def dp_ts(rng, means, horizon, epsilon, checkpoints, log2=True, reward=None):
    """DP-TS (Hu & Hegde, UAI 2022, Algorithm 1), per pull; LOG = log2 (or ln).

    Completed epochs: C += their sum + Lap(1/(0.5ε)); the current epoch r: the
    2^(r+1)-bounded binary mechanism at privacy 0.5ε, node noise
    Lap((r+1)/(0.5ε)) drawn once per node (:class:`BinaryTree`).
    """
    import math

    LOG = math.log2 if log2 else math.log
    tape = Tape(means, horizon, checkpoints)
    reward = reward or bernoulli(means)
    K = len(means)
    O, C, B, r = [1] * K, [0.0] * K, [0.0] * K, [0] * K
    psi = [[] for _ in range(K)]
    tree = [BinaryTree(1.0 / (0.5 * epsilon)) for _ in range(K)]
    for j in range(K):
        x = tape.pull(rng, j, reward)
        if x is None:
            break
        C[j] = x + rng.laplace(0.0, 1.0 / (0.5 * epsilon))
    while not tape.done:
        t = tape.t + 1
        theta = []
        for j in range(K):
            ups = 6 * math.sqrt(8) * LOG(O[j] + 1) * LOG(t) / (epsilon * O[j])
            mbar = _clip01((C[j] + B[j]) / O[j] + ups)
            theta.append(rng.beta(mbar * O[j] + 1, (1 - mbar) * O[j] + 1))
        J = int(np.argmax(theta))
        x = tape.pull(rng, J, reward)
        O[J] += 1
        psi[J].append(x)
        if O[J] == 2 ** (r[J] + 2) - 1:
            C[J] += sum(psi[J]) + rng.laplace(0.0, 1.0 / (0.5 * epsilon))
            psi[J] = []
            r[J] += 1
            B[J] = 0.0
            tree[J] = BinaryTree((r[J] + 1) / (0.5 * epsilon))
        else:
            B[J] = tree[J].insert(rng, x)
    return np.array(tape.out), tape.pulls


def decision_rule(rng, decide, means, horizon, batch, c, laplace_scale=0.0):
    """Per-pull reference of the batched decision-rule engine: one Bernoulli reward at a
    time, the rule called as plain Python (``decide.py_func``) between batches (of
    either form: ``(rng, stat, cnt, t, c, pick, state)`` or ``(stat, cnt, t, c, pick)``).

    Each full batch's reward sum, plus Lap(``laplace_scale``) if positive, is added to
    the arm's statistic; a batch cut by the horizon is not released; ``r = 0``
    commits to ``pick[0]``. Returns N_a(T) (int64 (K,)).
    """
    K = len(means)
    stat, cnt = np.zeros(K), np.zeros(K, np.int64)
    pick = np.zeros(K, np.int64)
    pulls = np.zeros(K, np.int64)
    t = 0
    state = np.zeros(K)
    legacy = len(inspect.signature(decide.py_func).parameters) == 5
    while t < horizon:
        r = (decide.py_func(stat, cnt, t, np.asarray(c, float), pick) if legacy else
             decide.py_func(rng, stat, cnt, t, np.asarray(c, float), pick, state))
        if r == 0:
            pulls[pick[0]] += horizon - t
            return pulls
        for a in pick[:r].copy():
            if t >= horizon:
                break
            L = min(batch, horizon - t)
            s = sum(float(rng.random() < means[a]) for _ in range(L))
            pulls[a] += L
            t += L
            if L == batch:
                stat[a] += s + (rng.laplace(0.0, laplace_scale) if laplace_scale > 0 else 0.0)
                cnt[a] += L
    return pulls
