"""The one place where JIT flags are set.

``cache=True`` keeps compiled machine code on disk between processes,
``nogil=True`` lets shards of runs execute on several Python threads at once,
and ``fastmath`` stays off: the noise samplers must be exact.

Numba invalidates a cached kernel only when the file that defines it
changes, not when a kernel it calls (in another module) does: a caller
compiled against an old sampler would keep running it. So the SHA-256 of
all ``kernels/*.py`` sources, as read when this module is imported, is part
of every cache file name (``samplers.polya-93.py311.src<digest>.nbi``). An
edit of any kernel source thus gives every kernel a new cache key, wherever
Numba keeps its cache: the in-tree ``__pycache__``, ``NUMBA_CACHE_DIR``, the
user-wide cache of a read-only install, or any locator chosen with
``NUMBA_CACHE_LOCATOR_CLASSES`` — Numba's own locator picks the directory,
only the file name changes. A process that imported the old sources keeps
writing under the old key, so it cannot poison the cache of the new ones.
Cache files of the kernels with another digest are deleted (best effort)
the first time a process caches into a directory.

If Numba finds no writable cache location the kernels are compiled in
every process instead of failing at import.
"""
import hashlib
import os
from pathlib import Path

import numba
from numba.core.caching import CompileResultCacheImpl, FunctionCache

_HERE = Path(__file__).resolve().parent
_SOURCES = sorted(_HERE.glob("*.py"))
#: Module names whose kernels this guard owns (prefix of their cache files).
_STEMS = frozenset(src.stem for src in _SOURCES)


def _source_digest():
    digest = hashlib.sha256()
    for src in _SOURCES:
        digest.update(src.name.encode() + b"\0" + src.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


#: SHA-256 (first 20 hex digits) of every kernel source, part of each cache key.
SOURCE_DIGEST = _source_digest()
_TAG = f".src{SOURCE_DIGEST}"
_swept = set()


def _sweep(path):
    """Delete this package's cache files that carry another source digest."""
    if path in _swept:
        return
    _swept.add(path)
    try:
        for entry in os.scandir(path):
            name = entry.name
            if (name.endswith((".nbi", ".nbc")) and name.split(".", 1)[0] in _STEMS
                    and _TAG + "." not in name):
                os.unlink(entry.path)
            elif name == "kernels-source.sha256":  # stamp of the previous guard
                os.unlink(entry.path)
    except OSError:
        pass  # another process swept first, or the directory is not ours to clean


class _KernelCacheImpl(CompileResultCacheImpl):
    """Numba's cache implementation, with the kernels' source digest in the file name."""

    def get_filename_base(self, fullname, abiflags):
        return super().get_filename_base(fullname, abiflags) + _TAG


class _KernelCache(FunctionCache):
    _impl_class = _KernelCacheImpl


def _njit(**flags):
    def decorate(func):
        disp = numba.njit(cache=False, **flags)(func)
        if not hasattr(disp, "py_func"):  # NUMBA_DISABLE_JIT=1: the plain function
            return disp
        try:
            cache = _KernelCache(disp.py_func)
        except RuntimeError:  # no writable cache location: compile in every process
            return disp
        _sweep(cache.cache_path)
        disp._cache = cache  # what Dispatcher.enable_caching() does, with our key
        return disp

    return decorate


#: ``@jit``: the flags of every kernel (cached as described above).
jit = _njit(nogil=True, fastmath=False, error_model="numpy")

#: The same flags, for small helpers called in per-pull loops: inlined at
#: Numba-IR level, so a call passing a Generator costs no reference counting.
jit_inline = _njit(nogil=True, fastmath=False, error_model="numpy", inline="always")


def rebind(kernel, replacements, _memo=None):
    """A fresh compilation of ``kernel`` whose callees named in ``replacements``
    are replaced, at any depth of the call graph: a mutated copy of a kernel.

    Only negative controls use it (:mod:`bandsim.privacy.controls` and the
    tests: e.g. randomized rounding from ⌈y⌉, an unclipped Gaussian reward),
    to show that an audit FAILs a realistic mistake in the code that draws.
    Engines never call it: plug-in kernels reach the cached engines as
    first-class functions (:mod:`kernels.hooks`). Every kernel on a path from
    ``kernel`` to a replaced name is recompiled against the replacement (same
    source, same flags, not cached on disk); kernels that reach no replaced
    name are shared unchanged.

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
            if hasattr(obj, "rebound"):  # a record primitive: rebind what it calls
                new = _rebind_primitive(obj, replacements, memo)
            elif not isinstance(obj, CPUDispatcher) or obj is kernel:
                continue
            else:
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


def _rebind_primitive(prim, replacements, memo):
    """A record primitive (:func:`kernels.record._by_rec`) over its callees rebound
    (a replaced callee named as in the primitive's Python source), or ``prim``."""
    if id(prim) in memo:
        return memo[id(prim)]
    names = prim.__wrapped__.__code__.co_names
    changed = []

    def swap(disp):
        new = next((replacements[n] for n in names if n in replacements
                    and prim.__wrapped__.__globals__.get(n) is disp), None)
        new = rebind(disp, replacements, memo) if new is None else new
        changed.append(new is not disp)
        return new

    out = prim.rebound(swap)
    memo[id(prim)] = out = out if any(changed) else prim
    return out
