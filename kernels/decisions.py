"""The batched decision-rule engine: a plug-in decision hook called between batches.

Explore-then-commit, batched UCB, top-two rules and the like differ only in
which arms the next batch pulls. This engine runs them all; the rule is a
first-class function ``decide`` of fixed signature (:mod:`kernels.hooks`), so
the engine is compiled and cached once for every rule.

A run: with the statistics so far, the engine calls

    r = decide(rng, stat, cnt, t, c, pick, state)

``stat`` : float64 (K,)
    Σ of the analyzer's released estimates of each arm's batch sums (reward
    units; one release per full batch, through the algorithm's mechanism).
``cnt`` : int64 (K,)
    Pulls of each arm whose batches were released.
``t`` : int64
    Pulls so far (time of the decision).
``c`` : float64 (P,)
    The rule's parameters (read only).
``pick`` : int64 (K,)
    Output: the arms of the next round (zeroed when a run starts).
``rng`` : numpy.random.Generator
    The engine's generator (the shard's): a randomized rule draws from it, so
    results stay reproducible from the seed (a rule that calls ``np.random``
    does not). A rule that draws nothing leaves the engine's stream unchanged.
``state`` : float64 (S,)
    The run's own scratch (S from :func:`bandsim.algorithms.decision.decision_plan`'s
    ``state``), zeroed when a run starts, so nothing of one run leaks into the next.

A rule of the earlier form ``decide(stat, cnt, t, c, pick)`` (no generator,
no state) is adapted when it is bound (:func:`kernels.hooks.as_hook`).

``r ≥ 1``: arms ``pick[0] … pick[r − 1]`` (r ≤ K, each in [0, K)) are
pulled, one after the other, for one batch of ``batch`` pulls each; each
batch's reward sum goes through the mechanism (:func:`kernels.protocols.estimate`)
and is added to ``stat``. ``r = 0``: commit — ``pick[0]`` is pulled until the
horizon, no more decisions. Any other value, or an arm outside [0, K),
raises ``ValueError``. A batch cut by the horizon is pulled but not released.

Each user (pull) is in exactly one batch, so an ε-DP release per batch gives
ε-DP for the whole run (parallel composition; decisions are post-processing).

References
----------
Garivier, Kaufmann & Lattimore, "On Explore-Then-Commit strategies" (NeurIPS
2016); Perchet, Rigollet, Chassang & Snowberg, "Batched bandit problems"
(Annals of Statistics 2016).
"""
import numpy as np

from ._jit import jit
from .protocols import estimate
from .regret import BLOCKS, advance, commit, start_run


@jit
def run_shard(rng, shard, tables, hooks, rec):
    """Simulate a shard of runs of a batched decision rule (``hooks.decide``).

    Parameters
    ----------
    rng : numpy.random.Generator
    shard : kernels.shard.Shard
        Runs and output rows (``elim`` stays −1).
    tables : kernels.shard.DecisionTables
        ``batch`` (pulls per batch), ``mech``, ``fpar``/``ipar`` (the
        mechanism's parameters for a batch of ``batch`` users), ``c`` and
        ``n_state`` (length of the rule's per-run state).
    hooks : kernels.hooks.Hooks
        ``decide`` and the mechanism's plug-in kernels.
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; a recorder in the whole-run privacy audit.

    Raises
    ------
    ValueError
        If ``decide`` returns r < 0 or r > K, or an arm outside [0, K).
    """
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    B, mech, fpar, ipar, c = tables.batch, tables.mech, tables.fpar, tables.ipar, tables.c
    n_runs, K = gaps.shape
    active = np.empty(K, np.int64)
    one = np.zeros(1, np.int64)
    stat = np.zeros(K)
    cnt = np.zeros(K, np.int64)
    pick = np.zeros(K, np.int64)
    state = np.zeros(max(tables.n_state, 1))
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        pulls = out_pulls[run]
        start_run(active, pulls, out_elim[run])
        stat[:] = 0.0
        cnt[:] = 0
        pick[:] = 0
        state[:] = 0.0
        t = np.int64(0)
        ci = 0
        regret = 0.0
        while t < horizon:
            r = hooks.decide(rng, stat, cnt, t, c, pick, state)
            if r < 0 or r > K:
                raise ValueError("decide: returned a number of arms outside [0, K]")
            for j in range(max(r, 1)):
                if pick[j] < 0 or pick[j] >= K:
                    raise ValueError("decide: picked an arm outside [0, K)")
            if r == 0:
                ci = commit(row, checkpoints, ci, t, horizon, regret, pick[0], g, pulls)
                break
            for j in range(r):
                if t >= horizon:
                    break
                a = pick[j]
                L = min(B, horizon - t)
                one[0] = a
                ci, regret = advance(row, checkpoints, ci, t, L, regret, BLOCKS, one, 1, L, g,
                                     pulls)
                t += L
                if L == B:
                    stat[a] += estimate(rng, mech, rcode, rpar[run, a], B, fpar, ipar, hooks, rec,
                                        run, t - B, a)
                    cnt[a] += B

