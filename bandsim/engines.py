"""One kernel path for built-in and plug-in mechanisms: cached engines plus first-class hooks.

Every engine and SecAgg kernel is compiled once, cached on disk, and takes a
:class:`bandsim.kernels.hooks.Hooks` tuple as its last argument. A built-in
mechanism passes the unbound hooks (each raises if called; built-in codes
never call them). A plug-in mechanism's ``kernels`` (Numba functions) are
wrapped as first-class functions of fixed signatures and passed in: the
engine is not recompiled for them, so a plug-in's first ``simulate`` in a
fresh process costs only its own small kernels (cached too when Numba can
locate the plug-in's source file).

Mechanism families and the kernel keys they consume (anything else is
refused at registration, as is a missing key):

``secagg`` (code ``PLUGIN``)
    ``total_noise(rng, mech, n, fpar) -> int64`` and
    ``user_noise(rng, mech, n, fpar) -> int64``: the closed-form total noise
    of a batch and one user's noise (encoded units). bandsim's protocol
    P = (R, S, A) of Chowdhury & Zhou does the rest (batched and per-user
    paths, hence the per-user reference).
``sum`` (code ``PLUGIN_SUM``)
    ``sum_noise(rng, n, fpar) -> float64``: noise added to the exact sum.
``release`` (code ``RELEASE``)
    ``release(rng, n, k, params) -> float64`` (an int64 result is cast): the
    analyzer's estimate of the batch sum drawn from the true count k of ones
    among the n binary rewards; ``params`` is the batch's ``fpar``.

An algorithm on the batched decision-rule engine declares ``decide`` (see
:mod:`bandsim.kernels.decisions`).
"""
from functools import lru_cache

from .errors import ConfigError

#: Kernel keys each mechanism family consumes.
FAMILY_KERNELS = {"secagg": ("total_noise", "user_noise"), "sum": ("sum_noise",),
                  "release": ("release",)}


def family_code(family):
    """The kernel code of a plug-in mechanism family (ConfigError if it has none)."""
    from .kernels.codes import PLUGIN_CODES

    if family not in PLUGIN_CODES:
        raise ConfigError("family", family,
                          f"a mechanism with kernels must be of family {', '.join(PLUGIN_CODES)}")
    return PLUGIN_CODES[family]


def check_mechanism(spec):
    """Validate a mechanism declaration's kernels at registration (one line per mistake).

    A mechanism without ``kernels`` is a built-in kind and passes; a release
    family without kernels is refused.

    Raises
    ------
    ConfigError
        Unknown or missing kernel keys for the family, a ``code`` other than
        the family's plug-in code, a plain Python function, a kernel that does
        not compile for its signature, or a release mechanism without its
        exact law (``release_law``).
    """
    from .kernels import hooks

    kernels = spec.kernels or {}
    if not kernels and getattr(spec, "family", None) != "release":
        return
    who = f"mechanism {spec.name}"
    code = family_code(spec.family)
    need = FAMILY_KERNELS[spec.family]
    unknown = sorted(set(kernels) - set(need))
    if unknown:
        raise ConfigError("kernels", unknown[0], f"{who}: no {spec.family}-family engine "
                          f"consumes it (keys: {', '.join(need)})")
    missing = [k for k in need if k not in kernels]
    if missing:
        raise ConfigError("kernels", sorted(kernels), f"{who} ({spec.family} family) must give "
                          f"{', '.join(need)}")
    if spec.code != code:
        raise ConfigError("code", spec.code, f"{who}: a {spec.family}-family plug-in has "
                          f"code {code} (bandsim.kernels.codes.PLUGIN_CODES[{spec.family!r}])")
    if spec.family == "release" and getattr(spec, "release_law", None) is None:
        raise ConfigError("release_law", None, f"{who}: a release mechanism declares its exact "
                          "output law release_law(n, k, fpar) -> (values, probs)")
    _enable_cache(kernels.values())  # before the first compilation, which is then saved
    for key, fn in kernels.items():
        try:
            hooks.as_hook(key, fn)
        except TypeError as e:
            raise ConfigError(f"kernels[{key!r}]", getattr(fn, "__name__", fn),
                              f"{who}: {e}") from None


def check_algorithm(spec):
    """Validate an algorithm's ``decide`` hook (if any) at registration."""
    from .kernels import hooks

    fn = getattr(spec, "decide", None)
    if fn is None:
        return
    _enable_cache([fn])
    try:
        hooks.as_hook("decide", fn)
    except TypeError as e:
        raise ConfigError("decide", getattr(fn, "__name__", fn),
                          f"algorithm {spec.name}: {e}") from None


def _enable_cache(fns):
    """Cache plug-in kernels on disk where Numba can locate their source (best effort)."""
    import sys

    for fn in fns:
        if (not hasattr(fn, "enable_caching") or fn.signatures
                or type(getattr(fn, "_cache", None)).__name__ != "NullCache"):
            continue  # not a dispatcher, compiled already, or caching already
        module = sys.modules.get(getattr(fn.py_func, "__module__", None))
        source = getattr(module, "__file__", None) or ""
        if (not source.endswith(".py") or source != fn.py_func.__code__.co_filename
                or fn.py_func.__closure__):
            continue  # not a module-level function of an imported file (exec'd, a closure)
        try:
            fn.enable_caching()
        except Exception:  # no file (exec'd code, a notebook) or no writable location
            pass


@lru_cache(maxsize=None)
def _hooks(mechanism):
    from .kernels import hooks
    from .registry import get_mechanism

    spec = get_mechanism(mechanism)
    if not spec.kernels:
        return hooks.unbound()
    return hooks.bind(**spec.kernels)


def hooks_for(mechanism, decide=None):
    """The :class:`~bandsim.kernels.hooks.Hooks` an engine gets for ``mechanism``.

    Parameters
    ----------
    mechanism : str
        A registered mechanism's name.
    decide : numba dispatcher, optional
        A decision rule (batched decision-rule engine).
    """
    h = _hooks(mechanism)
    if decide is not None:
        from .kernels import hooks

        h = h._replace(decide=hooks.as_hook("decide", decide))
    return h


def clear():
    """Forget every bound hook tuple (after a plug-in mechanism is replaced or removed)."""
    _hooks.cache_clear()


def _with_hooks(kernel, mechanism):
    h = _hooks(mechanism)

    def call(*args):
        return kernel(*args, h)

    call.__name__ = kernel.__name__
    call.__doc__ = kernel.__doc__
    return call


def secagg_kernel(mechanism, name):
    """The :mod:`bandsim.kernels.secagg` kernel ``name`` with ``mechanism``'s hooks appended."""
    from .kernels import secagg

    return _with_hooks(getattr(secagg, name), mechanism)


def protocol_kernel(mechanism, name):
    """The :mod:`bandsim.kernels.protocols` kernel ``name`` with ``mechanism``'s hooks appended."""
    from .kernels import protocols

    return _with_hooks(getattr(protocols, name), mechanism)


def elimination_engine(mechanism):
    """The elimination engine (:func:`bandsim.kernels.elimination.run_shard`) for ``mechanism``:
    ``engine(rng, shard, tables)``."""
    from .kernels import elimination

    return _with_hooks(elimination.run_shard, mechanism)


__all__ = ["FAMILY_KERNELS", "check_algorithm", "check_mechanism", "clear",
           "elimination_engine", "family_code", "hooks_for", "protocol_kernel",
           "secagg_kernel"]
