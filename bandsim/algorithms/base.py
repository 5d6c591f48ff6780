"""What every elimination algorithm shares: the engine plan and its tables.

A plan turns a resolved configuration into the tables one kernel engine
needs (batch sizes, widths, mechanism parameters per stage and number of
active arms). All constants are derived in plain Python, with the paper's
equation cited where they are defined; the mechanism parameters of every
batch come from the mechanism's own declaration (:mod:`bandsim.mechanisms`),
the same derivation the privacy audit certifies.
"""
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .. import resources
from ..engines import elimination_engine
from ..errors import ConfigError
from ..kernels import episodic as episodic_kernel
from ..kernels import hooks, sequential, thompson
from ..kernels.shard import EliminationTables


@dataclass(kw_only=True)
class Plan:
    """Tables for the elimination engine (:func:`kernels.elimination.run_shard`).

    Any object with a ``run_shard(rng, shard)`` method (``shard`` a
    :class:`bandsim.kernels.shard.Shard`, whose output rows it fills) and a
    ``stages`` list can serve as a plan (per-step engines define their own).

    Attributes
    ----------
    batch : int64 (S, K + 1)
        Pulls per active arm in stage s with k active arms.
    width : float64 (S, K + 1)
        Elimination threshold on differences of estimated means.
    mech : int
        Mechanism code (:mod:`bandsim.kernels.codes`).
    fpar : float64 (S, K + 1, F); ipar : int64 (S, K + 1, I)
        Mechanism parameters.
    order : int
        Pull order code (:mod:`bandsim.kernels.codes`).
    cumulative : bool
        Pool estimates over all batches.
    stages : list of dict
        Human-readable per-stage parameters (at k = K) for reports.
    notes : dict
        Extra entries for the result's configuration (e.g. the mechanism's
        exact privacy), merged into ``config`` by the runner.
    privacy : dict, optional
        The privacy guarantee in the paper's terms; the runner copies it into
        ``config["privacy"]``.
    mechanism : str
        Registered name of the mechanism (selects the compiled engine: a
        plug-in mechanism's engine is rebound to its own kernels).
    """

    batch: np.ndarray
    width: np.ndarray
    mech: int
    fpar: np.ndarray
    ipar: np.ndarray
    order: int
    cumulative: bool = False
    stages: list = field(default_factory=list)
    notes: dict = field(default_factory=dict)
    privacy: dict = None
    mechanism: str = "none"

    def run_shard(self, rng: np.random.Generator, shard: Any, rec: Any = None) -> None:
        """Simulate one shard of runs (:class:`bandsim.kernels.shard.Shard`) in place
        (``rec``: a :class:`bandsim.kernels.record.Recorder` in the whole-run privacy audit)."""
        tables = EliminationTables(self.batch, self.width, np.int64(self.mech), self.fpar,
                                   self.ipar, np.int64(self.order), bool(self.cumulative))
        elimination_engine(self.mechanism)(rng, shard, tables, rec)


#: Largest k·n (pulls of a stage) the engines' int64 arithmetic handles with room for
#: t + k·n (t < T ≤ 10¹⁰).
MAX_STAGE_PULLS = 2**62
#: Bytes per table entry (stage, k): the arrays and the Python row behind them.
TABLE_ENTRY_BYTES = 1024


