"""Checks every declaration passes when it is registered (built-in or plug-in).

Each refusal is one :class:`~bandsim.errors.ConfigError` line naming the
declaration and the field, e.g. ``algorithm 'my-se' params[alpha].default=5.0
is invalid: must lie in (0, 1)``, raised by :func:`bandsim.register` before
anything is registered.
"""
import math
import re

from .costs import RunCost
from .errors import ConfigError
from .hookcache import enable_cache, rekey_modules
from .kernels import codes, hooks
from .params import CONFIDENCE, REQUIRED, Derived, Param


def check(decl, mechanisms, *, kernel_keys, reward_models, costs, compile_hooks=True):
    """Validate an Algorithm or Mechanism declaration (ConfigError on the first fault).

    Parameters
    ----------
    decl : bandsim.Algorithm or bandsim.Mechanism
    mechanisms : dict
        The mechanisms an algorithm may name (registered, and the plug-in's own).
    kernel_keys : dict
        family → the kernel keys its engines consume.
    reward_models, costs : tuple of str
    compile_hooks : bool
        Compile numba hooks against their signature now (plug-ins; built-ins
        are compiled by their tests, and importing bandsim compiles nothing).
    """
    if not isinstance(decl.name, str) or not NAME.fullmatch(decl.name):
        raise ConfigError("name", decl.name, NAME_TEXT)
    if compile_hooks:  # a plug-in: no cache of its code may outlive an edit of what it calls
        rekey_modules(decl)
    if hasattr(decl, "plan"):
        _check_algorithm(decl, mechanisms, reward_models, costs, compile_hooks)
    else:
        _check_mechanism(decl, kernel_keys, compile_hooks)


#: The form of every name in the catalogue (``dp-se``, ``dist-dp-se-shuffle``, ``adap-klucb``):
#: letters and digits in words joined by single ``-``, ``_`` or ``.``, starting with a letter.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*")
NAME_TEXT = ("must be a name of the catalogue's form: letters and digits, words joined by "
             "single '-', '_' or '.', starting with a letter (e.g. dp-se, my_rule2)")


def _owner(decl):
    return f"{'algorithm' if hasattr(decl, 'plan') else 'mechanism'} {decl.name!r}"


def _check_mechanism(m, kernel_keys, compile_hooks):
    who = _owner(m)
    if not callable(m.batch):
        raise ConfigError(f"{who} batch", m.batch, "must be callable (n, **params) -> batch")
    if not (m.float_safe is None or isinstance(m.float_safe, bool)):
        raise ConfigError(f"{who} float_safe", m.float_safe,
                          "must be True (integer releases), False (float noise) or None")
    hooked = False
    for field, (argtypes, text) in type(m).hooks.items():
        fn = getattr(m, field, None)
        if fn is not None:
            check_hook(f"{who} {field}", fn, argtypes, text, compile_hooks)
            hooked = True
    code_name = _PLUGIN_CODE_NAMES.get(m.code)
    if (code_name or m.family == "release") and not m.kernels and not hooked:
        raise ConfigError(f"{who} kernels", m.kernels,
                          f"code=codes.{code_name or 'RELEASE'} needs the plug-in's kernels "
                          f"(e.g. {_keys_text(kernel_keys)})")
    if m.family == "release":
        given = release_laws(m)
        if len(given) != 1:
            raise ConfigError(f"{who} release_logpmf", given or None,
                              "a release mechanism declares its exact output law once: "
                              "release_logpmf(n, k, fpar) -> (values, log-probabilities) "
                              "or release_law(n, k, fpar) -> (values, probs)")
        if not callable(getattr(m, given[0])):
            raise ConfigError(f"{who} {given[0]}", getattr(m, given[0]),
                              "must be callable (n, k, fpar)")
        if m.report_probs is not None and not callable(m.report_probs):
            raise ConfigError(f"{who} report_probs", m.report_probs,
                              "must be callable (fpar) -> (q0, q1), or None")
    if hooked or m.kernels:
        code = codes.PLUGIN_CODES.get(m.family)
        if code is not None and m.code != code:
            raise ConfigError(f"{who} code", m.code,
                              f"a {m.family}-family plug-in has code {code} "
                              f"(bandsim.kernels.codes.PLUGIN_CODES[{m.family!r}])")
    if not m.kernels:
        return
    need = kernel_keys.get(m.family)
    if need is None:
        raise ConfigError(f"{who} family", m.family,
                          f"a mechanism with kernels must be of a family with kernel hooks: "
                          f"{', '.join(kernel_keys)}")
    unknown = sorted(set(m.kernels) - set(need))
    if unknown:
        raise ConfigError(f"{who} kernels", unknown[0],
                          f"no engine of family {m.family!r} consumes it (it takes "
                          f"{', '.join(need)})")
    missing = [k for k in need if k not in m.kernels]
    if missing:
        raise ConfigError(f"{who} kernels", sorted(m.kernels),
                          f"family {m.family!r} needs {', '.join(need)}")
    for key, fn in m.kernels.items():
        where = f"{who} kernels[{key}]"
        _check_jitted(where, fn)
        if compile_hooks:
            _compile_kernel(where, key, fn)


