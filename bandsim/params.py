"""Parameter specifications: the one declaration from which validation, CLI
flags, ``bandsim list``, sweep keys and audit flags are generated.

An algorithm declares its parameters as a tuple of :class:`Param`. The
common ones (ε, δ, β, p, η, s, m) are declared once here and shared.
"""
import math
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any, Callable

from .errors import ConfigError, check_int, check_range

#: Largest horizon T any simulation or audit accepts.
MAX_HORIZON = 10**10

#: Marks a parameter without a default (the user must give it).
REQUIRED = object()


@dataclass(frozen=True)
class Derived:
    """A default computed from the horizon and the parameters resolved before it.

    Attributes
    ----------
    fn : callable (params: dict, horizon: int) -> value
    label : str
        How ``bandsim list`` shows the default, e.g. ``1/T`` or ``⌈σ²⌉``.
    """

    fn: Callable
    label: str


@dataclass(frozen=True)
class Param:
    """One algorithm parameter.

    Attributes
    ----------
    name : str
        Python name (``batch_size``); the CLI flag is ``--batch-size``.
    default : value, REQUIRED or Derived
    lo, hi : float or None
        Allowed range (``None``: unbounded); ``lo_open``/``hi_open`` say
        whether the bounds are excluded.
    integer : bool
        Integer-valued (bounds inclusive).
    boolean : bool
        A switch (true/false, 1/0, yes/no).
    choices : tuple of str, optional
        The allowed words of a categorical parameter (e.g. a reading of a
        formula); the default is one of them.
    unit : str
        What the number means, e.g. ``ε per batch``.
    help : str
        One line for ``--help`` and ``bandsim list``.
    role : str, optional
        What the parameter means across algorithms: :data:`CONFIDENCE` marks
        an algorithm's confidence (failure probability) parameter, whatever
        its paper calls it (DP-SE's β, Chowdhury & Zhou's p). Comparisons
        name it ``confidence`` (:mod:`bandsim.confidence`).
    """

    name: str
    default: object = REQUIRED
    _: KW_ONLY
    lo: float = None
    hi: float = None
    lo_open: bool = True
    hi_open: bool = True
    integer: bool = False
    boolean: bool = False
    choices: tuple = None
    unit: str = ""
    help: str = ""
    role: str = None

    @property
    def flag(self):
        return "--" + self.name.replace("_", "-")

    @property
    def required(self):
        return self.default is REQUIRED

    def with_default(self, default: object) -> "Param":
        """The same parameter with another default (e.g. p = 1/(2T))."""
        return replace(self, default=default)

    def range_text(self) -> str:
        """The allowed range as text, e.g. ``(0, 1)`` or ``integer ≥ 1``."""
        if self.boolean:
            return "true or false"
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.integer:
            return f"integer ≥ {self.lo:g}" + (f" and ≤ {self.hi:g}" if self.hi is not None else "")
        lo = "-inf" if self.lo is None else f"{self.lo:g}"
        hi = "inf" if self.hi is None else f"{self.hi:g}"
        return f"{'(' if self.lo_open else '['}{lo}, {hi}{')' if self.hi_open else ']'}"

    def default_text(self) -> str:
        if self.required:
            return "required"
        if isinstance(self.default, Derived):
            return self.default.label
        if self.boolean:
            return str(bool(self.default)).lower()
        if self.choices:
            return str(self.default)
        return f"{self.default:g}" if isinstance(self.default, (int, float)) else str(self.default)

    def validate(self, value: object) -> Any:
        """The value as int/float if it lies in the range, else ConfigError.

        Non-finite values are refused unless the range is unbounded on that
        side and explicitly allows it (it never does here).
        """
        if self.boolean:
            return parse_bool(self.name, value)
        if self.choices:
            if not isinstance(value, str) or value not in self.choices:
                raise ConfigError(self.name, value, f"must be {self.range_text()}")
            return value
        if self.integer:
            lo = -math.inf if self.lo is None else self.lo
            return check_int(self.name, value, int(lo), None if self.hi is None else int(self.hi))
        x = check_range(self.name, value, self.lo, self.hi, self.lo_open, self.hi_open)
        if not math.isfinite(x):
            raise ConfigError(self.name, value, f"must be a finite number in {self.range_text()}")
        return x


def parse_bool(name, value):
    """True/False from a bool, 0/1 or the words true/false/yes/no/on/off (ConfigError else)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(name, value, "must be true or false")


def resolve(params, given, horizon, owner):
    """Validated values of ``params``: ``given`` completed with the defaults.

    Parameters
    ----------
    params : tuple of Param
    given : dict
        User values (``None`` entries count as not given).
    horizon : int
        T, for defaults that depend on it.
    owner : str
        The algorithm's name, for messages.

    Returns
    -------
    dict
        name → value, in declaration order.

    Raises
    ------
    ConfigError
        A required parameter is missing, an unknown one is given, or a value
        is out of its range.
    """
    given = {k: v for k, v in given.items() if v is not None}
    names = [p.name for p in params]
    unknown = sorted(set(given) - set(names))
    if unknown:
        takes = ", ".join(names) or "no parameters"
        raise ConfigError(unknown[0], given[unknown[0]], f"{owner} does not take it (it takes: {takes})")
    out = {}
    for p in params:
        if p.name in given:
            out[p.name] = p.validate(given[p.name])
        elif p.required:
            raise ConfigError(p.name, None, f"{owner} requires it ({p.range_text()})")
        elif not isinstance(p.default, Derived):
            out[p.name] = p.validate(p.default)
    for p in params:
        if p.name not in out:
            out[p.name] = p.validate(p.default.fn(dict(out), horizon))
    return {n: out[n] for n in names}


def _one_over_horizon(params, horizon):
    return 1.0 / horizon


def _half_over_horizon(params, horizon):
    return 1.0 / (2 * horizon)


#: The role of an algorithm's confidence parameter (``Param.role``): one per algorithm.
CONFIDENCE = "confidence"

#: β = 1/T, the thesis' confidence (Sajed 2019, Chapter 6).
ONE_OVER_T = Derived(_one_over_horizon, "1/T")
#: p' = 1/(2T) (Chowdhury & Zhou 2023, Theorem 3).
HALF_OVER_T = Derived(_half_over_horizon, "1/(2T)")

EPSILON = Param("epsilon", lo=0.0, unit="ε per batch/epoch",
                help="privacy level ε (per batch/epoch); comma list allowed")
DELTA = Param("delta", lo=0.0, hi=1.0, unit="δ", help="δ of (ε, δ)-DP")
BETA = Param("beta", ONE_OVER_T, lo=0.0, hi=1.0, unit="probability",
             help="confidence β (failure probability)", role=CONFIDENCE)
P = Param("p", 0.1, lo=0.0, hi=1.0, unit="probability",
          help="confidence p (failure probability) of the batch radius and of τ",
          role=CONFIDENCE)
GROWTH = Param("growth", 4.0, lo=1.0, unit="factor",
               help="batch growth factor η of l(b) = η^b")
SCALE = Param("scale", 10.0, lo=1.0, lo_open=False, unit="factor",
              help="scaling factor s ≥ 1 of the precision g = ⌈sε√n⌉")
BATCH_SIZE = Param("batch_size", lo=1, integer=True, unit="users",
                   help="fixed batch size m (users per arm per phase)")

__all__ = ["BATCH_SIZE", "BETA", "CONFIDENCE", "DELTA", "Derived", "EPSILON", "GROWTH", "HALF_OVER_T",
           "ONE_OVER_T", "P", "Param", "REQUIRED", "SCALE", "resolve"]
