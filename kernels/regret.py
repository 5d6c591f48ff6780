"""Exact pseudo-regret bookkeeping inside a stage of pulls.

A *stage* is a batch (Algorithm 1 of Chowdhury & Zhou) or an epoch (DP-SE):
each of the ``k`` active arms receives ``n`` pulls, in one of two orders:

``ROUND_ROBIN``
    rounds over the active arms, one pull each (Sajed (2019), Algorithm 9 lines 9–13);
``BLOCKS``
    ``n`` consecutive pulls of the first active arm, then of the second, …
    (Chowdhury & Zhou (2023), Algorithm 1 lines 5–10).

Pseudo-regret Σ_a Δ_a N_a(t) is piecewise linear in t, so its value at any
checkpoint inside a stage follows exactly from the order; nothing is stored
per pull (DESIGN.md rule 4).
"""
from ._jit import jit
from .codes import BLOCKS, ROUND_ROBIN


@jit
def stage_pulls(order, j, k, n, u):
    """Pulls of the j-th active arm after the first ``u`` pulls of a stage (int64).

    Parameters
    ----------
    order : int
        ``ROUND_ROBIN`` or ``BLOCKS``.
    j, k, n, u : int64
        The arm's place among the ``k`` active arms, pulls per arm in the
        stage, and pulls of the stage made so far (0 ≤ u ≤ k n).

    Returns
    -------
    int64
        Its pulls, in [0, n].

    Raises
    ------
    ValueError
        For an unknown order code.
    """
    if order == ROUND_ROBIN:
        full = u // k
        rem = u - full * k
        return full + (1 if j < rem else 0)
    if order != BLOCKS:
        raise ValueError("stage_pulls: unknown pull order code")
    done = u - j * n
    if done <= 0:
        return 0
    return n if done > n else done


@jit
def stage_regret(order, active, k, n, gaps, u):
    """Pseudo-regret accrued by the first ``u`` pulls of a stage (float64).

    Parameters
    ----------
    order : int
        ``ROUND_ROBIN`` or ``BLOCKS``.
    active : int64 (K,)
        Indices of the active arms in pull order; the first ``k`` are used.
    k, n, u : int64
        Active arms, pulls per arm in the stage, pulls made so far (u ≤ k n).
    gaps : float64 (K,)
        Suboptimality gaps Δ_a of the run.
    """
    r = 0.0
    for j in range(k):
        r += stage_pulls(order, j, k, n, u) * gaps[active[j]]
    return r


@jit
def fill_checkpoints(out, checkpoints, ci, t0, t1, regret0, order, active, k, n, gaps):
    """Write pseudo-regret at every checkpoint in (t0, t1] of one stage.

    ``out[c]`` receives the regret at time ``checkpoints[c]`` for ``c ≥ ci``
    while ``checkpoints[c] ≤ t1``.

    Parameters
    ----------
    out : float64 (C,)
        The run's regret row at the checkpoints, written in place.
    checkpoints : int64 (C,)
        Increasing times in [1, T].
    ci : int64
        The first checkpoint not yet written.
    t0, t1 : int64
        The stage's start and the last time to write.
    regret0 : float64
        Pseudo-regret at ``t0``.
    order : int
        ``ROUND_ROBIN`` or ``BLOCKS``.
    active : int64 (K,)
        Indices of the active arms in pull order; the first ``k`` are used.
    k, n : int64
        Active arms and pulls per arm in the stage.
    gaps : float64 (K,)
        Suboptimality gaps Δ_a of the run (reward units).

    Returns
    -------
    int64
        The index of the first checkpoint not yet written.
    """
    nc = checkpoints.shape[0]
    while ci < nc and checkpoints[ci] <= t1:
        out[ci] = regret0 + stage_regret(order, active, k, n, gaps, checkpoints[ci] - t0)
        ci += 1
    return ci


@jit
def fill_linear(out, checkpoints, ci, t0, regret0, gap):
    """Write regret for a single arm pulled from time t0 on, at all remaining checkpoints."""
    nc = checkpoints.shape[0]
    while ci < nc:
        out[ci] = regret0 + (checkpoints[ci] - t0) * gap
        ci += 1
    return ci


@jit
def advance(out, checkpoints, ci, t, u, regret, order, active, k, n, gaps, pulls):
    """Account the first ``u`` pulls of a stage that starts at time ``t``.

    Writes the checkpoints in (t, t + u], adds each active arm's pulls to
    ``pulls`` (int64 (K,)) and returns ``(ci, regret)`` after them. With
    ``u = k n`` this is a whole stage; with ``u = T − t`` the stage cut by the
    horizon.

    Parameters
    ----------
    out : float64 (C,)
        The run's regret row at the checkpoints, written in place.
    checkpoints : int64 (C,)
        Increasing times in [1, T].
    ci : int64
        The first checkpoint not yet written.
    t, u : int64
        The stage's start and the pulls of it to account.
    regret : float64
        Pseudo-regret at ``t``.
    order : int
        ``ROUND_ROBIN`` or ``BLOCKS``.
    active : int64 (K,)
        Indices of the active arms in pull order; the first ``k`` are used.
    k, n : int64
        Active arms and pulls per arm in the stage.
    gaps : float64 (K,)
        Suboptimality gaps Δ_a of the run (reward units).
    pulls : int64 (K,)
        N_a, advanced in place.

    Returns
    -------
    ci : int64
        The first checkpoint not yet written.
    regret : float64
        Pseudo-regret at ``t + u``.
    """
    ci = fill_checkpoints(out, checkpoints, ci, t, t + u, regret, order, active, k, n, gaps)
    for j in range(k):
        pulls[active[j]] += stage_pulls(order, j, k, n, u)
    return ci, regret + stage_regret(order, active, k, n, gaps, u)


@jit
def commit(out, checkpoints, ci, t, horizon, regret, arm, gaps, pulls):
    """Pull ``arm`` from time ``t`` to the horizon: checkpoints and N_a(T).

    Parameters
    ----------
    out : float64 (C,)
        The run's regret row at the checkpoints, written in place.
    checkpoints : int64 (C,)
        Increasing times in [1, T].
    ci : int64
        The first checkpoint not yet written.
    t, horizon : int64
        The time of the commitment and T.
    regret : float64
        Pseudo-regret at ``t``.
    arm : int64
        The arm pulled until T.
    gaps : float64 (K,)
        Suboptimality gaps Δ_a of the run (reward units).
    pulls : int64 (K,)
        N_a, advanced in place to N_a(T).

    Returns
    -------
    int64
        The first checkpoint not yet written (C once every one is).
    """
    if t < horizon:
        pulls[arm] += horizon - t
        ci = fill_linear(out, checkpoints, ci, t, regret, gaps[arm])
    return ci


@jit
def start_run(active, pulls, elim_row):
    """Reset one run's state: every arm active (in index order), N_a = 0, never eliminated."""
    for a in range(active.shape[0]):
        active[a] = a
        pulls[a] = 0
        elim_row[a] = -1
