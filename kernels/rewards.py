"""Batch sums of rewards: n users pulling the same arm.

Reward models travel as small int codes with a per-arm parameter row
``par`` (float64, shape ``(P,)``):

``BERNOULLI``
    ``par[0]`` = mean μ. The sum of n rewards is one Binomial(n, μ) draw (exact).
``CLIPPED_GAUSSIAN``
    ``par[0]`` = location μ, ``par[1]`` = σ, ``par[2]`` = E[X], ``par[3]`` = Var[X]
    of X = clip(N(μ, σ²), 0, 1). Up to ``GAUSSIAN_EXACT_MAX_N`` users the sum is
    drawn user by user (exact); above it, by the moment-matched normal
    N(n E[X], n Var[X]) clipped to [0, n] (DESIGN.md rule 3; the Berry–Esseen
    bound on the Kolmogorov distance is computed in ``bandsim.instances``).
``CATEGORICAL``
    An empirical reward: values v_1…v_J in [0, 1] with probabilities
    p_1…p_J > 0. ``par[0]`` = J, ``par[1:1+Jmax]`` = values,
    ``par[1+Jmax:1+2 Jmax]`` = probabilities, where Jmax = (P − 1) // 2 is the
    common padded width of all arms (entries past J are ignored). The counts
    (c_1…c_J) of n rewards are one Multinomial(n; p) draw, made as sequential
    binomials (:func:`categorical_counts`); the sum is Σ c_j v_j (exact).

``encoded_sum(rng, code, par, n, g)`` is Σ x̂_i, the rewards encoded at
precision g with randomized rounding (Chowdhury & Zhou (2023), Algorithm 2): exactly
g · Binomial(n, μ) for Bernoulli rewards (see its docstring for Gaussians).

References
----------
DESIGN.md, "Simulation fidelity", rules 1 and 3.
"""
import math

import numpy as np

from ._jit import jit, jit_inline
from .codes import BERNOULLI, CATEGORICAL, CLIPPED_GAUSSIAN

#: Largest batch whose clipped-Gaussian sum is drawn user by user.
GAUSSIAN_EXACT_MAX_N = 64


@jit
def clipped_gaussian(rng, mu, sigma):
    """One reward clip(N(mu, sigma^2), 0, 1) (float64)."""
    x = mu + sigma * rng.standard_normal()
    if x < 0.0:
        return 0.0
    if x > 1.0:
        return 1.0
    return x


@jit
def categorical_counts(rng, par, n):
    """How many of ``n`` i.i.d. categorical rewards take each value.

    Multinomial(n; p_1…p_J) drawn as sequential binomials:
    c_j ~ Binomial(n − c_1 − … − c_{j−1}, p_j / (p_j + … + p_J)), and the last
    category takes the rest (``Generator.multinomial`` is not available in
    Numba). Exact.

    Parameters
    ----------
    rng : numpy.random.Generator
    par : float64 (P,)
        A ``CATEGORICAL`` parameter row (see the module docstring); every
        probability p_1…p_J must be > 0 and they must sum to 1.
    n : int64
        Number of users (≥ 0).

    Returns
    -------
    int64 (J,)
        Counts c_j, summing to n; the value of category j is ``par[1 + j]``.

    References
    ----------
    DESIGN.md, "Simulation fidelity", rule 1 and the Numba facts of rule 5.
    """
    J = int(par[0])
    jmax = (par.shape[0] - 1) // 2
    counts = np.zeros(J, np.int64)
    left = n
    tail = 1.0  # p_j + … + p_J before category j
    for j in range(J - 1):
        if left <= 0:
            return counts
        p = par[1 + jmax + j]
        q = p / tail if tail > p else 1.0
        c = rng.binomial(left, q)
        counts[j] = c
        left -= c
        tail -= p
    if left > 0:
        counts[J - 1] = left
    return counts


