"""The one place where JIT flags are set.

``cache=True`` keeps compiled machine code on disk between processes,
``nogil=True`` lets shards of runs execute on several Python threads at once,
and ``fastmath`` stays off: the noise samplers must be exact.

Numba invalidates a cached kernel only when the file that defines it
changes, not when a kernel it calls (in another module) does. So that an
edited sampler can never run through a stale caller, the on-disk cache of
this package is dropped whenever any of its sources changes (a hash of all
``kernels/*.py`` is kept next to the cache).
"""
import hashlib
from pathlib import Path

import numba


def _drop_stale_cache():
    here = Path(__file__).parent
    cache = here / "__pycache__"
    digest = hashlib.sha256()
    for src in sorted(here.glob("*.py")):
        digest.update(src.name.encode() + src.read_bytes())
    stamp = cache / "kernels-source.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # read-only install: numba then uses its own user cache
        pass


_drop_stale_cache()

jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")

#: The same flags, for small helpers called in per-pull loops: inlined at
#: Numba-IR level, so a call passing a Generator costs no reference counting.
jit_inline = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy",
                        inline="always")


def rebind(kernel, replacements, _memo=None):
    """A fresh compilation of ``kernel`` whose callees named in ``replacements``
    are replaced, at any depth of the call graph (for plug-in kernels).

    The built-in engines call their samplers and estimators as module-level
    kernels, so an engine can serve a plug-in's own sampler without a second
    copy of its source: every kernel on a path from ``kernel`` to a replaced
    name is recompiled against the replacement (same source, same flags, not
    cached on disk: Numba cannot key a cache on another function). Kernels
    that reach no replaced name are shared, cached, unchanged.

    Parameters
    ----------
    kernel : numba dispatcher
    replacements : dict of str -> numba dispatcher
        Global name inside the kernels → the kernel to call instead (same
        signature).

    Returns
    -------
    numba dispatcher
        ``kernel`` itself when nothing it reaches is replaced.
    """
    from numba.core.registry import CPUDispatcher

    memo = {} if _memo is None else _memo
    if id(kernel) in memo:
        return memo[id(kernel)]
    memo[id(kernel)] = kernel  # recursion guard
    py = kernel.py_func
    new_globals = None
    for name in py.__code__.co_names:
        if name in replacements:
            new = replacements[name]
        else:
            obj = py.__globals__.get(name)
            if not isinstance(obj, CPUDispatcher) or obj is kernel:
                continue
            new = rebind(obj, replacements, memo)
            if new is obj:
                continue
        if new_globals is None:
            new_globals = dict(py.__globals__)
        new_globals[name] = new
    if new_globals is None:
        return kernel
    import types

    fn = types.FunctionType(py.__code__, new_globals, py.__name__, py.__defaults__,
                            py.__closure__)
    options = dict(kernel.targetoptions)
    options.pop("cache", None)
    options.pop("nopython", None)
    out = numba.njit(**options)(fn)
    memo[id(kernel)] = out
    return out
