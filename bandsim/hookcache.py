"""The disk cache of a plug-in's compiled hooks, keyed by everything the hook can reach.

Numba's own cache (``@numba.njit(cache=True)``, ``Dispatcher.enable_caching``)
is invalidated only when the file that defines the cached function changes.
A function compiled with Numba carries the machine code of every
``@numba.njit`` function it calls, so a plug-in kernel whose helper lives in
another module kept running the helper's old code from that cache after the
helper was edited (the result store, whose key holds a digest of the
plug-in's sources, stored those results under the new code's key).

Here a plug-in's hook is cached under a file name that carries the SHA-256
of every source it can reach (:func:`reach_digest`): the files of the hook
and of every Numba function it calls, found by walking the Python functions'
globals, module attributes and closure cells for Numba dispatchers,
transitively; the sources of those files' top-level packages (so a helper
reached through ``numba.extending.overload`` or a first-class function in the
same package is covered too); and bandsim's kernel sources
(:data:`bandsim.kernels._jit.SOURCE_DIGEST`). An edit of any of them gives
the hook a new cache key, the same way :mod:`bandsim.kernels._jit` keys the
built-in kernels. A hook that reaches a function without a source file (code
typed into a notebook or ``exec``'d) is not cached at all: it is compiled in
every process.
"""
import hashlib
import sys
import types
from pathlib import Path

from numba.core.caching import CompileResultCacheImpl, FunctionCache, NullCache

from . import provenance
from .kernels import _jit


def _is_dispatcher(obj):
    return hasattr(obj, "py_func") and hasattr(obj, "overloads")