@jit
def batch_sum(rng, code, par, n):
    """Sum of ``n`` i.i.d. rewards of one arm.

    Parameters
    ----------
    rng : numpy.random.Generator
    code : int
        Reward model code (``BERNOULLI``, ``CLIPPED_GAUSSIAN`` or ``CATEGORICAL``).
    par : float64 (P,)
        The arm's parameter row, see the module docstring.
    n : int64
        Number of users in the batch (≥ 0).

    Returns
    -------
    float64
        The batch sum, in reward units (in [0, n]).
    """
    if n <= 0:
        return 0.0
    if code == BERNOULLI:
        return float(rng.binomial(n, par[0]))
    if code == CATEGORICAL:
        counts = categorical_counts(rng, par, n)
        s = 0.0
        for j in range(counts.shape[0]):
            s += counts[j] * par[1 + j]
        return s
    if code != CLIPPED_GAUSSIAN:
        raise ValueError("batch_sum: unknown reward model code")
    if n <= GAUSSIAN_EXACT_MAX_N:
        s = 0.0
        for _ in range(n):
            s += clipped_gaussian(rng, par[0], par[1])
        return s
    s = n * par[2] + np.sqrt(n * par[3]) * rng.standard_normal()
    if s < 0.0:
        return 0.0
    if s > n:
        return float(n)
    return s


@jit_inline
def draw(rng, code, par):
    """One reward of an arm (float64 in [0, 1]): the single-draw half of the reward path.

    Bernoulli: one uniform, ``u < μ``; clipped Gaussian: one
    :func:`clipped_gaussian`; categorical: one uniform against the
    cumulative probabilities (:func:`categorical_draw`).

    Parameters
    ----------
    rng : numpy.random.Generator
    code : int
        Reward model code (``BERNOULLI``, ``CLIPPED_GAUSSIAN`` or ``CATEGORICAL``).
    par : float64 (P,)
        The arm's parameter row, see the module docstring.

    Returns
    -------
    float64
        One reward, in [0, 1].

    Raises
    ------
    ValueError
        For an unknown reward model code.
    """
    if code == BERNOULLI:
        return 1.0 if rng.random() < par[0] else 0.0
    if code == CLIPPED_GAUSSIAN:
        return clipped_gaussian(rng, par[0], par[1])
    if code == CATEGORICAL:
        return categorical_draw(rng, par)
    raise ValueError("draw: unknown reward model code")


@jit
def categorical_draw(rng, par):
    """One categorical reward (float64): value j with probability p_j, by inversion.

    One uniform u; the value of the first category whose cumulative
    probability exceeds u (the last category takes the rounding remainder).
    """
    J = int(par[0])
    jmax = (par.shape[0] - 1) // 2
    u = rng.random()
    acc = 0.0
    for j in range(J - 1):
        acc += par[1 + jmax + j]
        if u < acc:
            return par[1 + j]
    return par[J]


@jit
def binary_batch_sum(rng, code, par, n):
    """Sum of ``n`` binary rewards of one arm: one Binomial(n, E[X]) draw (exact).

    Bernoulli rewards are binary already. A [0, 1]-valued reward x (clipped
    Gaussian) is binarized by its user into one Bernoulli(x) bit, which is
    unbiased; unconditionally that bit is Bernoulli(E[X]), and the bits of n
    users are independent, so their sum is exactly Binomial(n, E[X]).

    Parameters
    ----------
    rng : numpy.random.Generator
    code : int
        Reward model code (any; [0, 1]-valued rewards are binarized).
    par : float64 (P,)
        The arm's parameter row.
    n : int64
        Users in the batch (≥ 0).

    Returns
    -------
    int64
        Number of users whose (binarized) reward is 1.

    References
    ----------
    Tenenbaum et al. (NeurIPS 2021), Section 2, footnote 12 (binary rewards).
    """
    if n <= 0:
        return 0
    return rng.binomial(n, reward_mean(code, par))


@jit
def reward_mean(code, par):
    """E[X] of one arm's reward from its parameter row.

    Parameters
    ----------
    code : int
        Reward model code.
    par : float64 (P,)
        The arm's parameter row, see the module docstring.

    Returns
    -------
    float64
        The mean reward, in [0, 1].

    Raises
    ------
    ValueError
        For an unknown reward model code.
    """
    if code == BERNOULLI:
        return par[0]
    if code == CLIPPED_GAUSSIAN:
        return par[2]
    if code != CATEGORICAL:
        raise ValueError("reward_mean: unknown reward model code")
    J = int(par[0])
    jmax = (par.shape[0] - 1) // 2
    m = 0.0
    for j in range(J):
        m += par[1 + j] * par[1 + jmax + j]
    return m


@jit
def _phi(z):
    return math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


