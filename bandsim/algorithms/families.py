"""Engine families: the bases an algorithm declaration (built-in or plug-in) starts from.

Each base fixes its engine, its cost model and sensible defaults, so a
declaration gives what is its own (keywords only):

=========================  ============  ======================================
base                       engine        cost model (``Algorithm.cost``)
=========================  ============  ======================================
:class:`BatchedElimination`  elimination   O(batches) per run
:class:`EpisodicIndex`       episodic      O(episodes) per run; the numba
                                           ``index(stat, n, t, c)`` is the hook
:class:`PerStep`             per-step      O(T) per run
:class:`PerStepIndex`        per-step      O(K T) per run; the numba
                                           ``index(stat, n, t, c)`` over the
                                           tree's private sums is the hook
:class:`SVTEngine`           svt           O(epochs) per run
:class:`PerRoundThompson`    per-round     O(K T) per run
:class:`ThompsonSampler`     per-round     O(K T) per run; the numba
                                           ``sample(rng, mean, n, t, c)``
                                           is the hook
:class:`BatchedDecision`     decision      O(T / batch) per run; the numba
                                           ``decide(rng, stat, cnt, t, c,
                                           pick, state)``
                                           is the hook
=========================  ============  ======================================

What one participation releases (``Algorithm.participation``, read by the
returning-user accountant and every result's ``per_user`` text) defaults to
one batch of the mechanism in :class:`BatchedElimination` and to one
Lap(1/ε) release of the arm's episode sum in :class:`EpisodicIndex`; the
other families have no default (an algorithm there declares its own).

A family's numba hook is a field, listed in
``hooks = {field: (numba argument types, signature text)}``, against which a
plug-in's function is compiled when it registers (:mod:`bandsim.validation`).
"""
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..costs import RunCost
from ..errors import ConfigError
from ..kernels.hooks import LEGACY_DECIDE_ARGS, n_args
from ..privacy.participation import Release, laplace_participation, per_batch
from ..registry import Algorithm
from .base import (EpisodicPlan, SamplerPlan, UcbPlan, laplace_claim, per_round_shard_runs,
                   per_step_shard_runs)


#: Declared cost of a run of each engine family (:mod:`bandsim.costs`; CPU time measured by
#: benchmarks/run_cost.py, the largest figure over its built-ins at K = 5 and 80, T = 10⁶
#: and 10⁸; docs/suite.md). An algorithm that differs declares its own.
EPISODES_COST = RunCost(360.0, "K·log₂T", "vb-sdp-ae: 350 at K = 5, T = 10⁶")
INDEX_COST = RunCost(1_220.0, "K·log₂T", "dp-imed: 1,219 at K = 80, T = 10⁶")
STEP_COST = RunCost(7.7, "T·K", "ucb1: 7.64 at K = 80, T = 10⁶")
ROUND_COST = RunCost(55.0, "T·K", "dp-ts: 55.0 at K = 5, T = 10⁷")

def _index_types():
    from numba.core import types

    return (types.float64, types.int64, types.int64, types.float64[::1])


#: The index hook's signature (:func:`bandsim.kernels.episodic.run_shard` calls it):
#: argument types (built when a plug-in registers: importing bandsim loads no numba) and text.
INDEX_SIGNATURE = (_index_types, "(stat: float64, n: int64, t: int64, c: float64[::1]) -> float64")


def _decide_types(fn=None):
    """Argument types of ``decide``; of the earlier five-argument form when ``fn`` has it."""
    from numba.core import types

    f1, i1 = types.float64[::1], types.int64[::1]
    if fn is not None and n_args(fn) == LEGACY_DECIDE_ARGS:
        return (f1, i1, types.int64, f1, i1)
    gen = types.NumPyRandomGeneratorType("NumPyRandomGeneratorType")
    return (gen, f1, i1, types.int64, f1, i1, f1)


#: The decision hook's signature (:func:`bandsim.kernels.decisions.run_shard` calls it).
#: The earlier ``(stat, cnt, t, c, pick)`` form is still accepted (no generator, no state).
DECIDE_SIGNATURE = (_decide_types, "(rng: numpy.random.Generator, stat: float64[::1], "
                                   "cnt: int64[::1], t: int64, c: float64[::1], "
                                   "pick: int64[::1], state: float64[::1]) -> int64")


