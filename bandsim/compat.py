"""Keyword-only constructors that still accept the old positional calls, with a warning.

Public constructors take at most three positional arguments; the ones that
took more (``Plan``, ``EpisodicPlan``, ``AuditReport``,
``mechanisms.secagg.finish``) are keyword-only. A positional call keeps
working for one release and warns (``DeprecationWarning``).
"""
import functools
import warnings


def positional_deprecated(fn, names, what):
    """Wrap keyword-only ``fn`` so positional arguments map to ``names``, with a warning."""
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        first = 1 if args and not isinstance(args[0], _Positional) and _is_method(fn) else 0
        head, rest = args[:first], args[first:]
        if rest:
            warnings.warn(f"{what} takes keywords only ({', '.join(names[:len(rest)])}=...): "
                          "positional arguments are deprecated", DeprecationWarning,
                          stacklevel=2)
            kw.update(zip(names, rest))
        return fn(*head, **kw)
    return wrapper


class _Positional:
    pass


def _is_method(fn):
    return fn.__name__ == "__init__"


def keyword_dataclass(cls):
    """Make a ``kw_only`` dataclass also accept its old positional order (deprecated)."""
    import dataclasses

    names = [f.name for f in dataclasses.fields(cls)]
    cls.__init__ = positional_deprecated(cls.__init__, names, cls.__name__)
    return cls


__all__ = ["keyword_dataclass", "positional_deprecated"]
