"""Privatized batch estimates: what the analyzer learns from one batch.

A mechanism travels as a small int code with a float row ``fpar`` and an int
row ``ipar`` of parameters derived in ``bandsim`` (one row per batch size).
:func:`batch_estimate` draws the batch's rewards and returns the analyzer's
estimate of their sum.

``NONE``
    the exact sum (non-private baselines; identity protocol of Chowdhury & Zhou (2023),
    Algorithm 1).
``LAPLACE``
    the exact sum plus continuous Laplace noise of scale ``fpar[0]`` (in reward
    units of the sum). DP-SE adds Lap(1/(ε r)) to a mean of r rewards
    (Sajed (2019), Algorithm 9 line 16), i.e. Lap(1/ε) to the sum.
``DIST_DP`` … ``DIST_DP_SHUFFLE`` (2–7)
    the protocol P = (R, S, A) of Chowdhury & Zhou (2023) with secure aggregation; see
    :mod:`kernels.secagg` (``ipar = [g, τ, m]``, ``fpar`` = noise parameters).
``SHUFFLE_BINARY`` (10)
    the (ε, δ) shuffle binary-summation mechanism (Tenenbaum et al. (2021), Algorithm 3) on
    the users' binary rewards ([0, 1] rewards binarized by a Bernoulli(x)
    draw); ``fpar[0]`` = τ = 96 log(2/δ)/ε². See :mod:`kernels.shuffle`.
"""
import numpy as np

from . import binary_summation
from ._jit import jit
from .codes import LAPLACE, NONE, SECAGG, SHUFFLE_BINARY
from .rewards import batch_sum
from .secagg import batched_estimate


@jit
def batch_estimate(rng, mech, rcode, rpar, n, fpar, ipar):
    """Analyzer's estimate of the sum of ``n`` rewards of one arm (float64).

    Parameters
    ----------
    rng : numpy.random.Generator
    mech : int
        Mechanism code (``NONE``, ``LAPLACE``, a protocol code 2–7 or
        ``SHUFFLE_BINARY``).
    rcode : int
        Reward model code, see :mod:`kernels.rewards`.
    rpar : float64 (P,)
        The arm's reward parameters.
    n : int64
        Users in the batch.
    fpar : float64 (F,), ipar : int64 (I,)
        Mechanism parameters for this batch size.
    """
    if mech == NONE:
        return batch_sum(rng, rcode, rpar, n)
    if mech == LAPLACE:
        s = batch_sum(rng, rcode, rpar, n)
        return s + rng.laplace(0.0, fpar[0])
    if mech == SHUFFLE_BINARY:
        return binary_summation.batch_estimate(rng, rcode, rpar, n, fpar[0])
    for code in SECAGG:
        if mech == code:
            return batched_estimate(rng, mech, rcode, rpar, n, fpar, ipar)
    raise ValueError("batch_estimate: unknown mechanism code")


@jit
def sum_noise(rng, n, fpar):
    """Noise a ``sum``-family plug-in adds to the exact batch sum (replaced by
    :func:`bandsim.kernels._jit.rebind` with the plug-in's own kernel)."""
    raise ValueError("sum_noise: no plug-in noise kernel bound")


@jit
def noisy_sum(rng, mech, rcode, rpar, n, fpar, ipar):
    """The exact batch sum plus a plug-in's noise ``sum_noise(rng, n, fpar)`` (float64)."""
    return batch_sum(rng, rcode, rpar, n) + sum_noise(rng, n, fpar)


@jit
def sample_estimates(rng, mech, rcode, rpar, n, fpar, ipar, size):
    """``size`` independent outputs of :func:`batch_estimate` (float64 (size,)), for the
    sampled privacy audit of the engine's own estimator."""
    out = np.empty(size)
    for i in range(size):
        out[i] = batch_estimate(rng, mech, rcode, rpar, n, fpar, ipar)
    return out
