"""What an algorithm is to bandsim: a name, its parameters, and a plan for an engine.

An :class:`Algorithm` turns a resolved configuration into a :class:`Plan`: the
tables one kernel engine needs (batch sizes, widths, mechanism parameters per
stage and number of active arms). All constants are derived here, in plain
Python, with the seed's equation cited where they are defined.
"""
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import ConfigError, check_int, check_range

REQUIRED = object()


def one_over_horizon(horizon):
    """Default confidence β = 1/T (seed 001, Chapter 6)."""
    return 1.0 / horizon


#: Parameters of the thesis' central-DP algorithms: ε required, β = 1/T.
CENTRAL_DP_PARAMS = {"epsilon": REQUIRED, "beta": one_over_horizon}


@dataclass(frozen=True)
class Derived:
    """A parameter default computed from the other resolved parameters.

    Attributes
    ----------
    fn : callable (params: dict, horizon: int) -> value
        Receives the parameters resolved so far (every non-derived one).
    label : str
        How ``bandsim list`` shows the default, e.g. ``⌈σ²⌉``.
    """

    fn: Callable
    label: str


@dataclass
class Plan:
    """Tables for the elimination engine (:func:`kernels.elimination.run_shard`).

    Any object with a ``run_shard`` method of the same signature and a
    ``stages`` list can serve as a plan (per-step engines define their own).

    Attributes
    ----------
    batch : int64 (S, K + 1)
        Pulls per active arm in stage s with k active arms.
    width : float64 (S, K + 1)
        Elimination threshold on differences of estimated means.
    mech : int
        Mechanism code of :mod:`kernels.protocols`.
    fpar : float64 (S, K + 1, F); ipar : int64 (S, K + 1, I)
        Mechanism parameters.
    order : int
        Pull order code of :mod:`kernels.regret`.
    cumulative : bool
        Pool estimates over all batches.
    stages : list of dict
        Human-readable per-stage parameters (at k = K) for reports.
    notes : dict
        Extra entries for the result's configuration (e.g. the mechanism's
        exact privacy), merged into ``config`` by the runner.
    privacy : dict, optional
        The privacy guarantee in the seed's terms; the runner copies it into
        ``config["privacy"]``.
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

    def run_shard(self, rng, gaps, rcode, rpar, horizon, checkpoints,
                  out_regret, out_pulls, out_elim):
        """Simulate one shard of runs into the output rows (see the engine)."""
        from bandsim.kernels.elimination import run_shard

        run_shard(rng, gaps, rcode, rpar, horizon, self.batch, self.width, self.mech,
                  self.fpar, self.ipar, self.order, self.cumulative, checkpoints,
                  out_regret, out_pulls, out_elim)


@dataclass(frozen=True)
class Algorithm:
    """An entry of the algorithm catalogue (DESIGN.md).

    Attributes
    ----------
    name : str
        Canonical name, e.g. ``dp-se``.
    summary : str
        One line for ``bandsim list``.
    trust : str
        Trust model and guarantee, e.g. ``central ε-DP``.
    reference : str
        Seed file and algorithm/theorem.
    params : dict
        Parameter name → default (``REQUIRED`` if it has none). Defaults may
        be callables of the horizon T (e.g. β = 1/T).
    plan : callable (params: dict, arms: int, horizon: int) -> Plan
    binary_rewards : bool
        The algorithm needs binary rewards: [0, 1]-valued rewards are
        binarized (each reward x replaced by a Bernoulli(x) bit), and the
        runner records it in the result's configuration.
    """

    name: str
    summary: str
    trust: str
    reference: str
    params: dict
    plan: Callable
    binary_rewards: bool = False

    def resolve(self, given, horizon):
        """Validated parameter values: ``given`` completed with the defaults.

        Raises
        ------
        ConfigError
            A required parameter is missing, an unknown one is given, or a
            value is out of its range.
        """
        unknown = sorted(set(given) - set(self.params))
        if unknown:
            takes = ", ".join(self.params) or "no parameters"
            raise ConfigError(unknown[0], given[unknown[0]],
                              f"{self.name} does not take it (it takes: {takes})")
        out = {}
        for name, default in self.params.items():
            value = given.get(name)
            if value is None and isinstance(default, Derived):
                continue  # second pass, once the others are known
            if value is None:
                if default is REQUIRED:
                    raise ConfigError(name, None, f"{self.name} requires it")
                value = default(horizon) if callable(default) else default
            out[name] = validate_param(name, value)
        derived = {name: validate_param(name, d.fn(dict(out), horizon))
                   for name, d in self.params.items() if name not in out}
        return {name: out.get(name, derived.get(name)) for name in self.params}


#: Allowed ranges of the algorithm parameters.
PARAM_RANGES = {
    "epsilon": (0.0, None, "privacy level ε per batch/epoch"),
    "delta": (0.0, 1.0, "δ of (ε, δ)-DP"),
    "beta": (0.0, 1.0, "confidence β (failure probability)"),
    "p": (0.0, 1.0, "confidence p (failure probability)"),
    "growth": (1.0, None, "batch growth factor η of l(b) = η^b"),
    "batch_size": (1, None, "fixed batch size m (users per arm per phase)"),
    "scale": (1.0, None, "scaling factor s ≥ 1 of the precision g = ⌈sε√n⌉"),
}

#: Parameters that take integer values (bounds in PARAM_RANGES are inclusive).
INT_PARAMS = {"batch_size"}


def validate_param(name, value):
    """Validate one algorithm parameter against :data:`PARAM_RANGES`."""
    if name == "scale":
        return check_range("scale", value, 1.0, None, lo_open=False)
    if name in INT_PARAMS:
        lo, hi, _ = PARAM_RANGES[name]
        return check_int(name, value, lo, hi)
    lo, hi, _ = PARAM_RANGES.get(name, (None, None, ""))
    return check_range(name, value, lo, hi)


def build_tables(arms, horizon, stage, n_fpar=1, n_ipar=1, max_stages=10_000, by_k=True):
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
    by_k : bool
        False if ``stage(s, k)`` does not depend on k: it is then called
        once per stage (with k = arms) and its row copied to every k, which
        keeps long schedules (10⁵ stages) cheap to tabulate.

    Returns
    -------
    batch, width, fpar, ipar, stages
        As in :class:`Plan`.
    """
    rows = []
    spent = 0
    s = 0
    while spent < horizon:
        if by_k:
            row = [stage(s, k) for k in range(2, arms + 1)]
            spent += min(k * r[0] for k, r in zip(range(2, arms + 1), row))
        else:
            row = [stage(s, arms)]
            spent += 2 * row[0][0]
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
