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
:class:`SVTEngine`           svt           O(epochs) per run
:class:`PerRoundThompson`    per-round     O(T) per run
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
from typing import Callable

import numpy as np

from ..errors import ConfigError
from ..kernels.hooks import LEGACY_DECIDE_ARGS, n_args
from ..privacy.participation import laplace_participation, per_batch
from ..registry import Algorithm
from .base import EpisodicPlan, laplace_claim


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
    decide: Callable = None

    hooks = {"decide": DECIDE_SIGNATURE}


@dataclass(frozen=True, kw_only=True)
class BatchedElimination(Algorithm):
    """Batched successive elimination (:func:`bandsim.kernels.elimination.run_shard`)."""

    engine: str = "elimination"
    cost: str = "episodes"
    #: A user's reward enters one batch of the mechanism (parallel composition).
    participation: Callable = per_batch()


@dataclass(frozen=True, kw_only=True)
class PerStep(Algorithm):
    """A decision every pull (:mod:`bandsim.kernels.sequential`)."""

    engine: str = "per-step"
    cost: str = "horizon"


@dataclass(frozen=True, kw_only=True)
class SVTEngine(Algorithm):
    """Sparse vector technique inside epochs (:mod:`bandsim.kernels.svt`)."""

    engine: str = "svt"
    mechanism: str = "svt"
    trust: str = "central ε-DP"
    cost: str = "episodes"


@dataclass(frozen=True, kw_only=True)
class PerRoundThompson(Algorithm):
    """Thompson sampling with a decision every round (:mod:`bandsim.kernels.thompson`)."""

    engine: str = "per-round"
    mechanism: str = "laplace"
    trust: str = "central ε-DP"
    cost: str = "horizon"


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
           "EpisodicIndex", "INDEX_SIGNATURE", "PerRoundThompson", "PerStep", "SVTEngine"]