#: The kernel codes of the plug-in mechanism families, by their name in kernels.codes.
_PLUGIN_CODE_NAMES = {codes.PLUGIN: "PLUGIN", codes.PLUGIN_SUM: "PLUGIN_SUM",
                      codes.RELEASE: "RELEASE"}


def _compile_kernel(where, key, fn):
    """Compile a plug-in kernel as the first-class hook the engines call (cached on disk
    under the digest of everything it reaches, :mod:`bandsim.hookcache`)."""
    enable_cache(fn)
    try:
        hooks.as_hook(key, fn)
    except TypeError as e:
        raise ConfigError(where, getattr(fn, "__name__", fn), str(e)) from None


def release_laws(m):
    """The exact-law fields a release mechanism declares: a sublist of
    ``["release_logpmf", "release_law"]`` (one is required)."""
    return [f for f in ("release_logpmf", "release_law") if getattr(m, f, None) is not None]


def _keys_text(kernel_keys):
    return "; ".join(f"{fam}: {', '.join(keys)}" for fam, keys in kernel_keys.items())


def _check_algorithm(a, mechanisms, reward_models, costs, compile_hooks):
    who = _owner(a)
    if not callable(a.plan):
        raise ConfigError(f"{who} plan", a.plan, "must be callable (params, arms, horizon)")
    if a.participation is not None and not callable(a.participation):
        raise ConfigError(f"{who} participation", a.participation,
                          "must be callable (params, horizon) -> list of Release, or None")
    if a.mechanism is not None and a.mechanism not in mechanisms:
        raise ConfigError(f"{who} mechanism", a.mechanism,
                          f"needs a registered mechanism (known: {', '.join(mechanisms)})")
    bad = [r for r in a.rewards if r not in reward_models]
    if bad:
        raise ConfigError(f"{who} rewards", bad[0], f"must be among {', '.join(reward_models)}")
    if a.cost not in costs:
        raise ConfigError(f"{who} cost", a.cost, f"must be one of {', '.join(costs)}")
    if a.run_cost is not None and not (isinstance(a.run_cost, RunCost) or callable(a.run_cost)):
        raise ConfigError(f"{who} run_cost", a.run_cost, "must be a bandsim.costs.RunCost, a "
                                                         "callable (params) -> RunCost, or None")
    check_params(who, a.params)
    for field, (argtypes, text) in type(a).hooks.items():
        check_hook(f"{who} {field}", getattr(a, field), argtypes, text, compile_hooks)


