"""The batched elimination engine: one kernel for every elimination algorithm.

A run proceeds in stages s = 0, 1, … (DP-SE epochs, Algorithm 1 batches).
In stage s with k active arms every active arm gets ``batch[s, k]`` pulls;
the analyzer's estimate of each arm's reward sum comes from
:func:`kernels.protocols.batch_estimate`; arm a is eliminated when
``max_b est_b − est_a > width[s, k]``. When one arm is left it is pulled
until the horizon. A stage that would cross the horizon is cut exactly at T.

All algorithm-specific numbers (batch sizes, widths, noise parameters) are
computed in ``bandsim`` and passed in as tables indexed by (stage, k).

References
----------
Sajed (MSc thesis 2019), Algorithm 9 (DP-SE); Chowdhury & Zhou (2023),
Algorithm 1 (batch-based successive elimination).
"""
import numpy as np

from ._jit import jit
from .codes import PLUGIN
from .protocols import batch_estimate, plugin_estimate
from .regret import advance, commit, start_run


@jit
def run_shard(rng, shard, tables, hooks, rec):
    """Simulate a shard of independent runs of one elimination algorithm.

    Parameters
    ----------
    rng : numpy.random.Generator
        The shard's generator; runs use it one after the other.
    shard : kernels.shard.Shard
        The runs (instance, horizon, checkpoints, output rows).
    tables : kernels.shard.EliminationTables
        The algorithm's tables (below).
    hooks : kernels.hooks.Hooks or None
        A plug-in mechanism's first-class kernels (:mod:`kernels.hooks`);
        built-in mechanism codes never call them and pass ``None``: Numba
        prunes the plug-in branch for a ``None`` argument at compile time, so
        a built-in's call unboxes no first-class functions (≈25 µs a shard).
        Every plug-in mechanism runs one compiled (and disk-cached) engine.
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; a recorder in the whole-run privacy audit
        (:mod:`kernels.record`: every batch and release logged).

    Fields used
    -----------
    gaps : float64 (R, K)
        Suboptimality gaps Δ_a of each run's instance.
    rcode : int
        Reward model code (:mod:`kernels.rewards`).
    rpar : float64 (R, K, P)
        Reward parameters of each run's arms.
    horizon : int64
        T, total pulls of a run.
    batch : int64 (S, K + 1)
        Pulls per active arm in stage s when k arms are active.
    width : float64 (S, K + 1)
        Elimination threshold on the gap of estimated means.
    mech : int
        Mechanism code (:mod:`kernels.protocols`).
    fpar : float64 (S, K + 1, F); ipar : int64 (S, K + 1, I)
        Mechanism parameters per (stage, k).
    order : int
        Pull order inside a stage (:mod:`kernels.regret`).
    cumulative : bool
        If true, estimates pool all batches so far (sum of estimates over sum
        of pulls); otherwise each stage's estimate uses that stage only.
    checkpoints : int64 (C,)
        Increasing times in [1, T] at which pseudo-regret is recorded.
    out_regret : float64 (R, C)
        Output: pseudo-regret at the checkpoints.
    out_pulls : int64 (R, K)
        Output: N_a(T).
    out_elim : int64 (R, K)
        Output: the time t at which arm a was eliminated, −1 if never.

    Raises
    ------
    ValueError
        If a run needs more stages than the tables hold (a bug in the
        parameter derivation, not a user error), or for a plug-in mechanism
        code with ``hooks=None``.
    """
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    batch, width, mech, fpar, ipar = (tables.batch, tables.width, tables.mech, tables.fpar,
                                      tables.ipar)
    order, cumulative = tables.order, tables.cumulative
    n_runs, n_arms = gaps.shape
    n_stages = batch.shape[0]
    active = np.empty(n_arms, np.int64)
    est = np.zeros(n_arms)
    sums = np.zeros(n_arms)
    counts = np.zeros(n_arms)
    for r in range(n_runs):
        g = gaps[r]
        row = out_regret[r]
        pulls = out_pulls[r]
        start_run(active, pulls, out_elim[r])
        sums[:] = 0.0
        counts[:] = 0.0
        k = n_arms
        t = 0
        regret = 0.0
        ci = 0
        s = 0
        while k > 1 and t < horizon:
            if s >= n_stages:
                raise ValueError("elimination engine: stage table too short")
            n = batch[s, k]
            length = k * n
            if t + length >= horizon:
                ci, regret = advance(row, checkpoints, ci, t, horizon - t, regret, order,
                                     active, k, n, g, pulls)
                t = horizon
                break
            for j in range(k):
                a = active[j]
                if mech >= PLUGIN:  # the hooks never reach the built-in paths
                    if hooks is None:  # on the argument itself: pruned at compile time
                        raise ValueError("elimination engine: a plug-in mechanism code "
                                         "without its kernels")
                    x = plugin_estimate(rng, mech, rcode, rpar[r, a], n, fpar[s, k],
                                        ipar[s, k], hooks, rec, r, t, a)
                else:
                    x = batch_estimate(rng, mech, rcode, rpar[r, a], n, fpar[s, k], ipar[s, k],
                                       rec, r, t, a)
                if cumulative:
                    sums[a] += x
                    counts[a] += n
                    est[a] = sums[a] / counts[a]
                else:
                    est[a] = x / n
            ci, regret = advance(row, checkpoints, ci, t, length, regret, order, active,
                                 k, n, g, pulls)
            t += length
            k = eliminate(est, active, k, width[s, k], t, out_elim[r])
            s += 1
        commit(row, checkpoints, ci, t, horizon, regret, active[0], g, pulls)


@jit
def eliminate(est, active, k, width, t, elim_row):
    """Remove every active arm a with ``max_b est[b] − est[a] > width``.

    Compacts ``active[:k]`` in place (order kept), records ``t`` in
    ``elim_row`` for the removed arms and returns the new number of active
    arms (the best arm always stays, since width ≥ 0).

    Parameters
    ----------
    est : float64 (K,)
        Estimates per arm (any common unit: means or sums).
    active : int64 (K,)
        Active arms in pull order; the first ``k`` are used, compacted in place.
    k : int64
        Active arms.
    width : float64
        Elimination threshold, in the unit of ``est`` (≥ 0).
    t : int64
        Time recorded for the removed arms.
    elim_row : int64 (K,)
        Elimination times, updated in place.

    Returns
    -------
    int64
        The new number of active arms.

    References
    ----------
    Sajed (MSc thesis 2019), Algorithm 9 line 20; Chowdhury & Zhou (ICLR 2023),
    Algorithm 1 line 12.
    """
    best = est[active[0]]
    for j in range(1, k):
        if est[active[j]] > best:
            best = est[active[j]]
    kept = 0
    for j in range(k):
        a = active[j]
        if best - est[a] > width:
            elim_row[a] = t
        else:
            active[kept] = a
            kept += 1
    return kept
