"""The (ε, δ) shuffle binary-summation mechanism (Algorithm 3 of Tenenbaum et al. (2021)) in Numba.

m users hold bits x_i ∈ {0, 1}. With accuracy τ = 96 log(2/δ)/ε² (computed
in ``bandsim.shuffle``):

- local randomizer E(x): if m ≤ τ the user sends (x, y_1, …, y_p) with
  p = ⌈τ/m⌉ fair coin bits y_j ~ Bernoulli(1/2); if m > τ it sends (x, y) with
  one bit y ~ Bernoulli(τ/(2m));
- shuffler: outputs the multiset of all bits, i.e. (since every user sends the
  same number of bits) the count of ones;
- analyzer A: count − E[B], where B is the number of ones among the noise
  bits: E[B] = ⌈τ/m⌉ m/2 if m ≤ τ, τ/2 if m > τ.

Batched path: B is Binomial(⌈τ/m⌉ m, 1/2) or Binomial(m, τ/(2m)), one draw
(exact). Per-user path: every user draws its own bits (:func:`per_user_sum`).

References
----------
Tenenbaum, Kaplan, Mansour & Stemmer (NeurIPS 2021), Appendix A,
Algorithm 3 and Theorem A.1.
"""
import numpy as np

from ._jit import jit
from .codes import LAW_BATCH
from .record import rbits, release


@jit
def fair_bits(m, tau):
    """p = ⌈τ/m⌉ fair noise bits per user if m ≤ τ (small regime), else 0 (int64)."""
    if m <= tau:
        return np.int64(np.ceil(tau / m))
    return np.int64(0)


@jit
def noise_mean(m, tau):
    """E[B]: ⌈τ/m⌉ m/2 if m ≤ τ, else τ/2 (float64; Algorithm 3 lines 14, 16)."""
    p = fair_bits(m, tau)
    if p > 0:
        return 0.5 * p * m
    return 0.5 * tau


@jit
def noise_ones(rng, m, tau):
    """B, the number of ones among the noise bits of ``m`` users (batched, exact).

    Parameters
    ----------
    rng : numpy.random.Generator
    m : int64
        Users in the batch (≥ 1).
    tau : float64
        τ = 96 log(2/δ)/ε².

    Returns
    -------
    int64
        Binomial(⌈τ/m⌉ m, 1/2) if m ≤ τ, else Binomial(m, τ/(2m)).
    """
    p = fair_bits(m, tau)
    if p > 0:
        return rng.binomial(p * m, 0.5)
    return rng.binomial(m, tau / (2.0 * m))


@jit
def analyzer(ones, m, tau):
    """The analyzer A: debiased estimate ``ones − E[B]`` of Σ x_i (float64).

    Parameters
    ----------
    ones : int64
        The shuffler's count of ones (the users' bits and the noise bits B).
    m : int64
        Users in the batch, ≥ 1.
    tau : float64
        The protocol's noise parameter τ > 0 (Tenenbaum et al., ICML 2021, Algorithm 3).

    Returns
    -------
    float64
        The estimate of Σ x_i (reward units; unbiased).
    """
    return ones - noise_mean(m, tau)


@jit
def batched_sum(rng, x_sum, m, tau):
    """Analyzer's estimate of Σ x_i from the true sum ``x_sum`` of ``m`` bits (float64).

    The shuffler's count of ones is ``x_sum + B`` with B drawn by
    :func:`noise_ones` (one Binomial draw); same distribution as
    :func:`per_user_sum`.

    Parameters
    ----------
    rng : numpy.random.Generator
        The caller's generator (advanced).
    x_sum : int64
        The users' true count of ones, in [0, m].
    m : int64
        Users in the batch, ≥ 1.
    tau : float64
        The protocol's noise parameter τ > 0 (Tenenbaum et al., ICML 2021, Algorithm 3).

    Returns
    -------
    float64
        The analyzer's estimate of Σ x_i (reward units).
    """
    return analyzer(x_sum + noise_ones(rng, m, tau), m, tau)


@jit
def encode_ones(rng, x, m, tau):
    """Local randomizer E(x) of one user in a batch of ``m``: ones in its message (int64).

    Draws the user's noise bits one by one (Algorithm 3 lines 4–9) and returns
    x plus their number of ones; the message length is 1 + ⌈τ/m⌉ (m ≤ τ) or 2.
    """
    p = fair_bits(m, tau)
    ones = x
    if p > 0:
        for _ in range(p):
            if rng.random() < 0.5:
                ones += 1
    elif rng.random() < tau / (2.0 * m):
        ones += 1
    return ones


@jit
def per_user_sum(rng, x, tau):
    """Per-user path: every user encodes, the shuffler counts ones, the analyzer debiases.

    Parameters
    ----------
    rng : numpy.random.Generator
    x : int64 (m,)
        The users' bits.
    tau : float64
        τ = 96 log(2/δ)/ε².

    Returns
    -------
    float64
        The analyzer's estimate of Σ x_i.
    """
    m = x.shape[0]
    ones = 0
    for i in range(m):
        ones += encode_ones(rng, x[i], m, tau)
    return analyzer(ones, m, tau)


@jit
def batch_estimate(rng, rcode, rpar, n, tau, rec, run, t0, arm):
    """Estimate of the reward sum of one batch of ``n`` users of one arm (float64).

    The users' binary (or binarized, :func:`kernels.rewards.binary_batch_sum`)
    rewards are summed through the mechanism; batched, exact.

    Parameters
    ----------
    rng : numpy.random.Generator
    rcode : int
        Reward model code.
    rpar : float64 (P,)
        The arm's reward parameters.
    n : int64
        Users in the batch (≥ 1).
    tau : float64
        τ = 96 log(2/δ)/ε² (ε, δ per batch).
    rec, run, t0, arm
        A recorder (``None`` in a simulation) and what it logs
        (:func:`kernels.protocols.batch_estimate`): the true count of ones is the
        release's statistic.
    """
    k = rbits(rng, rec, run, t0, arm, rcode, rpar, n)
    return release(rec, run, t0 + n, arm, n, LAW_BATCH, 0, k, tau, batched_sum(rng, k, n, tau))


@jit
def sample_batched(rng, x_sum, m, tau, size):
    """``size`` independent outputs of :func:`batched_sum` (float64 (size,))."""
    out = np.empty(size)
    for i in range(size):
        out[i] = batched_sum(rng, x_sum, m, tau)
    return out


@jit
def sample_per_user(rng, x, tau, size):
    """``size`` independent outputs of :func:`per_user_sum` on bits ``x`` (float64 (size,))."""
    out = np.empty(size)
    for i in range(size):
        out[i] = per_user_sum(rng, x, tau)
    return out
