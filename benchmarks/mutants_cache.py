"""A warm Numba cache shared by every mutant: only the kernels a mutant can reach recompile.

The kernels' cache key (``kernels/_jit.py``) carries a digest of every kernel
source, so a mutated copy of the code would recompile every engine (20–40 s
each). A mutant tree instead fixes that digest to a constant (the patch of
:func:`pin_digest`) and lives at one fixed path, so Numba's own key (the
defining file's path, modification time and size, the function's qualified
name and first line) finds the cached machine code of the untouched modules.
What Numba cannot see — a cached caller compiled against a callee that is now
mutated — is handled here: :func:`stale` is the set of kernels that can reach
a function of the mutated module (a static call graph over ``kernels/``: every
name a function references that resolves to a kernel of this package, through
its module's imports), and :func:`prepare` gives the mutant a cache that is the
baseline cache (hard links) without those kernels' entries. After the mutant,
:func:`harvest` copies the entries it compiled for kernels that are not stale
back into the baseline, so the baseline warms up as the table runs.
"""
import ast
import os
import re
import shutil
from pathlib import Path

from .mutants_gen import ROOT

_DIGEST_LINE = re.compile(r"^SOURCE_DIGEST = _source_digest\(\)$", re.M)


def pinned():
    """The digest every mutant tree's ``kernels/_jit.py`` uses: that of the unmutated
    sources, so the repository's own cache files (same name, same source stamps: the
    tree's copies keep their modification times) are valid in a mutant tree."""
    from bandsim.kernels._jit import SOURCE_DIGEST

    return SOURCE_DIGEST


def pin_digest(jit_py):
    """Rewrite ``jit_py`` (a tree's ``_jit.py``) with the digest :func:`pinned`, keeping
    its modification time. Raises LookupError if the assignment moved."""
    p = Path(jit_py)
    st = p.stat()
    src, n = _DIGEST_LINE.subn(f'SOURCE_DIGEST = "{pinned()}"', p.read_text())
    if n != 1:
        raise LookupError(f"{p}: no 'SOURCE_DIGEST = _source_digest()' line to pin")
    p.write_text(src)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))


def call_graph(kdir=ROOT / "kernels"):
    """{(module, function): set of (module, function) it references} over ``kdir``."""
    mods = {p.stem: ast.parse(p.read_text()) for p in sorted(Path(kdir).glob("*.py"))}
    defs = {m: {n.name for n in t.body if isinstance(n, ast.FunctionDef)} for m, t in mods.items()}
    graph = {}
    for m, tree in mods.items():
        names, modnames = {f: (m, f) for f in defs[m]}, {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                for a in node.names:
                    if node.module is None and a.name in mods:
                        modnames[a.asname or a.name] = a.name
                    elif node.module in mods and a.name in defs[node.module]:
                        names[a.asname or a.name] = (node.module, a.name)
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
            out = set()
            for sub in ast.walk(fn):
                if isinstance(sub, ast.Name) and sub.id in names:
                    out.add(names[sub.id])
                elif (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                      and sub.value.id in modnames and sub.attr in defs[modnames[sub.value.id]]):
                    out.add((modnames[sub.value.id], sub.attr))
            graph[(m, fn.name)] = out
    return graph


def stale(file, graph=None):
    """The kernels whose cached code a mutant of ``file`` makes stale: every function of
    the mutated module and every function that reaches one (set of (module, function));
    empty for a file outside ``kernels/``."""
    if not file.startswith("kernels/"):
        return set()
    graph = call_graph() if graph is None else graph
    mod = Path(file).stem
    out = {k for k in graph if k[0] == mod}
    grew = True
    while grew:
        new = {k for k, refs in graph.items() if k not in out and refs & out}
        out |= new
        grew = bool(new)
    return out


def _owner(name):
    """(module, function) of a cache file name ``module.function-line.pyXY…``."""
    head = name.split("-", 1)[0]
    mod, _, fn = head.partition(".")
    return mod, fn.split(".")[0]


def _subdir(cache, src_dir):
    """Numba's cache directory of the files of ``src_dir`` under ``NUMBA_CACHE_DIR=cache``."""
    from numba.core.caching import _CacheLocator

    return Path(cache) / _CacheLocator.get_suitable_cache_subpath(str(Path(src_dir) / "any.py"))


def seed(base, tree):
    """Link into cache ``base`` (for the kernels of mutant tree ``tree``) the repository's
    own cache files of the unmutated kernels (those carrying :func:`pinned`) that it
    lacks: a suite or a table run that compiled them leaves nothing to recompile; how
    many."""
    from numba.core import config

    src = (_subdir(config.CACHE_DIR, ROOT / "kernels") if config.CACHE_DIR
           else ROOT / "kernels" / "__pycache__")
    dst = _subdir(base, Path(tree) / "bandsim" / "kernels")
    tag, n = f".src{pinned()}.", 0
    if not src.is_dir():
        return 0
    dst.mkdir(parents=True, exist_ok=True)
    for p in src.iterdir():
        if tag in p.name and p.suffix in (".nbi", ".nbc") and not (dst / p.name).exists():
            shutil.copy2(p, dst / p.name)
            n += 1
    return n


def prepare(base, dest, drop):
    """Make ``dest`` a hard-linked copy of cache ``base`` without the entries of the
    kernels in ``drop`` (set of (module, function)); Numba replaces files by rename,
    so the baseline is never written through a link."""
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    Path(base).mkdir(parents=True, exist_ok=True)
    shutil.copytree(base, dest, copy_function=os.link,
                    ignore=lambda d, names: [n for n in names if _owner(n) in drop])


def harvest(base, used, drop):
    """Copy into ``base`` the cache files of ``used`` that are new or rewritten, except
    those of the kernels in ``drop``; how many."""
    base, used, n = Path(base), Path(used), 0
    for p in used.rglob("*"):
        if not p.is_file() or _owner(p.name) in drop:
            continue
        q = base / p.relative_to(used)
        if q.exists() and q.stat().st_ino == p.stat().st_ino:
            continue
        q.parent.mkdir(parents=True, exist_ok=True)
        tmp = q.with_name(q.name + ".tmp")
        shutil.copy2(p, tmp)
        os.replace(tmp, q)
        n += 1
    return n
