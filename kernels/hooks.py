"""Plug-in kernels as first-class functions of fixed signatures: one cached engine for all.

Numba types a dispatcher passed as an argument by its identity, so an engine
that received a plug-in's kernel as a plain dispatcher would be compiled anew
for every plug-in and could not be found again in the on-disk cache by the
next process. An engine here instead receives a :class:`Hooks` tuple of
*first-class functions* (``numba.types.FunctionType`` of the signatures
below): the engine is compiled once for every plug-in, cached on disk, and a
plug-in costs only the compilation of its own small kernels (themselves
cached when the plug-in's module can be located by Numba's cache).

Hook kinds (the name is the declaration's kernel key):

``sum_noise(rng, n, fpar) -> float64``
    Noise a ``sum``-family mechanism adds to the exact batch sum of ``n``
    rewards (reward units).
``total_noise(rng, mech, n, fpar) -> int64`` and ``user_noise(rng, mech, n, fpar) -> int64``
    A SecAgg-family mechanism's total noise Σ η_i of a batch of ``n`` users
    and one user's noise η_i (encoded units); bandsim's protocol
    P = (R, S, A) does the rest.
``release(rng, n, k, params) -> float64``
    A data-dependent release mechanism (randomized response and the like):
    the analyzer's estimate of the batch sum (reward units), drawn from the
    batch's true count ``k`` of ones among ``n`` binary rewards.
``decide(rng, stat, cnt, t, c, pick, state) -> int64``
    A batched decision rule, called between batches (see
    :mod:`kernels.decisions`): ``rng`` is the engine's Generator and
    ``state`` float64 (S,) the run's own scratch, zeroed when a run starts.
    A rule of the earlier form ``decide(stat, cnt, t, c, pick)`` is adapted
    (:func:`as_hook`).
``leader(mt, nt, cnt, t, c)``, ``challenger(b, mt, cnt, c)``, ``stop(mt, nt, c)`` -> int64
    A top-two identifier's rules (:func:`kernels.toptwo.run_shard`; algorithm
    hooks like ``sample``, no :class:`Hooks` slot).
``sample(rng, mean, n, t, c) -> float64``
    A Thompson posterior sample of one arm from its private mean over n
    rewards at round t (:func:`kernels.thompson.run_lazy_dp_ts_shard`; an
    algorithm's hook, not a mechanism kernel: no :class:`Hooks` slot).

Every signature takes ``fpar``/``params``/``c`` as ``float64[::1]``. A
built-in engine receives :data:`UNBOUND` hooks, each of which raises
``ValueError`` if called: a mechanism code that names a plug-in kernel never
runs silently without it.
"""
from typing import NamedTuple

import numba
import numpy as np
from numba import types
from numba.core.typing.typeof import typeof_impl

from ._jit import jit

_GEN = types.NumPyRandomGeneratorType("NumPyRandomGeneratorType")
_F1 = types.Array(types.float64, 1, "C")
_I1 = types.Array(types.int64, 1, "C")

#: The signature each hook kind must compile for.
SIGNATURES = {
    "sum_noise": types.float64(_GEN, types.int64, _F1),
    "total_noise": types.int64(_GEN, types.int64, types.int64, _F1),
    "user_noise": types.int64(_GEN, types.int64, types.int64, _F1),
    "release": types.float64(_GEN, types.int64, types.int64, _F1),
    "decide": types.int64(_GEN, _F1, _I1, types.int64, _F1, _I1, _F1),
    "sample": types.float64(_GEN, types.float64, types.float64, types.int64, _F1),
    "leader": types.int64(_F1, _I1, _I1, types.int64, _F1),
    "challenger": types.int64(types.int64, _F1, _I1, _F1),
    "stop": types.int64(_F1, _I1, _F1),
}


class Hooks(NamedTuple):
    """The plug-in kernels an engine may call (first-class functions, or :data:`UNBOUND`)."""

    sum_noise: object
    total_noise: object
    user_noise: object
    release: object
    decide: object


_TYPES = {}


@typeof_impl.register(Hooks)
def _typeof_hooks(val, c):
    """The Numba type of a :class:`Hooks` tuple, computed once per tuple.

    Numba types a tuple of first-class functions element by element on every
    call of an engine (≈0.2 ms, as much as a whole shard of a short run);
    the functions in it are memoised (:func:`as_hook`), so the type is kept
    per combination of functions, which are kept with it (their ``id`` s
    cannot be reused while the entry lives).
    """
    key = tuple(map(id, val))
    hit = _TYPES.get(key)
    if hit is None:
        hit = (tuple(val), types.BaseTuple.from_types([typeof_impl(v, c) for v in val], Hooks))
        _TYPES[key] = hit
    return hit[1]


class _Hook(types.WrapperAddressProtocol):
    """A Numba-compiled function as a first-class function of a fixed signature."""

    def __init__(self, fn, sig):
        from numba.experimental.function_type import _get_wrapper_address

        self.fn = fn
        self.sig = sig
        self._addr = _get_wrapper_address(fn, sig)  # compiles fn for sig if needed

    def __wrapper_address__(self):
        return self._addr

    def signature(self):
        return self.sig


_MEMO = {}


