"""Where a plug-in's declarations come from: distribution, version and a digest of its code.

Every result records the provenance of the plug-in code behind it
(``config["plugins"]``), and the result store keys results by their
configuration, so a changed plug-in is never answered from old files.
"""
import hashlib
import importlib.util
import inspect
import sys
from functools import lru_cache
from pathlib import Path

#: Distribution name given to declarations defined outside any installed distribution.
RUN_TIME = "(run time)"


def dist_name(ep):
    """The distribution that provides an entry point (``unknown`` if not known)."""
    dist = getattr(ep, "dist", None)
    return getattr(dist, "name", None) or "unknown"


def of_entry_point(ep):
    """Provenance of an entry point of the group ``bandsim.plugins`` (dict).

    Keys: ``distribution``, ``version``, ``entry_point`` (``name = value``),
    ``modules`` (the top-level package) and ``sha256`` of its sources.
    """
    dist = getattr(ep, "dist", None)
    module = ep.value.split(":")[0].strip()
    top = module.split(".")[0]
    return dict(distribution=dist_name(ep), version=getattr(dist, "version", None) or "",
                entry_point=f"{ep.name} = {ep.value}", modules=[top],
                sha256=source_digest(top))


def of_declarations(declarations):
    """Provenance of declarations registered at run time: their defining modules' code."""
    mods = sorted({m for d in declarations for m in modules_of(d)})
    tops = sorted({m.split(".")[0] for m in mods if not m.startswith("bandsim")})
    dists = sorted({name for top in tops for name in _dists_of(top)})
    h = hashlib.sha256()
    for top in tops:
        h.update(top.encode() + b"\0" + source_digest(top).encode() + b"\0")
    return dict(distribution=", ".join(dists) or RUN_TIME,
                version=", ".join(_version(d) for d in dists), modules=tops,
                sha256=h.hexdigest())


def modules_of(decl):
    """Names of the modules that define a declaration's callables (numba functions by their
    Python function), or the declaration's class's module."""
    out = set()
    for value in vars(decl).values():
        values = value.values() if isinstance(value, dict) else [value]
        for v in values:
            v = getattr(v, "py_func", v)  # numba dispatchers
            if callable(v) and getattr(v, "__module__", None):
                out.add(v.__module__)
    return out or {type(decl).__module__}


@lru_cache(maxsize=None)
def _dists_of(top):
    from importlib.metadata import packages_distributions

    return tuple(packages_distributions().get(top, ()))


def _version(dist):
    from importlib.metadata import version

    try:
        return version(dist)
    except Exception:
        return ""


def _files(top):
    mod = sys.modules.get(top)
    path = getattr(mod, "__file__", None)
    if path is None:
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        path = getattr(spec, "origin", None)
    if path is None or not Path(path).exists():
        return []
    path = Path(path)
    if path.name == "__init__.py":
        return sorted(path.parent.rglob("*.py"))
    return [path]


def source_digest(top):
    """SHA-256 (hex) of the Python sources of a top-level module or package, as on disk now."""
    h = hashlib.sha256()
    files = _files(top)
    root = files[0].parent if files else None
    for f in files:
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    if not files and top == "__main__":
        try:
            h.update(inspect.getsource(sys.modules["__main__"]).encode())
        except (OSError, TypeError, KeyError):
            pass
    return h.hexdigest()


__all__ = ["RUN_TIME", "dist_name", "modules_of", "of_declarations", "of_entry_point",
           "source_digest"]
