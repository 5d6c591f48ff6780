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
=========================  ============  ======================================

Batched decision rules (a numba decision hook between batches) get their
own base next to these, declaring the hook as :class:`EpisodicIndex` does:
a field, and ``hooks = {field: (numba argument types, signature text)}``
against which a plug-in's function is compiled when it registers.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import ConfigError
from ..registry import Algorithm
from .base import EpisodicPlan, laplace_claim


def _index_types():
    from numba.core import types

    return (types.float64, types.int64, types.int64, types.float64[::1])


#: The index hook's signature (:func:`bandsim.kernels.episodic.run_shard` calls it):
#: argument types (built when a plug-in registers: importing bandsim loads no numba) and text.
INDEX_SIGNATURE = (_index_types, "(stat: float64, n: int64, t: int64, c: float64[::1]) -> float64")


@dataclass(frozen=True, kw_only=True)
class BatchedElimination(Algorithm):
    """Batched successive elimination (:func:`bandsim.kernels.elimination.run_shard`)."""

    engine: str = "elimination"
    cost: str = "episodes"


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
    constants : callable (params: dict) -> sequence of float, optional
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
        tail = self.constants(params) if self.constants is not None else (eps,)
        privacy = laplace_claim(eps, self.source, "each episode's reward sum (episodes are "
                                "disjoint)", 1.0 / eps)
        return EpisodicPlan(index=self.index, c=np.array([0.0, *tail], dtype=np.float64),
                            ratio=float(self.ratio), rule=EPISODES[self.episodes],
                            estimator=ESTIMATORS[self.estimator], noise_scale=1.0 / eps,
                            privacy=privacy,
                            stages=[dict(index=getattr(self.index, "__name__", "index"),
                                         episodes=self.episodes, estimator=self.estimator,
                                         noise="Lap(1/ε) on each episode sum")])


__all__ = ["BatchedElimination", "EPISODES", "ESTIMATORS", "EpisodicIndex", "INDEX_SIGNATURE",
           "PerRoundThompson", "PerStep", "SVTEngine"]