def check_params(who, params):
    """Each Param's range is an interval (lo < hi) that holds its own default; at most one
    has the confidence role."""
    if not isinstance(params, tuple):
        raise ConfigError(f"{who} params", params, "must be a tuple of bandsim.Param")
    seen, confidence = set(), None
    for p in params:
        if not isinstance(p, Param):
            raise ConfigError(f"{who} params", p, "must be a tuple of bandsim.Param")
        where = f"{who} params[{p.name}]"
        if p.name in seen:
            raise ConfigError(where, p.name, "is declared twice")
        seen.add(p.name)
        if p.role not in (None, CONFIDENCE):
            raise ConfigError(f"{where}.role", p.role, f"must be None or {CONFIDENCE!r}")
        if p.role == CONFIDENCE and confidence is not None:
            raise ConfigError(f"{where}.role", p.role, f"{confidence!r} is the confidence "
                                                       "already: an algorithm has one")
        if p.role == CONFIDENCE:
            if p.name == CONFIDENCE:
                raise ConfigError(where, p.name, "is the name comparisons give every "
                                                 "algorithm's confidence: choose another")
            confidence = p.name
        if p.lo is not None and p.hi is not None:
            empty = p.lo > p.hi or (p.lo == p.hi and (p.lo_open or p.hi_open or not p.integer))
            if empty:
                raise ConfigError(f"{where}.lo", p.lo, f"must be below hi = {p.hi:g}")
        for bound in ("lo", "hi"):
            v = getattr(p, bound)
            if v is not None and not (isinstance(v, (int, float)) and not math.isnan(v)):
                raise ConfigError(f"{where}.{bound}", v, "must be a number or None")
        if p.default is REQUIRED or isinstance(p.default, Derived):
            continue
        try:
            p.validate(p.default)
        except ConfigError as e:
            raise ConfigError(f"{where}.default", p.default, e.allowed) from None


def _jit_disabled():
    """numba runs every function as plain Python (``NUMBA_DISABLE_JIT=1``)."""
    from numba.core import config

    return bool(config.DISABLE_JIT)


def _check_jitted(where, fn):
    if not (hasattr(fn, "py_func") and hasattr(fn, "compile")):
        if _jit_disabled() and callable(fn):  # @numba.njit returned the plain function
            return
        raise ConfigError(where, getattr(fn, "__name__", fn),
                          "is a plain Python function: decorate it with @numba.njit")


def _types_for(argtypes, fn):
    """``argtypes(fn)`` if it takes the function (a hook with an earlier form), else ``argtypes()``."""
    import inspect

    return argtypes(fn) if inspect.signature(argtypes).parameters else argtypes()


def check_hook(where, fn, argtypes, text, compile_now=True):
    """A numba hook compiled against its signature (ConfigError naming ``where`` else).

    Parameters
    ----------
    where : str
        Declaration and field, for the message.
    fn : numba dispatcher
    argtypes : tuple of numba types, a callable returning it, or None (only checked to
        be a numba function: signatures with Generators or NamedTuples compile in the
        engines)
    text : str
        The signature as the docs write it, e.g.
        ``(stat: float64, n: int64, t: int64, c: float64[::1]) -> float64``.
    """
    if fn is None:
        raise ConfigError(where, None, f"is required: a @numba.njit function {text}")
    _check_jitted(where, fn)
    if not compile_now or argtypes is None or not hasattr(fn, "compile"):
        return
    from numba.core import types

    argtypes = tuple(_types_for(argtypes, fn) if callable(argtypes) else argtypes)
    enable_cache(fn)
    try:
        fn.compile(tuple(argtypes))
    except Exception as e:  # numba's typing errors are long: keep their first line
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ConfigError(where, fn.__name__, f"does not compile as {text}: {first}") from None
    ret = fn.overloads[tuple(argtypes)].signature.return_type
    if not isinstance(ret, (types.Float, types.Integer)):
        raise ConfigError(where, fn.__name__, f"returns {ret}, must be {text}")


__all__ = ["check", "check_hook", "check_params", "enable_cache", "release_laws"]