def _sample_types():
    from numba.core import types

    gen = types.NumPyRandomGeneratorType("NumPyRandomGeneratorType")
    return (gen, types.float64, types.float64, types.int64, types.float64[::1])


#: The posterior sampler's signature (:func:`bandsim.kernels.thompson.run_lazy_dp_ts_shard`).
SAMPLE_SIGNATURE = (_sample_types, "(rng: numpy.random.Generator, mean: float64, n: float64, "
                                   "t: int64, c: float64[::1]) -> float64")


@dataclass(frozen=True, kw_only=True)
class BatchedDecision(Algorithm):
    """A batched decision rule (explore-then-commit, batched UCB, top-two rules).

    The engine (:func:`bandsim.kernels.decisions.run_shard`) releases each
    full batch through the algorithm's mechanism and calls ``decide`` between
    batches; ``plan`` returns :func:`bandsim.algorithms.decision.decision_plan`.

    Attributes
    ----------
    decide : numba function of :data:`DECIDE_SIGNATURE` -> int64
        ``decide(rng, stat, cnt, t, c, pick, state)``: the rule
        (:mod:`bandsim.kernels.decisions`; ``rng`` the engine's Generator, ``state``
        the run's float64 scratch, zeroed per run), compiled against this
        signature when a plug-in registers. The earlier five-argument
        ``decide(stat, cnt, t, c, pick)`` still works (no generator, no state).
    """

    engine: str = "decision"
    cost: str = "episodes"
    run_cost: Any = EPISODES_COST
    decide: Callable = None

    hooks = {"decide": DECIDE_SIGNATURE}


@dataclass(frozen=True, kw_only=True)
class BatchedElimination(Algorithm):
    """Batched successive elimination (:func:`bandsim.kernels.elimination.run_shard`)."""

    engine: str = "elimination"
    cost: str = "episodes"
    run_cost: Any = EPISODES_COST
    #: A user's reward enters one batch of the mechanism (parallel composition).
    participation: Callable = per_batch()


@dataclass(frozen=True, kw_only=True)
class PerStep(Algorithm):
    """A decision every pull (:mod:`bandsim.kernels.sequential`)."""

    engine: str = "per-step"
    cost: str = "horizon"
    run_cost: Any = STEP_COST


def _default_plan(decl):
    """Give a hook family's declaration its default plan, which reads ε (so the
    declaration must take it: one ConfigError line at registration, not a KeyError later)."""
    if decl.plan is not None:
        return
    if not any(p.name == "epsilon" for p in decl.params):
        raise ConfigError(f"algorithm {decl.name!r} params", [p.name for p in decl.params],
                          "the default plan needs epsilon: add bandsim.plugin.EPSILON "
                          "(or give a plan)")
    object.__setattr__(decl, "plan", decl._plan)


def tree_levels_int(horizon: int) -> int:
    """⌈log₂ T⌉ + 1 for T ≥ 1 in integer arithmetic: the levels of a tree over T leaves
    (Sajed (2019), Algorithm 5 line 3)."""
    return (int(horizon) - 1).bit_length() + 1


def tree_participation(params: dict, horizon: int) -> list:
    """A reward lies in at most ⌈log₂T⌉ + 1 p-sums of its arm's tree, each released with
    Lap((⌈log₂T⌉ + 1)/ε) (Sajed (2019), Algorithm 5 line 3, Theorem 3.3.1; Mishra &
    Thakurta (2015))."""
    m = tree_levels_int(horizon)
    return [Release("laplace", "the p-sum nodes of its arm's tree (at most ⌈log₂T⌉ + 1)",
                    m / params["epsilon"], count=m)]


