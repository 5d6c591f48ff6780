"""The one exception users see for bad input."""


class ConfigError(ValueError):
    """A configuration value is invalid.

    The message names the field, the value given and the allowed range, and is
    raised before any simulation work starts.
    """

    def __init__(self, field: str, value: object, allowed: str) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field}={value!r} is invalid: {allowed}")


class PluginError(ConfigError):
    """A plug-in's own code raised: one line naming the plug-in, its hook and the error."""

    def __init__(self, who, exc):
        self.field, self.value, self.allowed = who, None, f"{type(exc).__name__}: {exc}"
        ValueError.__init__(self, f"{who} raised {type(exc).__name__}: {exc}")


def call_plugin(who, fn, *args, plugin=True):
    """``fn(*args)``; what a plug-in's ``fn`` raises becomes one :class:`PluginError` line.

    Parameters
    ----------
    who : str
        The plug-in and hook, e.g. ``"plug-in algorithm 'my-se' plan()"``.
    fn : callable
    *args
        Its arguments.
    plugin : bool
        False for a built-in: its exceptions pass unchanged (a bug there is ours).

    Returns
    -------
    object
        What ``fn`` returns.

    Raises
    ------
    PluginError
        ``fn`` raised something other than a ConfigError (those are one line already).
    """
    if not plugin:
        return fn(*args)
    try:
        return fn(*args)
    except ConfigError:
        raise
    except Exception as e:
        raise PluginError(who, e) from e


def check_range(field, value, lo=None, hi=None, lo_open=True, hi_open=True):
    """Return ``float(value)`` if it lies in the interval, else raise ConfigError.

    Parameters
    ----------
    field : str
        Name shown in the error.
    value : object
    lo, hi : float, optional
        Bounds (None: unbounded).
    lo_open, hi_open : bool
        Exclude the bound.

    Returns
    -------
    float

    Raises
    ------
    ConfigError
        Not a number, NaN, or outside the interval.
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ConfigError(field, value, "must be a number") from None
    ok = x == x  # not NaN
    if lo is not None:
        ok &= x > lo if lo_open else x >= lo
    if hi is not None:
        ok &= x < hi if hi_open else x <= hi
    if not ok:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        lo_s = "-inf" if lo is None else f"{lo:g}"
        hi_s = "inf" if hi is None else f"{hi:g}"
        raise ConfigError(field, value, f"must lie in {left}{lo_s}, {hi_s}{right}")
    return x


def check_int(field, value, lo, hi=None):
    """Return ``int(value)`` if it is an integer in [lo, hi], else raise ConfigError.

    Booleans are refused (``runs=True`` is not one run); integral floats
    such as ``5e7`` are accepted.

    Parameters
    ----------
    field : str
    value : object
    lo : int
    hi : int, optional

    Returns
    -------
    int

    Raises
    ------
    ConfigError
        Not an integer, a boolean, or out of range.
    """
    import numbers

    if isinstance(value, (bool, np_bool_types())):  # True is not 1 run
        raise ConfigError(field, value, "must be an integer" + _int_range(lo, hi)
                          + ", not a boolean")
    if isinstance(value, numbers.Integral):
        x = int(value)  # exact, also beyond 2**53
    else:
        try:
            f = float(value)
            ok = f == int(f)
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise ConfigError(field, value, "must be an integer" + _int_range(lo, hi))
        x = int(f)
    if x < lo or (hi is not None and x > hi):
        hi_s = "" if hi is None else f" and at most {hi:,}"
        raise ConfigError(field, value, f"must be at least {lo:,}{hi_s}")
    return x


def np_bool_types():
    """numpy's boolean scalar type, if numpy is loaded.

    Returns
    -------
    tuple of type
    """
    import sys

    np = sys.modules.get("numpy")
    return (np.bool_,) if np is not None else ()


def _int_range(lo, hi):
    return f" in [{lo:,}, {hi:,}]" if hi is not None else f" ≥ {lo:,}"


def check_numba_environment(environ=None):
    """Refuse Numba settings from the environment that would fail inside Numba's import.

    Parameters
    ----------
    environ : mapping, optional
        Default ``os.environ``.

    Raises
    ------
    ConfigError
        ``NUMBA_NUM_THREADS`` set to anything but a positive integer.
    """
    import os

    env = os.environ if environ is None else environ
    value = env.get("NUMBA_NUM_THREADS")
    if value is not None and value.strip():
        try:
            ok = int(value) > 0
        except ValueError:
            ok = False
        if not ok:
            raise ConfigError("NUMBA_NUM_THREADS", value, "must be a positive integer (or "
                                                          "unset: every CPU); bandsim's "
                                                          "--threads sets its own workers")


def import_numba(environ=None):
    """Import numba even when ``NUMBA_NUM_THREADS`` is invalid; bandsim refuses it later.

    numba's own import raises a ValueError from deep inside numba for
    ``NUMBA_NUM_THREADS=0``. ``import bandsim`` loads the kernels (the built-ins
    register at import), so an invalid value is hidden while numba is imported
    and put back after: :func:`check_numba_environment` then refuses it in one
    line, from the command line (exit 2) and from ``simulate``, before any work.

    Parameters
    ----------
    environ : mutable mapping, optional
        Default ``os.environ``.
    """
    import os

    env = os.environ if environ is None else environ
    try:
        check_numba_environment(env)
        hidden = None
    except ConfigError:
        hidden = env.pop("NUMBA_NUM_THREADS")
    try:
        import numba  # noqa: F401
    finally:
        if hidden is not None:
            env["NUMBA_NUM_THREADS"] = hidden