def build_tables(arms: int, horizon: int, stage: Callable, n_fpar: int = 1, n_ipar: int = 1,
                 max_stages: int = 10_000, by_k: bool = True, blame: Any = None) -> tuple:
    """Evaluate ``stage(s, k)`` for every stage a run can reach and every k.

    Parameters
    ----------
    arms : int
        K.
    horizon : int
        T. Tables cover stages until even the cheapest path (the smallest
        k·n over k ≥ 2 in every stage) has spent T pulls.
    stage : callable (s, k) -> (n, width, fpar, ipar, info)
        Per-stage parameters for stage s (0-based) with k ≥ 2 active arms:
        pulls per arm, elimination width, mechanism parameter sequences and a
        dict for reports.
    max_stages : int
        Largest table; more stages raise ConfigError (horizon).
    blame : (str, value), optional
        The parameter named when a stage is too long for int64 arithmetic
        (k·n > 2^62) or the tables exceed the memory budget
        (:mod:`bandsim.resources`); default the horizon.
    by_k : bool
        False if ``stage(s, k)`` does not depend on k: it is then called
        once per stage (with k = arms) and its row copied to every k, which
        keeps long schedules (10⁵ stages) cheap to tabulate.

    Returns
    -------
    batch, width, fpar, ipar, stages
        As in :class:`Plan`.
    """
    field, value = blame or ("horizon", horizon)
    rows = []
    spent = 0
    s = 0
    per_stage = (arms if by_k else 1) * TABLE_ENTRY_BYTES + (arms + 1) * 8 * (2 + n_fpar + n_ipar)
    wide = per_stage * 64 > resources.budget()  # a few stages fill the budget: check each
    if wide:
        field, value = "arms", arms
    while spent < horizon:
        if wide or s % 256 == 0:  # before the stage's tables are built
            resources.check((s + 1) * per_stage, field, value,
                            f"the plan's tables ({s + 1:,}+ stages × {arms:,} arms)",
                            "lower the horizon or the number of arms")
        if by_k:
            row = [stage(s, k) for k in range(2, arms + 1)]
            spent += min(k * r[0] for k, r in zip(range(2, arms + 1), row))
        else:
            row = [stage(s, arms)]
            spent += 2 * row[0][0]
        longest = max(k * r[0] for k, r in zip(range(2, arms + 1) if by_k else [arms], row))
        if longest > MAX_STAGE_PULLS:
            raise ConfigError(field, value, f"stage {s + 1} would give the active arms "
                                            f"{longest:.3g} pulls in all, beyond the int64-safe "
                                            "2^62 of the engine; change it so stages stay shorter")
        rows.append(row)
        s += 1
        if s > max_stages:
            raise ConfigError("horizon", horizon, "too long for the batch schedule")
    n_stages = len(rows)
    batch = np.ones((n_stages, arms + 1), np.int64)
    width = np.zeros((n_stages, arms + 1))
    fpar = np.zeros((n_stages, arms + 1, n_fpar))
    ipar = np.zeros((n_stages, arms + 1, n_ipar), np.int64)
    for s, row in enumerate(rows):
        ks = range(2, arms + 1) if by_k else [slice(2, arms + 1)]
        for k, (n, w, fp, ip, _) in zip(ks, row):
            batch[s, k] = n
            width[s, k] = w
            fpar[s, k, :len(fp)] = fp
            ipar[s, k, :len(ip)] = ip
    stages = [dict(stage=s + 1, **row[-1][4]) for s, row in enumerate(rows)]
    return batch, width, fpar, ipar, stages


def mechanism_tables(mech: Any, params: dict, arms: int, horizon: int, stage_fn: Callable,
                     n_fpar: int = 4, n_ipar: int = 3, **kw: Any) -> tuple:
    """:func:`build_tables` for a schedule whose batches go through a registered mechanism.

    Parameters
    ----------
    mech : bandsim.Mechanism
        The mechanism's declaration; its derivation gives each batch's
        kernel parameters (memoized per batch size n).
    params : dict
        The algorithm's resolved parameters (the mechanism reads those it takes).
    stage_fn : callable (s, k, batch_of) -> (n, width, info)
        ``batch_of(n)`` returns the mechanism's batch for n users.

    Returns
    -------
    batch, width, fpar, ipar, stages, batches
        As :func:`build_tables`, plus the dict n → mechanism batch.
    """
    batches = {}

    def batch_of(n):
        if n not in batches:
            batches[n] = mech.derive(n, params)
        return batches[n]

    def stage(s, k):
        n, w, info = stage_fn(s, k, batch_of)
        b = batch_of(n)
        return n, w, b.fpar, b.ipar, info

    return (*build_tables(arms, horizon, stage, n_fpar=n_fpar, n_ipar=n_ipar, **kw), batches)


#: Runs per shard of the episodic engine (O(K log T) work per run).
EPISODIC_SHARD_RUNS = 64


def laplace_claim(epsilon: float, theorem: str, on: str, scale: float, **extra: Any) -> dict:
    """The privacy claim of a Laplace mechanism on disjoint reward sums (dict).

    The sum of n rewards in [0, 1] changes by at most 1 when one reward
    changes (sensitivity 1), so Lap(1/ε) on it is ε-DP; each reward enters
    one released sum, so the run is ε-DP by parallel composition, and every
    decision is post-processing of the releases.
    """
    return dict(guarantee="ε-DP, central (global)", epsilon=epsilon, theorem=theorem,
                mechanism=f"Laplace on {on}", sensitivity=1.0, noise_scale=scale, **extra)


@dataclass(kw_only=True)
class EpisodicPlan:
    """Plan for :func:`kernels.episodic.run_shard`.

    Attributes
    ----------
    index : numba dispatcher
        ``index(stat, n, t, c)`` from :mod:`kernels.indices`.
    c : float64 (P,)
        Its parameters; ``c[0]`` is the engine's slot for max_b stat_b.
    ratio : float
        α of the episode lengths (2 = doubling).
    rule : int
        ``kernels.episodic.GEOMETRIC`` or ``GRID``.
    estimator : int
        ``kernels.episodic.LAST_EPISODE`` or ``CUMULATIVE``.
    noise_scale : float
        Laplace scale on each episode's reward sum (1/ε).
    tie_random : bool
        Index ties broken uniformly at random.
    """

    index: object
    c: np.ndarray
    ratio: float
    rule: int
    estimator: int
    noise_scale: float
    tie_random: bool = True
    shard_runs: int = EPISODIC_SHARD_RUNS
    stages: list = field(default_factory=list)
    privacy: dict = None
    notes: dict = field(default_factory=dict)

    def __post_init__(self):
        episodic = episodic_kernel
        if self.rule not in (episodic.GEOMETRIC, episodic.GRID):
            raise ConfigError("rule", self.rule, "must be kernels.episodic.GEOMETRIC "
                                                 f"({episodic.GEOMETRIC}) or GRID ({episodic.GRID})")
        if self.estimator not in (episodic.LAST_EPISODE, episodic.CUMULATIVE):
            raise ConfigError("estimator", self.estimator,
                              f"must be kernels.episodic.LAST_EPISODE ({episodic.LAST_EPISODE}) "
                              f"or CUMULATIVE ({episodic.CUMULATIVE})")
        if not self.noise_scale > 0:
            raise ConfigError("noise_scale", self.noise_scale, "must be > 0 (1/ε)")

    def run_shard(self, rng: np.random.Generator, shard: Any, rec: Any = None) -> None:
        """Simulate one shard of runs in place (``rec``: a recorder in the whole-run audit)."""
        episodic_kernel.run_shard(rng, shard, self.index, self.c, self.ratio, self.rule,
                                  self.estimator, self.noise_scale, self.tie_random, rec)


