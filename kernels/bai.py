"""Fixed-confidence best-arm identification by batched elimination (one kernel).

A run proceeds in stages (epochs) s = 0, 1, … with an active set of k arms.
In stage s every active arm gets ``batch[s, k]`` fresh pulls; their sum is
one draw (:func:`kernels.protocols.batch_estimate`: one Binomial for
Bernoulli rewards, plus the mechanism's noise through the release primitive
:func:`kernels.record.release`, so the whole-run audit records it). Arm a is
eliminated when ``max_b m̃_b − m̃_a > width[s, k]`` (means of the current
stage only, previous stages forgotten). The run **stops** when one arm is
left: the stopping time τ is the number of pulls made, the recommendation is
the survivor. A stage that would take the run past the budget T_max is not
drawn: the run is censored (``stopped`` false, τ reported as T_max, no
recommendation, −1).

All numbers (stage sizes, widths, noise scale) are derived in ``bandsim``
(:mod:`bandsim.bai.declarations`) and handed in as the elimination engine's
tables (:class:`kernels.shard.EliminationTables`).

References
----------
Sajed & Sheffet, "An Optimal Private Stochastic-MAB Algorithm Based on an
Optimal Private Stopping Rule" (ICML 2019), Algorithm DP-SE; as a
fixed-confidence identifier in Azize, Jourdan, Al Marjani & Basu, "On the
Complexity of Differentially Private Best-Arm Identification with Fixed
Confidence" (NeurIPS 2023), baseline of Section 5.
"""
import numpy as np

from ._jit import jit
from .elimination import eliminate
from .protocols import batch_estimate


@jit
def run_shard(rng, rcode, rpar, budget, tables, out_tau, out_rec, out_stopped, rec):
    """Simulate a shard of independent fixed-confidence elimination runs.

    Parameters
    ----------
    rng : numpy.random.Generator
        The shard's generator; runs use it one after the other.
    rcode : int64
        Reward model code (:mod:`kernels.codes`).
    rpar : float64 (R, K, P)
        Reward parameters of each run's arms.
    budget : int64
        T_max: a run that would need more pulls is censored.
    tables : kernels.shard.EliminationTables
        ``batch`` int64 (S, K + 1) pulls per active arm in stage s with k active
        arms; ``width`` float64 (S, K + 1) elimination threshold on mean
        differences; ``mech``, ``fpar``, ``ipar`` the mechanism code and
        parameters per (stage, k) (``LAPLACE``: fpar[0] the scale on the sum).
    out_tau : int64 (R,)
        Output: stopping time τ (pulls), T_max for a censored run.
    out_rec : int64 (R,)
        Output: recommended arm (0-based), −1 for a censored run.
    out_stopped : bool (R,)
        Output: the run stopped within the budget.
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; a recorder in the whole-run privacy audit.

    Raises
    ------
    ValueError
        If a run needs more stages than the tables hold (a bug in the
        parameter derivation, not a user error).
    """
    batch, width, mech, fpar, ipar = (tables.batch, tables.width, tables.mech, tables.fpar,
                                      tables.ipar)
    n_runs, n_arms = rpar.shape[0], rpar.shape[1]
    n_stages = batch.shape[0]
    active = np.empty(n_arms, np.int64)
    est = np.zeros(n_arms)
    elim = np.empty(n_arms, np.int64)
    for r in range(n_runs):
        for a in range(n_arms):
            active[a] = a
        k = n_arms
        t = 0
        s = 0
        censored = False
        while k > 1:
            if s >= n_stages:
                raise ValueError("bai elimination engine: stage table too short")
            n = batch[s, k]
            if t + k * n > budget:
                censored = True
                break
            for j in range(k):
                a = active[j]
                est[a] = batch_estimate(rng, mech, rcode, rpar[r, a], n, fpar[s, k],
                                        ipar[s, k], rec, r, t + j * n, a) / n
            t += k * n
            k = eliminate(est, active, k, width[s, k], t, elim)
            s += 1
        out_stopped[r] = not censored
        out_tau[r] = budget if censored else t
        out_rec[r] = -1 if censored else active[0]
