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
``PLUGIN`` (100)
    a plug-in's SecAgg noise (``hooks.total_noise``) inside the protocol above.
``PLUGIN_SUM`` (101)
    the exact sum plus a plug-in's ``hooks.sum_noise(rng, n, fpar)``.
``RELEASE`` (102)
    a data-dependent release: the batch's true count k of ones among its
    binary rewards ([0, 1] rewards binarized by a Bernoulli(x) draw) goes to
    the plug-in's ``hooks.release(rng, n, k, fpar)``, which returns the
    analyzer's estimate of the sum.
``SHUFFLE_BINARY`` (10)
    the (ε, δ) shuffle binary-summation mechanism (Tenenbaum et al. (2021), Algorithm 3) on
    the users' binary rewards ([0, 1] rewards binarized by a Bernoulli(x)
    draw); ``fpar[0]`` = τ = 96 log(2/δ)/ε². See :mod:`kernels.shuffle`.
"""
import numpy as np

from . import binary_summation
from ._jit import jit
from .codes import (LAPLACE, LAW_BATCH, LAW_EXACT, LAW_LAPLACE, NONE, PLUGIN, PLUGIN_SUM,
                    RELEASE, SECAGG, SHUFFLE_BINARY)
from .record import hook_rng, rbits, release, rsum
from .secagg import batched_estimate, plugin_batched_estimate


@jit
def batch_estimate(rng, mech, rcode, rpar, n, fpar, ipar, rec, run, t0, arm):
    """Analyzer's estimate of the sum of ``n`` rewards of one arm (float64), built-in codes.

    Parameters
    ----------
    rng : numpy.random.Generator
    mech : int
        Mechanism code (``NONE``, ``LAPLACE``, a protocol code 2–7 or
        ``SHUFFLE_BINARY``); plug-in codes go to :func:`plugin_estimate`.
    rcode : int
        Reward model code, see :mod:`kernels.rewards`.
    rpar : float64 (P,)
        The arm's reward parameters.
    n : int64
        Users in the batch.
    fpar : float64 (F,)
        Real mechanism parameters for this batch size.
    ipar : int64 (I,)
        Integer mechanism parameters for this batch size.
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; a recorder in the whole-run privacy audit
        (the batch's rewards and its release go through :mod:`kernels.record`).
    run, t0, arm : int64
        The run, the pulls before the batch and the arm (what a recorder logs).

    Raises
    ------
    ValueError
        For any other code.
    """
    if mech == NONE:
        s = rsum(rng, rec, run, t0, arm, rcode, rpar, n)
        return release(rec, run, t0 + n, arm, n, LAW_EXACT, 0, s, 0.0, s)
    if mech == LAPLACE:
        s = rsum(rng, rec, run, t0, arm, rcode, rpar, n)
        return release(rec, run, t0 + n, arm, n, LAW_LAPLACE, 0, s, fpar[0],
                       s + rng.laplace(0.0, fpar[0]))
    if mech == SHUFFLE_BINARY:
        return binary_summation.batch_estimate(rng, rcode, rpar, n, fpar[0], rec, run, t0, arm)
    for code in SECAGG:
        if mech == code:
            return batched_estimate(rng, mech, rcode, rpar, n, fpar, ipar, rec, run, t0, arm)
    raise ValueError("batch_estimate: unknown mechanism code")


@jit
def plugin_estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks, rec, run, t0, arm):
    """:func:`batch_estimate` of a plug-in mechanism code, through its first-class kernels.

    Parameters
    ----------
    mech : int
        ``PLUGIN``, ``PLUGIN_SUM`` or ``RELEASE``.
    hooks : kernels.hooks.Hooks
        The plug-in's kernels; the other arguments as :func:`batch_estimate`.

    Raises
    ------
    ValueError
        For any other code, or a code whose hook is unbound.
    """
    if mech == PLUGIN:
        return plugin_batched_estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks, rec, run,
                                       t0, arm)
    if mech == PLUGIN_SUM:
        s = rsum(rng, rec, run, t0, arm, rcode, rpar, n)
        return release(rec, run, t0 + n, arm, n, LAW_BATCH, 0, s, fpar[0],
                       s + hooks.sum_noise(rng, n, fpar))
    if mech == RELEASE:
        k = rbits(rng, rec, run, t0, arm, rcode, rpar, n)
        return release(rec, run, t0 + n, arm, n, LAW_BATCH, 0, k, fpar[0],
                       hooks.release(hook_rng(rng, rec), n, k, fpar))
    raise ValueError("plugin_estimate: unknown plug-in mechanism code")


@jit
def estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks, rec, run, t0, arm):
    """What every engine calls: built-in codes without the hooks, plug-in codes with them."""
    if mech >= PLUGIN:
        return plugin_estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks, rec, run, t0, arm)
    return batch_estimate(rng, mech, rcode, rpar, n, fpar, ipar, rec, run, t0, arm)


@jit
def sample_estimates(rng, mech, rcode, rpar, n, fpar, ipar, size, hooks):
    """``size`` independent outputs of :func:`estimate` (float64 (size,)), for the
    sampled privacy audit of the engine's own estimator."""
    out = np.empty(size)
    for i in range(size):
        out[i] = estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks, None, 0, 0, 0)
    return out


@jit
def sample_releases(rng, mech, n, k, fpar, ipar, size, hooks):
    """``size`` analyzer outputs (float64 (size,)) of a batch of ``n`` users whose
    true count of ones is ``k``, through the same dispatch as :func:`batch_estimate`
    (``RELEASE`` only: the plug-in's ``release`` hook), for the sampled audit."""
    if mech != RELEASE:
        raise ValueError("sample_releases: not a release mechanism code")
    out = np.empty(size)
    for i in range(size):
        out[i] = hooks.release(rng, n, k, fpar)
    return out