#: Work (pulls) per shard aimed at by per-step plans: shards of
#: max(1, min(64, 2**22 // T)) runs — one run per shard at T ≥ 4.2e6.
PER_STEP_SHARD_PULLS = 2**22
#: Work (pulls) per shard aimed at by the per-round Thompson-sampling plans.
PER_ROUND_SHARD_PULLS = 2**22


def per_step_shard_runs(horizon: int) -> int:
    """Runs per shard for a per-step engine at horizon T (int, 1..64)."""
    return max(1, min(64, PER_STEP_SHARD_PULLS // int(horizon)))


def per_round_shard_runs(horizon: int) -> int:
    """Runs per shard of a per-round engine at horizon T (int, 1..64)."""
    return max(1, min(64, PER_ROUND_SHARD_PULLS // int(horizon)))


@dataclass(kw_only=True)
class UcbPlan:
    """Plan of the per-step index engine (UCB1, DP-UCB, a plug-in's ``index``).

    Attributes
    ----------
    index : numba dispatcher
        ``index(stat, n, t, c) -> float64`` over the arms' released prefix sums
        (:func:`kernels.sequential.run_index_shard`). The built-in
        :func:`kernels.sequential.ucb_index` runs on its exact specialisation
        :func:`kernels.sequential.run_ucb_shard` (leader windows, L brackets:
        the same decisions and draws, several times faster).
    c : float64 (P,)
        The index's constants (``c[0]`` = Γ for ``ucb_index``).
    scale : float
        Laplace scale of every tree node ((⌈log₂ T⌉ + 1)/ε); 0: exact sums.
    """

    index: Any
    c: np.ndarray
    scale: float
    shard_runs: int
    stages: list = field(default_factory=list)
    privacy: dict = None
    #: rewards are drawn one at a time (exact): no CLT batch sums
    clt_batch_sums = False

    @property
    def gamma(self) -> float:
        """Γ of DP-UCB (``c[0]``)."""
        return float(self.c[0])

    def run_shard(self, rng: np.random.Generator, shard: Any, rec: Any = None) -> None:
        """Simulate one shard of runs in place (``rec``: a :class:`bandsim.kernels.record.Recorder`
        in the whole-run privacy audit)."""
        c = np.ascontiguousarray(self.c, dtype=np.float64)
        if self.index is sequential.ucb_index:
            sequential.run_ucb_shard(rng, shard, c[0], self.scale, rec)
        else:
            sequential.run_index_shard(rng, shard, episodic_kernel.as_index(self.index), c,
                                       self.scale, rec)


@dataclass(kw_only=True)
class SamplerPlan:
    """Plan of the per-round Thompson engine over chunked Laplace means
    (:func:`kernels.thompson.run_lazy_dp_ts_shard`: Lazy-DP-TS, a plug-in's ``sample``).

    Attributes
    ----------
    sample : numba dispatcher
        ``sample(rng, mean, n, t, c) -> float64``, the posterior sample of an arm
        (a first-class hook; Lazy-DP-TS's :func:`kernels.thompson.lazy_dp_ts_sample`
        is inlined in the engine instead: the same draws, without the call).
    c : float64 (P,)
        Its constants; ``c[0]`` is the engine's slot (ln t).
    noise_scale : float
        Laplace scale on each chunk sum (1/ε).
    """

    sample: Any
    c: np.ndarray
    noise_scale: float
    shard_runs: int = 1
    stages: list = field(default_factory=list)
    privacy: dict = None

    def run_shard(self, rng: np.random.Generator, shard: Any, rec: Any = None) -> None:
        """Simulate one shard of runs in place (``rec``: a recorder in the whole-run audit)."""
        kind = thompson.LAZY_SAMPLE if self.sample is thompson.lazy_dp_ts_sample else \
            thompson.HOOK_SAMPLE
        thompson.run_lazy_dp_ts_shard(rng, shard, kind, hooks.as_hook("sample", self.sample),
                                      np.ascontiguousarray(self.c, dtype=np.float64),
                                      self.noise_scale, rec)
