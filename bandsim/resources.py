"""The resource guard: refuse, before any work, what would not fit in memory.

A simulation allocates its outputs (O(runs × checkpoints)), its instances
(O(runs × arms)), the engine's plan tables (O(stages × arms)) and, for the
exact privacy every result carries, a few pmfs. Each is estimated from the
configuration before it is allocated; beyond the **memory budget** the
configuration is refused with a :class:`~bandsim.errors.ConfigError` naming
the parameter to change, instead of a MemoryError (or a swapping machine)
minutes later.

The budget is a third of the memory available when the check runs (at
least 1 GiB: room for the copies a Parquet writer makes, and for others), or the value of the environment variable ``BANDSIM_MEMORY`` (bytes,
or with a unit: ``8G``, ``500M``), or what ``bandsim run --memory`` sets.
"""
import os
import re

from .errors import ConfigError

#: Environment variable overriding the budget.
ENV = "BANDSIM_MEMORY"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_override = {"bytes": None}


def parse_size(text):
    """Bytes from ``"8G"``, ``"500M"``, ``"1.5e9"``.

    Parameters
    ----------
    text : str or int

    Returns
    -------
    int

    Raises
    ------
    ConfigError
        Not a positive size.
    """
    m = re.fullmatch(r"\s*([0-9.eE+]+)\s*([KMGT]?)i?B?\s*", str(text), re.I)
    try:
        value = float(m.group(1)) * _UNITS[m.group(2).upper()]
    except (AttributeError, ValueError):
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise ConfigError("memory", text, "must be a positive size such as 8G, 500M or 2e9")
    return int(value)


def available():
    """Bytes of memory available now (MemAvailable; else the physical memory).

    Returns
    -------
    int
    """
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def budget():
    """The memory budget in bytes (module docstring).

    Returns
    -------
    int
    """
    if _override["bytes"] is not None:
        return _override["bytes"]
    if os.environ.get(ENV):
        return parse_size(os.environ[ENV])
    return max(1 << 30, available() // 3)


def set_budget(size):
    """Set the budget for this process.

    Parameters
    ----------
    size : int or str or None
        Bytes or a size string (``"8G"``); None restores the default.

    Returns
    -------
    int or None
        The previous override (for :func:`restore_budget`).

    Raises
    ------
    ConfigError
        Not a positive size.
    """
    previous = _override["bytes"]
    _override["bytes"] = None if size is None else parse_size(size)
    return previous


def restore_budget(previous):
    """Put back the override :func:`set_budget` returned.

    Parameters
    ----------
    previous : int or None
    """
    _override["bytes"] = previous


def fmt(nbytes):
    """A byte count for people: ``9.4 GiB``.

    Parameters
    ----------
    nbytes : float

    Returns
    -------
    str
    """
    x = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if x < 1024 or unit == "PiB":
            return f"{x:.3g} {unit}"
        x /= 1024
    return f"{x:.3g} PiB"


def check(nbytes, field, value, what, fix):
    """ConfigError naming ``field`` if ``nbytes`` exceed the budget.

    Parameters
    ----------
    nbytes : float
        Estimated memory.
    field, value : str, object
        The parameter to change and its value.
    what : str
        What needs the memory, e.g. ``"the outputs of 10,000,000 runs"``.
    fix : str
        How to get below the budget, e.g. ``"lower --runs (at most 1,234,567)"``.
    """
    limit = budget()
    if nbytes > limit:
        raise ConfigError(field, value, f"{what} would need {fmt(nbytes)}, more than the "
                                        f"memory budget {fmt(limit)}: {fix} (or raise the "
                                        f"budget: --memory or {ENV})")


#: Estimated seconds of work beyond which a command refuses unless given ``--yes``: a day.
MAX_SECONDS = 86_400
#: Peak bytes the whole-run audit holds per recorded pull of an O(T) engine (one reward
#: block and one release per pull, recorded, copied and replayed against the reference):
#: measured 0.9 KB per pull for ``bandsim audit dp-ucb --whole-run`` at T = 10⁶ and 3·10⁶.
RECORD_BYTES_PER_PULL = 1024
#: Peak bytes per pull of its many-run sample (checks (g), (h): releases only, no replay):
#: measured 66 bytes per pull (dp-ucb at T = 2·10⁴ and 5·10⁴, two instances), doubled.
SAMPLE_BYTES_PER_PULL = 128


def duration(seconds):
    """Seconds for people: ``45 s``, ``3.2 h``, ``11.6 days``.

    Parameters
    ----------
    seconds : float

    Returns
    -------
    str
    """
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"


def check_time(seconds, field, value, what, fix, yes=False):
    """ConfigError naming ``field`` if the estimated ``seconds`` exceed :data:`MAX_SECONDS`
    and ``yes`` is not given.

    Parameters
    ----------
    seconds : float
        Estimated wall time (by a cost model, one core).
    field, value : str, object
        The parameter to change and its value.
    what : str
        What would take that long, e.g. ``"1,000 runs of ucb1 at T = 10¹⁰"``.
    fix : str
        How to shorten it.
    yes : bool
        The user confirmed (``--yes``): never refuse.
    """
    if seconds > MAX_SECONDS and not yes:
        raise ConfigError(field, value, f"{what} would take ≈ {duration(seconds)} on one core by "
                                        f"the measured cost model, more than a day: {fix}, or "
                                        "pass --yes to run it anyway")


def check_recording(cost, horizon, field="horizon", sample_pulls=0):
    """ConfigError if a whole-run audit's recorder would not fit in the memory budget.

    Parameters
    ----------
    cost : str
        The algorithm's cost model (``Algorithm.cost``): ``horizon`` engines
        record a block and a release per pull (T of each per run);
        ``episodes`` engines O(batches), never a concern.
    horizon : int
        T of the audited run.
    field : str
        The option named.
    sample_pulls : float
        Pulls the many-run sample records at most
        (:func:`bandsim.wholerun.laws.sample_pulls`).
    """
    if cost != "horizon":
        return
    need = RECORD_BYTES_PER_PULL * float(horizon) + SAMPLE_BYTES_PER_PULL * float(sample_pulls)
    per_pull = need / float(horizon)
    check(need, field, horizon,
          f"the whole-run audit's recordings at T = {horizon:,} (≈ {per_pull:,.0f} bytes per "
          "pull of T)", f"lower --horizon (at most {int(budget() // per_pull):,})")


__all__ = ["ENV", "MAX_SECONDS", "RECORD_BYTES_PER_PULL", "SAMPLE_BYTES_PER_PULL", "available", "budget", "check",
           "check_recording", "check_time", "duration", "fmt", "parse_size", "restore_budget",
           "set_budget"]