def as_hook(kind, fn):
    """Wrap the Numba-compiled ``fn`` as a first-class hook of kind ``kind`` (memoised).

    Parameters
    ----------
    kind : str
        A key of :data:`SIGNATURES`.
    fn : numba dispatcher (``@numba.njit``)

    Returns
    -------
    numba.types.WrapperAddressProtocol

    Raises
    ------
    KeyError
        If ``kind`` is unknown.
    TypeError
        If ``fn`` is not a Numba dispatcher ("decorate it with @numba.njit")
        or does not compile for the signature of ``kind``.
    """
    sig = SIGNATURES[kind]
    if kind == "decide" and n_args(fn) == LEGACY_DECIDE_ARGS:
        fn = _legacy_decide(fn)
    if isinstance(fn, types.WrapperAddressProtocol) or numba.config.DISABLE_JIT:
        return fn  # NUMBA_DISABLE_JIT=1: the engines run as Python and call it directly
    key = (kind, fn)
    if key in _MEMO:
        return _MEMO[key]
    if not hasattr(fn, "get_compile_result"):
        raise TypeError(f"{kind} kernel {getattr(fn, '__name__', fn)!r} is a plain Python "
                        "function: decorate it with @numba.njit")
    try:
        try:
            w = _Hook(fn, sig)
        except Exception as exc:
            if "mismatch of return type" not in str(exc):
                raise
            w = _Hook(_cast_return(fn, sig), sig)  # e.g. an int64 count for a float64 hook
    except Exception as exc:  # numba's typing errors are not one class
        raise TypeError(f"{kind} kernel {getattr(fn, '__name__', fn)!r} does not compile as "
                        f"{sig}: {str(exc).splitlines()[0] if str(exc) else exc!r}") from exc
    _MEMO[key] = w
    return w


#: Arguments of a decision rule of the earlier form ``decide(stat, cnt, t, c, pick)``.
LEGACY_DECIDE_ARGS = 5


def n_args(fn):
    """Number of positional parameters of a (Numba-compiled) Python function, or None."""
    code = getattr(getattr(fn, "py_func", fn), "__code__", None)
    return None if code is None else code.co_argcount


_LEGACY = {}


def _legacy_decide(fn):
    """``decide(stat, cnt, t, c, pick)`` as a rule of the full signature (memoised).

    It gets no generator and no state; the engine still zeroes ``pick`` when
    a run starts, so nothing of one run reaches the next.
    """
    if fn not in _LEGACY:
        if numba.config.DISABLE_JIT:
            _LEGACY[fn] = lambda rng, stat, cnt, t, c, pick, state: fn(stat, cnt, t, c, pick)
        else:
            _LEGACY[fn] = numba.njit(
                lambda rng, stat, cnt, t, c, pick, state: fn(stat, cnt, t, c, pick))
    return _LEGACY[fn]


def _cast_return(fn, sig):
    """A Numba function that calls ``fn`` and casts its numeric result to ``sig``'s return."""

    fn.compile(sig.args)  # raises if the arguments do not type
    ret = np.float64 if sig.return_type == types.float64 else np.int64
    n = len(sig.args)
    if n == 3:
        return numba.njit(lambda a, b, c: ret(fn(a, b, c)))
    if n == 4:
        return numba.njit(lambda a, b, c, d: ret(fn(a, b, c, d)))
    if n == 5:
        return numba.njit(lambda a, b, c, d, e: ret(fn(a, b, c, d, e)))
    return numba.njit(lambda a, b, c, d, e, f, g: ret(fn(a, b, c, d, e, f, g)))


@jit
def _no_sum_noise(rng, n, fpar):
    if rng is not None:  # always: typed so the return below is reachable
        raise ValueError("sum_noise: no plug-in kernel bound for this mechanism code")
    return 0.0  # unreachable: the return type of the hook's signature


@jit
def _no_secagg_noise(rng, mech, n, fpar):
    if rng is not None:  # always: typed so the return below is reachable
        raise ValueError("total_noise/user_noise: no plug-in kernel bound for this mechanism code")
    return np.int64(0)  # unreachable: the return type of the hook's signature


@jit
def _no_release(rng, n, k, params):
    if rng is not None:  # always: typed so the return below is reachable
        raise ValueError("release: no plug-in kernel bound for this mechanism code")
    return 0.0  # unreachable: the return type of the hook's signature


@jit
def _no_decide(rng, stat, cnt, t, c, pick, state):
    if stat is not None:  # always: typed so the return below is reachable
        raise ValueError("decide: no decision rule bound for this engine")
    return np.int64(0)  # unreachable: the return type of the hook's signature


_DEFAULTS = {"sum_noise": _no_sum_noise, "total_noise": _no_secagg_noise,
             "user_noise": _no_secagg_noise, "release": _no_release, "decide": _no_decide}


def bind(**kernels):
    """A :class:`Hooks` tuple: the given kernels wrapped, every other slot unbound.

    Raises
    ------
    KeyError
        For a kernel key that is not a hook kind (no engine would consume it).
    TypeError
        As :func:`as_hook`.
    """
    unknown = sorted(set(kernels) - set(SIGNATURES))
    if unknown:
        raise KeyError(f"unknown kernel key(s) {', '.join(unknown)} (known: "
                       f"{', '.join(SIGNATURES)})")
    return Hooks(*(as_hook(k, kernels.get(k, _DEFAULTS[k])) for k in Hooks._fields))


_UNBOUND = []


def unbound():
    """The hooks of a built-in engine: every slot raises if called (memoised)."""
    if not _UNBOUND:
        _UNBOUND.append(bind())
    return _UNBOUND[0]
