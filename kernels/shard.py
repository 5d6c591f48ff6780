"""What crosses the boundary into an engine: NamedTuples of arrays and scalars.

Every engine takes ``(rng, shard, tables)``: the shard's runs (instance and
output rows, run axis first) and the algorithm's tables, instead of a long
list of positional arguments.
"""
from typing import NamedTuple

import numpy as np


class Shard(NamedTuple):
    """One shard of independent runs.

    Attributes
    ----------
    gaps : float64 (R, K)
        Suboptimality gaps Δ_a of each run's instance.
    rcode : int64
        Reward model code (:mod:`bandsim.kernels.codes`).
    rpar : float64 (R, K, P)
        Reward parameters of each run's arms.
    horizon : int64
        T, pulls per run.
    checkpoints : int64 (C,)
        Increasing times in [1, T] at which pseudo-regret is recorded.
    regret : float64 (R, C)
        Output: pseudo-regret at the checkpoints.
    pulls : int64 (R, K)
        Output: N_a(T).
    elim : int64 (R, K)
        Output: the time arm a was eliminated, −1 if never.
    """

    gaps: np.ndarray
    rcode: np.int64
    rpar: np.ndarray
    horizon: np.int64
    checkpoints: np.ndarray
    regret: np.ndarray
    pulls: np.ndarray
    elim: np.ndarray


def make_shard(gaps: np.ndarray, rcode: int, rpar: np.ndarray, horizon: int,
               checkpoints: np.ndarray, out_regret: np.ndarray, out_pulls: np.ndarray,
               out_elim: np.ndarray) -> "Shard":
    """A :class:`Shard` with the scalar fields as int64 (one compiled type for all).

    Parameters
    ----------
    gaps : float64 (R, K)
        Suboptimality gaps of each run's instance.
    rcode : int
        Reward model code.
    rpar : float64 (R, K, P)
        Reward parameters.
    horizon : int
        T.
    checkpoints : int64 (C,)
        Increasing times in [1, T].
    out_regret : float64 (R, C)
        Output: pseudo-regret at the checkpoints.
    out_pulls : int64 (R, K)
        Output: N_a(T).
    out_elim : int64 (R, K)
        Output: elimination times (−1: never).

    Returns
    -------
    Shard
        The NamedTuple (arrays shared, not copied).
    """
    return Shard(gaps, np.int64(rcode), rpar, np.int64(horizon), checkpoints, out_regret,
                 out_pulls, out_elim)


class EliminationTables(NamedTuple):
    """Tables of the batched elimination engine, indexed by (stage s, active arms k).

    Attributes
    ----------
    batch : int64 (S, K + 1)
        Pulls per active arm.
    width : float64 (S, K + 1)
        Elimination threshold on differences of estimated means.
    mech : int64
        Mechanism code.
    fpar : float64 (S, K + 1, F); ipar : int64 (S, K + 1, I)
        Mechanism parameters.
    order : int64
        Pull order code inside a stage.
    cumulative : bool
        Pool estimates over all batches.
    """

    batch: np.ndarray
    width: np.ndarray
    mech: np.int64
    fpar: np.ndarray
    ipar: np.ndarray
    order: np.int64
    cumulative: bool


class DecisionTables(NamedTuple):
    """Tables of the batched decision-rule engine (:mod:`kernels.decisions`).

    Attributes
    ----------
    batch : int64
        Pulls per batch (every released batch has this many users).
    mech : int64
        Mechanism code.
    fpar : float64 (F,); ipar : int64 (I,)
        The mechanism's parameters for a batch of ``batch`` users.
    c : float64 (P,)
        The decision rule's parameters.
    n_state : int64
        Length S of the rule's per-run ``state`` (float64, zeroed when a run starts).
    """

    batch: np.int64
    mech: np.int64
    fpar: np.ndarray
    ipar: np.ndarray
    c: np.ndarray
    n_state: np.int64