def _code_objects(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _code_objects(c)


def _callees(py):
    """The Numba dispatchers a Python function names: globals, ``module.attr`` chains
    (to any depth of the names it uses), closure cells and default arguments."""
    names = {n for c in _code_objects(py.__code__) for n in c.co_names}
    found, seen_mods = [], set()
    values = [py.__globals__.get(n) for n in names]
    values += [c.cell_contents for c in (py.__closure__ or ()) if _filled(c)]
    values += list(py.__defaults__ or ())
    while values:
        v = values.pop()
        if _is_dispatcher(v):
            found.append(v)
        elif isinstance(v, types.ModuleType) and id(v) not in seen_mods:
            seen_mods.add(id(v))
            values += [getattr(v, n, None) for n in names]
    return found


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return True


def reachable(fn):
    """Every Numba dispatcher ``fn`` can call, transitively, ``fn`` first.

    Parameters
    ----------
    fn : numba dispatcher

    Returns
    -------
    list of numba dispatcher
    """
    out, todo, seen = [], [fn], set()
    while todo:
        d = todo.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        out.append(d)
        todo += _callees(d.py_func)
    return out


def reach_digest(fn):
    """SHA-256 (first 20 hex digits) of everything the compiled ``fn`` can contain, or None.

    Parameters
    ----------
    fn : numba dispatcher

    Returns
    -------
    str or None
        The digest of the source files of :func:`reachable` functions, of
        their top-level packages (bandsim's own excluded) and of bandsim's
        kernel sources; None when some reachable function has no source file
        (it cannot be keyed: do not cache).
    """
    files, tops = {}, set()
    for d in reachable(fn):
        path = Path(d.py_func.__code__.co_filename)
        if not path.is_file():
            return None
        module = getattr(d.py_func, "__module__", None) or ""
        files[path.resolve()] = f"{module}:{path.name}"  # not the path: the same code
        top = module.split(".")[0]                        # elsewhere has the same key
        if top and top != "bandsim" and top in sys.modules:
            tops.add(top)
    h = hashlib.sha256(_jit.SOURCE_DIGEST.encode() + b"\0")
    for f, name in sorted(files.items(), key=lambda x: x[1]):
        h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
    for top in sorted(tops):
        h.update(top.encode() + b"\0" + provenance.source_digest(top).encode() + b"\0")
    return h.hexdigest()[:20]


class _ReachCacheImpl(CompileResultCacheImpl):
    """Numba's cache implementation, with the hook's reach digest in the file name."""

    tag = ""

    def get_filename_base(self, fullname, abiflags):
        return super().get_filename_base(fullname, abiflags) + self.tag


def _cache_for(py_func, digest):
    impl = type("_Impl", (_ReachCacheImpl,), {"tag": f".reach{digest}"})
    return type("_ReachCache", (FunctionCache,), {"_impl_class": impl})(py_func)


def enable_cache(fn):
    """Cache a plug-in's Numba function on disk under its reach digest (best effort).

    Before its first compilation (which is then saved). A function that is
    compiled already, or cached under a key of bandsim's, is left alone.
    Nothing is cached for a function that is not a module-level function of
    an imported file (``exec``'d code, a closure), reaches a function without
    a source file, or has no writable cache location. Numba's own cache of a
    function the author declared ``cache=True`` — the hook or any function it
    reaches — is replaced by the digest-keyed one (or by none), because it
    would not see the function's callees change.

    Parameters
    ----------
    fn : object
        A plug-in's kernel or hook; anything that is not a Numba dispatcher
        is left alone.
    """
    if not hasattr(fn, "enable_caching"):
        return
    for d in reachable(fn):
        if d is fn or type(getattr(d, "_cache", None)) is FunctionCache:
            _rekey(d)


def declaration_reach(decl):
    """SHA-256 (first 20 hex digits) of every source a declaration's Numba code can reach.

    The roots are the declaration's Numba functions (hooks, kernels) and the
    Numba functions its plain Python callables (``plan``, laws) name; the
    digest combines their :func:`reach_digest`. A plug-in's provenance
    records it (``reach``, :func:`bandsim.registry.plugin_provenance`), so the
    results store's key changes when a helper in another module does, as the
    compiled-hook cache's does.

    Parameters
    ----------
    decl : bandsim.Algorithm or bandsim.Mechanism

    Returns
    -------
    str or None
        None when it has no Numba code, or reaches code without a source file.
    """
    roots = []
    for value in vars(decl).values():
        for v in (value.values() if isinstance(value, dict) else (value,)):
            if _is_dispatcher(v):
                roots.append(v)
            elif isinstance(v, types.FunctionType):
                roots += _callees(v)
    digests = {reach_digest(r) for r in roots}
    if not digests or None in digests:
        return None
    return hashlib.sha256("\0".join(sorted(digests)).encode()).hexdigest()[:20]


def with_reach(source, decl, builtin):
    """A copy of the provenance ``source`` of ``decl``, with ``reach``
    (:func:`declaration_reach`) unless its distribution is ``builtin`` (bandsim's own)."""
    if source.get("distribution") == builtin:
        return dict(source)
    return dict(source, reach=declaration_reach(decl))


def rekey_modules(decl):
    """Rekey Numba's own caches in the modules a plug-in's declaration comes from.

    Every Numba function of those modules that its author declared
    ``cache=True`` (e.g. the kernels of an engine of the plug-in's own, which
    bandsim never compiles as a hook) gets the digest-keyed cache of
    :func:`enable_cache`, as do the cached functions they reach, before any
    is compiled.

    Parameters
    ----------
    decl : bandsim.Algorithm or bandsim.Mechanism
    """
    for name in sorted(provenance.modules_of(decl)):
        module = sys.modules.get(name)
        if module is None or name.split(".")[0] == "bandsim":
            continue
        for obj in list(vars(module).values()):
            if _is_dispatcher(obj) and type(getattr(obj, "_cache", None)) is FunctionCache:
                enable_cache(obj)


def _rekey(fn):
    if fn.signatures or type(fn._cache) not in (FunctionCache, NullCache):
        return  # compiled already, or cached under bandsim's key (kernels, done before)
    module = sys.modules.get(getattr(fn.py_func, "__module__", None))
    source = getattr(module, "__file__", None) or ""
    digest = None
    if (source.endswith(".py") and source == fn.py_func.__code__.co_filename
            and not fn.py_func.__closure__):  # a module-level function of an imported file
        digest = reach_digest(fn)
    try:
        fn._cache = _cache_for(fn.py_func, digest) if digest else NullCache()
    except Exception:  # no writable location
        fn._cache = NullCache()


__all__ = ["declaration_reach", "enable_cache", "reach_digest", "reachable", "rekey_modules",
           "with_reach"]