@dataclass(frozen=True, kw_only=True)
class PerStepIndex(PerStep):
    """A per-step index policy over the tree-based binary mechanism's private sums.

    Every arm's rewards go through its own tree (Lap(m/ε) on every node, m =
    ⌈log₂ T⌉ + 1 levels: ε-DP, Sajed (2019) Algorithm 5, Theorem 3.3.1);
    after one pull of each arm, pull t goes to the arm with the largest
    ``index`` (:func:`bandsim.kernels.sequential.run_index_shard`; decisions
    are post-processing of the releases).

    Attributes
    ----------
    index : numba function (stat: float64, n: int64, t: int64, c: float64[::1]) -> float64
        The arm's index from its released prefix sum ``stat`` (reward-sum
        units) over its ``n`` pulls, at the pull ``t`` being decided.
        Compiled against this signature when a plug-in registers.
    constants : callable (params: dict, arms: int, horizon: int) -> sequence of float, optional
        ``c`` (default: [m/ε, m], the node scale and the tree levels).
    plan : callable, optional
        Default: the tree at Lap(m/ε) per node and ``index`` over ``constants``.
    """

    mechanism: str = "tree"
    trust: str = "central ε-DP"
    cost: str = "horizon"
    index: Callable = None
    constants: Callable = None
    plan: Callable = None
    participation: Callable = tree_participation

    hooks = {"index": INDEX_SIGNATURE}

    def __post_init__(self):
        _default_plan(self)

    def _plan(self, params, arms, horizon):
        eps = params["epsilon"]
        m = tree_levels_int(horizon)
        c = (self.constants(params, arms, horizon) if self.constants is not None
             else (m / eps, float(m)))
        return UcbPlan(index=self.index, c=np.array(c, dtype=np.float64), scale=m / eps,
                       shard_runs=per_step_shard_runs(horizon),
                       stages=[dict(index=getattr(self.index, "__name__", "index"), levels=m,
                                    node_scale=m / eps)])


@dataclass(frozen=True, kw_only=True)
class SVTEngine(Algorithm):
    """Sparse vector technique inside epochs (:mod:`bandsim.kernels.svt`)."""

    engine: str = "svt"
    mechanism: str = "svt"
    trust: str = "central ε-DP"
    cost: str = "episodes"
    run_cost: Any = EPISODES_COST


@dataclass(frozen=True, kw_only=True)
class PerRoundThompson(Algorithm):
    """Thompson sampling with a decision every round (:mod:`bandsim.kernels.thompson`)."""

    engine: str = "per-round"
    mechanism: str = "laplace"
    trust: str = "central ε-DP"
    cost: str = "horizon"
    run_cost: Any = ROUND_COST


@dataclass(frozen=True, kw_only=True)
class ThompsonSampler(PerRoundThompson):
    """Thompson sampling on Laplace means of doubling chunks, with a posterior sampler.

    The engine of Lazy-DP-TS (:func:`bandsim.kernels.thompson.run_lazy_dp_ts_shard`):
    an arm's private mean m̃ is refreshed when its chunk of 2^(r+1) fresh
    rewards is complete, from that chunk alone (Lap(1/ε) on the chunk sum;
    chunks are disjoint, so ε-DP); every round the arm with the largest
    ``sample`` is pulled.

    Attributes
    ----------
    sample : numba function (rng, mean: float64, n: float64, t: int64, c: float64[::1]) -> float64
        The arm's posterior sample from its private mean ``mean`` over ``n``
        rewards at round ``t``, drawn from ``rng`` (the engine's Generator);
        ``c[0]`` is the engine's slot (ln t), ``c[1:]`` the constants.
        Compiled against this signature when a plug-in registers.
    constants : callable (params: dict, arms: int, horizon: int) -> sequence of float, optional
        ``c[1:]`` (default: [ε]).
    plan : callable, optional
        Default: Lap(1/ε) on each chunk sum, ``sample`` over ``constants``.

    References
    ----------
    Hu & Hegde, UAI 2022, Algorithm 2 (Lazy-DP-TS) and Theorem 3.
    """

    sample: Callable = None
    constants: Callable = None
    plan: Callable = None
    participation: Callable = laplace_participation("its arm's chunk sum (or the arm's first "
                                                    "pull, released alone)")

    hooks = {"sample": SAMPLE_SIGNATURE}

    def __post_init__(self):
        _default_plan(self)

    def _plan(self, params, arms, horizon):
        eps = params["epsilon"]
        tail = self.constants(params, arms, horizon) if self.constants is not None else (eps,)
        privacy = laplace_claim(eps, self.source, "each chunk's reward sum (chunks are "
                                "disjoint)", 1.0 / eps)
        return SamplerPlan(sample=self.sample, c=np.array([0.0, *tail], dtype=np.float64),
                           noise_scale=1.0 / eps, shard_runs=per_round_shard_runs(horizon),
                           privacy=privacy,
                           stages=[dict(sample=getattr(self.sample, "__name__", "sample"),
                                        noise="Lap(1/ε) on each chunk sum")])


