"""The one exception users see for bad input."""


class ConfigError(ValueError):
    """A configuration value is invalid.

    The message names the field, the value given and the allowed range, and is
    raised before any simulation work starts.
    """

    def __init__(self, field, value, allowed):
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field}={value!r} is invalid: {allowed}")


def check_range(field, value, lo=None, hi=None, lo_open=True, hi_open=True):
    """Return ``float(value)`` if it lies in the interval, else raise ConfigError."""
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
    """Return ``int(value)`` if it is an integer in [lo, hi], else raise ConfigError."""
    import numbers

    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
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


def _int_range(lo, hi):
    return f" in [{lo:,}, {hi:,}]" if hi is not None else f" ≥ {lo:,}"