@jit
def _Phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@jit
def rounding_variance(mu, sigma, g):
    """E[f(1 − f)], f = frac(g X), X = clip(N(mu, sigma²), 0, 1) (float64).

    The conditional variance of the randomized rounding x̂ = ⌊gX⌋ + Ber(f),
    averaged over X; computed exactly cell by cell (u(1 − u) on each cell
    [j/g, (j+1)/g) is a quadratic in the standard normal z, integrated in
    closed form with Φ and φ). The clipped atoms at 0 and 1 round exactly.
    """
    b = g * sigma
    total = 0.0
    za = (0.0 - mu) / sigma
    pa, fa = _Phi(za), _phi(za)
    for j in range(g):
        zb = ((j + 1.0) / g - mu) / sigma
        pb, fb = _Phi(zb), _phi(zb)
        a = g * mu - j
        i0 = pb - pa
        i1 = fa - fb
        i2 = i0 - (zb * fb - za * fa)
        total += a * (1.0 - a) * i0 + b * (1.0 - 2.0 * a) * i1 - b * b * i2
        za, pa, fa = zb, pb, fb
    return total if total > 0.0 else 0.0


@jit
def encode(rng, x, g):
    """Randomized rounding of one reward x ∈ [0, 1] at precision g (int64).

    x̂ = ⌊x g⌋ + Ber(x g − ⌊x g⌋), so E[x̂] = x g and x̂ ∈ {0, …, g}
    (Chowdhury & Zhou (2023), Algorithm 2 line 3).
    """
    y = x * g
    fl = math.floor(y)
    return np.int64(fl) + (1 if rng.random() < y - fl else 0)


@jit
def encoded_sum(rng, code, par, n, g):
    """Σ x̂_i: the sum of n users' rewards encoded at precision g (int64).

    Parameters
    ----------
    rng : numpy.random.Generator
    code : int
        Reward model code.
    par : float64 (P,)
        The arm's parameter row.
    n : int64
        Users in the batch.
    g : int64
        Precision g ≥ 1 of the fixed-point encoding (Chowdhury & Zhou (2023), Algorithm 2).

    Returns
    -------
    int64
        Σ x̂_i ∈ [0, n g]. Bernoulli rewards are integers, so x̂ = g x and the
        sum is exactly g · Binomial(n, μ). Categorical rewards are exact too
        (multinomial counts, then one Binomial per value for the rounding
        up). Clipped-Gaussian rewards are
        encoded user by user (exact) up to ``GAUSSIAN_EXACT_MAX_N`` users;
        above it the sum is the moment-matched normal with the exact mean
        n g E[X] and variance n (g² Var[X] + E[f(1 − f)]) rounded to the
        nearest integer and clipped to [0, n g] (DESIGN.md rule 3; Kolmogorov
        distance ≤ 0.4748 g / sqrt(n Var[x̂]) ≤ 0.4748 / sqrt(n Var[X]) by
        Berry–Esseen, since x̂ − E x̂ lies in [−g, g]).

    References
    ----------
    Chowdhury & Zhou (2023), Algorithm 2 line 3 (randomized rounding); DESIGN.md rules 1, 3.
    """
    if n <= 0:
        return np.int64(0)
    if code == BERNOULLI:
        return np.int64(g) * rng.binomial(n, par[0])
    if code == CATEGORICAL:  # exact: users with value v add ⌊g v⌋ + Ber(frac(g v))
        counts = categorical_counts(rng, par, n)
        s = np.int64(0)
        for j in range(counts.shape[0]):
            y = par[1 + j] * g
            fl = math.floor(y)
            s += counts[j] * np.int64(fl) + rng.binomial(counts[j], y - fl)
        return s
    if code != CLIPPED_GAUSSIAN:
        raise ValueError("encoded_sum: unknown reward model code")
    if n <= GAUSSIAN_EXACT_MAX_N:
        s = np.int64(0)
        for _ in range(n):
            s += encode(rng, clipped_gaussian(rng, par[0], par[1]), g)
        return s
    var = g * g * par[3] + rounding_variance(par[0], par[1], g)
    x = n * g * par[2] + math.sqrt(n * var) * rng.standard_normal()
    top = float(n) * g
    if x <= 0.0:
        return np.int64(0)
    if x >= top:
        return np.int64(n) * g
    return np.int64(math.floor(x + 0.5))