#: Episode rules and estimators of the episodic engine (kernels.episodic codes).
EPISODES = {"geometric": 0, "grid": 1}
ESTIMATORS = {"last-episode": 0, "cumulative": 1}


@dataclass(frozen=True, kw_only=True)
class EpisodicIndex(Algorithm):
    """An episodic index policy: the arm with the largest ``index`` plays a whole episode.

    Attributes
    ----------
    index : numba function (stat: float64, n: int64, t: int64, c: float64[::1]) -> float64
        The arm's index from its private statistic ``stat`` over ``n``
        rewards at time ``t``; ``c[0]`` is the engine's slot for the largest
        statistic, ``c[1:]`` the constants of ``constants``. Compiled
        against this signature when a plug-in registers.
    constants : callable (params: dict, arms: int, horizon: int) -> sequence of float, optional
        ``c[1:]`` (default: ``[ε]``).
    ratio : float
        Episode ratio α (2: doubling).
    episodes : str
        ``geometric`` (an episode ends when the count reaches ⌈α N⌉) or
        ``grid`` (the next point ⌈α^k⌉).
    estimator : str
        ``last-episode`` (the private mean of the last episode) or
        ``cumulative`` (the running sum of every episode's private sum).
    plan : callable, optional
        Default: the episodic engine with Lap(1/ε) on each episode's reward sum.
    participation : callable, optional
        Default: that one Lap(1/ε) release of the arm's episode sum (episodes
        are disjoint); a ``plan`` with other noise declares its own.
    """

    engine: str = "episodic"
    mechanism: str = "laplace"
    trust: str = "central ε-DP"
    cost: str = "episodes"
    run_cost: Any = INDEX_COST
    index: Callable = None
    constants: Callable = None
    ratio: float = 2.0
    episodes: str = "geometric"
    estimator: str = "last-episode"
    plan: Callable = None
    participation: Callable = laplace_participation("its arm's episode sum")

    hooks = {"index": INDEX_SIGNATURE}

    def __post_init__(self):
        for field, value, allowed in (("episodes", self.episodes, EPISODES),
                                      ("estimator", self.estimator, ESTIMATORS)):
            if value not in allowed:
                raise ConfigError(f"algorithm {self.name!r} {field}", value,
                                  f"must be one of {', '.join(allowed)}")
        if self.plan is None:
            object.__setattr__(self, "plan", self._plan)

    def _plan(self, params, arms, horizon):
        eps = params["epsilon"]
        tail = self.constants(params, arms, horizon) if self.constants is not None else (eps,)
        privacy = laplace_claim(eps, self.source, "each episode's reward sum (episodes are "
                                "disjoint)", 1.0 / eps)
        return EpisodicPlan(index=self.index, c=np.array([0.0, *tail], dtype=np.float64),
                            ratio=float(self.ratio), rule=EPISODES[self.episodes],
                            estimator=ESTIMATORS[self.estimator], noise_scale=1.0 / eps,
                            privacy=privacy,
                            stages=[dict(index=getattr(self.index, "__name__", "index"),
                                         episodes=self.episodes, estimator=self.estimator,
                                         noise="Lap(1/ε) on each episode sum")])


__all__ = ["BatchedDecision", "BatchedElimination", "DECIDE_SIGNATURE", "EPISODES", "ESTIMATORS",
           "EpisodicIndex", "INDEX_SIGNATURE", "PerRoundThompson", "PerStep", "PerStepIndex",
           "SAMPLE_SIGNATURE", "SVTEngine", "ThompsonSampler", "tree_participation"]
