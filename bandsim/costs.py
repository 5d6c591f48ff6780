"""The declared cost of one simulated run: nanoseconds per unit of work, and the unit.

An algorithm declares what one run of it costs (``Algorithm.run_cost``; its engine
family's base declares a default) as a :class:`RunCost`: a measured figure in
nanoseconds per *unit*, and how the units grow with K arms and horizon T
(:data:`UNITS`):

``T·K``
    a step every pull, each over the K arms (the per-step and per-round engines:
    UCB1, SE, DP-UCB, DP-TS, Lazy-DP-TS's per-round reference);
``K·log₂T``
    O(log T) batches, episodes, epochs or windows per arm (the batched, episodic
    and SVT engines);
``K²·√K·log₂T``
    Lazy-DP-TS's event-driven engine: O(log T) windows per arm, each with events
    (rounds the leader need not win) whose number grows with the arms near the
    leader — an empirical fit, not a bound: measured 7–10 ms per run at K = 5,
    0.2–0.28 s at K = 20 and 4–9.5 s at the 80 nearly tied arms of the Open Bandit
    Dataset (T = 10⁶–10⁸), within 1.9× of the fit at every point where ``K²·log₂T``
    was off by 3.9×;
``K²·log₂T``
    the same with a K² growth (a plug-in may declare it);
``K²``
    O(K) index evaluations by bisection at each of O(K) episode ends that matter
    (AdaP-KLUCB: T barely matters).

The figures are measured on one core of the project's shared 2-vCPU machine by
``benchmarks/run_cost.py`` (the largest of K = 5 and 80, T = 10⁶ and 10⁸); docs/suite.md
has the table. The suite uses them to state the cost of a tier and to choose, by a
fixed rule, which configurations run (boards stay reproducible); ``bandsim run``
refuses jobs they put beyond a day.
"""
import math
from dataclasses import dataclass

from .errors import ConfigError

#: Units of work of a run, as a function of (K, T).
UNITS = {
    "T·K": lambda k, t: float(t) * k,
    "K·log₂T": lambda k, t: k * math.log2(max(float(t), 2.0)),
    "K²": lambda k, t: float(k) * k,
    "K²·log₂T": lambda k, t: float(k) * k * math.log2(max(float(t), 2.0)),
    "K²·√K·log₂T": lambda k, t: float(k) ** 2.5 * math.log2(max(float(t), 2.0)),
}


@dataclass(frozen=True)
class RunCost:
    """What one run costs: ``ns`` nanoseconds per unit of ``unit`` (:data:`UNITS`).

    Attributes
    ----------
    ns : float
        Measured nanoseconds per unit (one core), > 0.
    unit : str
        A key of :data:`UNITS`.
    measured : str
        Where the figure comes from (script, K, T), for the docs.

    Raises
    ------
    ConfigError
        ``ns`` not a positive number, or an unknown unit.
    """

    ns: float
    unit: str = "T·K"
    measured: str = ""

    def __post_init__(self):
        if isinstance(self.ns, bool) or not isinstance(self.ns, (int, float)) \
                or not self.ns > 0 or not math.isfinite(self.ns):
            raise ConfigError("run_cost ns", self.ns, "must be a positive number of "
                                                      "nanoseconds per unit")
        if self.unit not in UNITS:
            raise ConfigError("run_cost unit", self.unit, f"must be one of {', '.join(UNITS)}")

    def seconds(self, arms, horizon):
        """Seconds per run at K = ``arms``, T = ``horizon`` (float)."""
        return self.ns * 1e-9 * units(self.unit, arms, horizon)

    @property
    def horizon_linear(self):
        """The cost grows linearly with T (a step every pull or round)."""
        return self.unit == "T·K"


def units(unit, arms, horizon):
    """Units of work of one run (:data:`UNITS`) at K = ``arms``, T = ``horizon``."""
    return UNITS[unit](int(arms), float(horizon))


def declared(algo, params=None):
    """The :class:`RunCost` an algorithm declares for ``params``, or None.

    ``Algorithm.run_cost`` is a :class:`RunCost`, a callable ``(params) -> RunCost``
    (a cost that depends on a parameter, e.g. the engine chosen) or None; ``params``
    default to the declared defaults.
    """
    cost = getattr(algo, "run_cost", None)
    if callable(cost) and not isinstance(cost, RunCost):
        given = {p.name: p.default for p in algo.params}
        given.update(params or {})
        cost = cost(given)
    return cost


def run_cost(algo, arms, horizon, params=None, fallback=None):
    """Estimated seconds per run of ``algo`` (a declaration) at K, T.

    Parameters
    ----------
    algo : bandsim.registry.Algorithm
    arms, horizon : int
    params : dict, optional
        Parameters that change the cost (Lazy-DP-TS's engine); default the declared defaults.
    fallback : RunCost, optional
        For an algorithm that declares none (a plug-in).

    Returns
    -------
    float
        Seconds (0 when neither a declaration nor a fallback is given).
    """
    cost = declared(algo, params) or fallback
    return cost.seconds(arms, horizon) if cost is not None else 0.0


__all__ = ["RunCost", "UNITS", "declared", "run_cost", "units"]
