"""The batched decision-rule engine family: a plan for :mod:`bandsim.kernels.decisions`.

An algorithm of this family (:class:`bandsim.algorithms.families.BatchedDecision`:
``engine="decision"``) declares its numba rule ``decide`` and a mechanism; its ``plan``
returns :func:`decision_plan` with the batch size and the rule's parameters.
No engine of its own is needed (explore-then-commit, batched UCB, top-two).
"""
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError
from ..engines import hooks_for
from ..kernels.decisions import run_shard
from ..kernels.shard import DecisionTables
from ..registry import get_mechanism

#: Runs per shard (a run costs O(T / batch) decisions).
DECISION_SHARD_RUNS = 64


@dataclass
class DecisionPlan:
    """Plan for :func:`bandsim.kernels.decisions.run_shard`.

    Attributes
    ----------
    decide : numba dispatcher
        ``decide(rng, stat, cnt, t, c, pick, state) -> int64``
        (:mod:`bandsim.kernels.decisions`; the earlier ``decide(stat, cnt, t, c, pick)``
        is adapted).
    c : float64 (P,)
        The rule's parameters.
    batch : int64 (1, K + 1)
        Pulls per batch (the same for every k: the result's privacy reads
        the largest batch from this table).
    mech : int
        Mechanism code; ``fpar`` float64 (1, K + 1, F), ``ipar`` int64 (1, K + 1, I):
        the mechanism's parameters for one batch.
    mechanism : str
        Registered name of the mechanism.
    n_state : int
        Length of the rule's per-run ``state`` (float64, zeroed when a run starts).
    """

    decide: object
    c: np.ndarray
    batch: np.ndarray
    mech: int
    fpar: np.ndarray
    ipar: np.ndarray
    mechanism: str
    stages: list = field(default_factory=list)
    notes: dict = field(default_factory=dict)
    privacy: dict = None
    shard_runs: int = DECISION_SHARD_RUNS
    n_state: int = 0

    def run_shard(self, rng, shard, rec=None):
        """Simulate one shard of runs in place (``rec``: a recorder in the whole-run audit)."""
        tables = DecisionTables(np.int64(self.batch[0, -1]), np.int64(self.mech),
                                np.ascontiguousarray(self.fpar[0, -1]),
                                np.ascontiguousarray(self.ipar[0, -1]),
                                np.ascontiguousarray(self.c, dtype=np.float64),
                                np.int64(self.n_state))
        run_shard(rng, shard, tables, hooks_for(self.mechanism, self.decide), rec)


def decision_plan(params: dict, arms: int, horizon: int, *, decide: Any, batch: int,
                  c: Sequence[float] = (), mechanism: str = "none",
                  state: int | None = None) -> Any:
    """The plan of a batched decision rule.

    Parameters
    ----------
    params : dict
        The algorithm's resolved parameters (the mechanism reads those it takes).
    arms : int
        K.
    horizon : int
        T.
    decide : numba dispatcher
        The rule (its signature is checked when the algorithm is registered).
    batch : int
        Pulls per batch, ≥ 1 (users per release).
    c : sequence of float
        The rule's parameters, passed to ``decide`` as float64 (P,).
    mechanism : str
        A registered mechanism; each full batch is released through it.
    state : int, optional
        Length S of the rule's per-run ``state`` array (float64, zeroed when
        each run starts; default K).

    Returns
    -------
    DecisionPlan

    Raises
    ------
    ConfigError
        ``batch`` < 1 or > T, or ``state`` < 0.
    """
    batch = int(batch)
    if not 1 <= batch <= horizon:
        raise ConfigError("batch", batch, f"must be in [1, T = {horizon}]")
    n_state = arms if state is None else state
    if isinstance(n_state, bool) or not isinstance(n_state, (int, np.integer)) or n_state < 0:
        raise ConfigError("state", state, "must be an integer ≥ 0 (float64 slots per run)")
    spec = get_mechanism(mechanism)
    b = spec.derive(batch, params)
    fpar = np.zeros((1, arms + 1, max(4, len(b.fpar))))
    fpar[0, :, :len(b.fpar)] = b.fpar
    ipar = np.zeros((1, arms + 1, max(3, len(b.ipar))), np.int64)
    ipar[0, :, :len(b.ipar)] = b.ipar
    table = np.full((1, arms + 1), batch, np.int64)
    c = np.asarray(c, np.float64).reshape(-1) if len(c) else np.zeros(1)
    return DecisionPlan(decide, c, table, b.code, fpar, ipar, spec.name,
                        stages=[dict(stage=1, batch=batch, **b.info())], n_state=int(n_state))


__all__ = ["DECISION_SHARD_RUNS", "DecisionPlan", "decision_plan"]
