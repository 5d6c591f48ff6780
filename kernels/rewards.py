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

References
----------
DESIGN.md, "Simulation fidelity", rules 1 and 3.
"""
import numpy as np

from ._jit import jit

BERNOULLI = 0
CLIPPED_GAUSSIAN = 1

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
def batch_sum(rng, code, par, n):
    """Sum of ``n`` i.i.d. rewards of one arm.

    Parameters
    ----------
    rng : numpy.random.Generator
    code : int
        Reward model code (``BERNOULLI`` or ``CLIPPED_GAUSSIAN``).
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
    # clipped Gaussian
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
        Reward model code (``BERNOULLI`` or ``CLIPPED_GAUSSIAN``).
    par : float64 (P,)
        The arm's parameter row (``par[0]`` = μ, or ``par[2]`` = E[X]).
    n : int64
        Users in the batch (≥ 0).

    Returns
    -------
    int64
        Number of users whose (binarized) reward is 1.

    References
    ----------
    seed 000 (Tenenbaum et al.), Section 2, footnote 12 (binary rewards).
    """
    if n <= 0:
        return 0
    mean = par[0] if code == BERNOULLI else par[2]
    return rng.binomial(n, mean)
