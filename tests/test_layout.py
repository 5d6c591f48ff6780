"""The house rules that keep bandsim simple, checked on the source tree.

- kernel code (``kernels/``, installed as ``bandsim.kernels``) imports nothing
  from the Python layer: only its own modules, the standard library, numpy
  and numba;
- the Python layer has no import cycles (module-level imports);
- every package directory is listed in pyproject.toml (the wheel installs
  nothing at the top level but ``bandsim``);
- no module is longer than the design's limit;
- nothing outside the registry looks algorithms up by name in a table;
- a layer order, kernels → core → mechanisms → privacy → algorithms →
  studies → cli: no module imports from a layer above its own, at module
  level or inside a function;
- a function-level import of a bandsim module is allowed only when the module
  loads an optional heavy dependency (scipy, matplotlib, dask, sklearn,
  pyarrow, dp-accounting, pandas) and their number only goes down.
"""
import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL_OK = {"math", "numpy", "numba", "hashlib", "pathlib", "os", "types", "sys", "json", "typing",
             "importlib", "__future__",
             "llvmlite"}  # numba's backend: binds SciPy's compiled special functions by symbol
MAX_LINES = 600

#: The layers, lowest first.
LAYERS = ("kernels", "core", "mechanisms", "privacy", "algorithms", "studies", "cli")
#: Sub-packages and modules whose layer is not "core".
LAYER_OF = {
    "kernels": "kernels", "mechanisms": "mechanisms", "privacy": "privacy",
    "algorithms": "algorithms", "runner": "algorithms", "wholerun": "algorithms",
    "studies": "studies", "cli": "cli", "env": "algorithms", "bai": "algorithms",
    "gym": "algorithms",
    # the public facades import everything
    "__init__": "cli", "plugin": "cli",
    # the public kernel API re-exports kernels only: usable from the lowest layer up
    "backend": "core",
}
#: Modules of a package placed in a lower layer: the exact laws are mathematics only
#: (numpy, scipy), which mechanisms declare their noise with.
MODULE_LAYER = {"bandsim.privacy.pmf": "core", "bandsim.privacy.divergences": "core"}
#: Optional heavy dependencies a function-level import may defer.
HEAVY = {"scipy", "matplotlib", "dask", "distributed", "sklearn", "pyarrow", "dp_accounting",
         "pandas"}
#: Function-level imports of bandsim modules that load nothing heavy: a ratchet (141 of
#: the 156 function-level imports were such before the layers were enforced); none is
#: left. Lower it, never raise it.
MAX_LIGHT_LAZY = 0


def imports(path):
    """(level, module, names) of every import statement of a file, with its depth."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        top = node in tree.body
        if isinstance(node, ast.Import):
            out += [(0, a.name, [], top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.level, node.module or "", [a.name for a in node.names], top))
    return out


def test_kernels_import_nothing_from_the_python_layer():
    bad = []
    for f in sorted((ROOT / "kernels").glob("*.py")):
        for level, mod, _, _ in imports(f):
            if level > 1 or (level == 0 and mod.split(".")[0] not in KERNEL_OK):
                bad.append(f"{f.name}: {'.' * level}{mod}")
    assert not bad, bad


def module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "kernels":
        parts = ["bandsim", *parts]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve(current, is_pkg, level, mod):
    if level == 0:
        return mod
    base = current.split(".")
    base = base if is_pkg else base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([mod] if mod else []))


def test_no_import_cycles():
    files = sorted((ROOT / "bandsim").rglob("*.py")) + sorted((ROOT / "kernels").glob("*.py"))
    names = {module_name(f): f for f in files}
    graph = {}
    for name, f in names.items():
        edges = set()
        for level, mod, items, top in imports(f):
            if not top:
                continue  # imports inside functions run late: not part of the import graph
            target = resolve(name, f.name == "__init__.py", level, mod)
            for cand in [f"{target}.{i}" for i in items] + [target]:
                if cand in names and cand != name:
                    edges.add(cand)
                    break
        graph[name] = edges
    # Tarjan's strongly connected components
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10_000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not sccs, sccs


def test_pyproject_lists_every_package_and_nothing_else_at_the_top_level():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    found = {module_name(p / "__init__.py") for p in (ROOT / "bandsim").rglob("*")
             if (p / "__init__.py").exists()} | {"bandsim", "bandsim.kernels"}
    assert listed == found
    assert all(p == "bandsim" or p.startswith("bandsim.") for p in listed)
    assert conf["package-dir"] == {"bandsim.kernels": "kernels"}


def test_no_module_is_too_long():
    long = [f"{f.relative_to(ROOT)} ({n} lines)" for f in
            list((ROOT / "bandsim").rglob("*.py")) + list((ROOT / "kernels").glob("*.py"))
            if (n := len(f.read_text().splitlines())) > MAX_LINES]
    assert not long, long


def test_nothing_outside_the_registry_compares_algorithm_names():
    from bandsim.registry import algorithms, mechanisms

    # algorithm names, and the mechanism names that are not also plain words
    # ("local", "laplace", "none" are a backend and privacy kinds too)
    names = set(algorithms()) | {m for m in mechanisms() if "-" in m}
    pattern = re.compile(r"""(==|!=|\bin)\s*\(?\s*["']([a-z0-9-]+)["']""")
    hits = []
    for f in (ROOT / "bandsim").rglob("*.py"):
        if f.name == "registry.py":
            continue
        for i, line in enumerate(f.read_text().splitlines(), 1):
            for m in pattern.finditer(line):
                if m.group(2) in names:
                    hits.append(f"{f.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not hits, hits


def test_version_has_one_source():
    import bandsim

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" in conf["project"]["dynamic"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", bandsim.__version__)
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def layer(module):
    """The layer of a module of the bandsim namespace (``bandsim.kernels.*`` included)."""
    if module in MODULE_LAYER:
        return LAYERS.index(MODULE_LAYER[module])
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    return LAYERS.index(LAYER_OF.get(key, "core"))


def bandsim_imports():
    """(module, target, at module level) for every import of a bandsim module."""
    files = sorted((ROOT / "bandsim").rglob("*.py")) + sorted((ROOT / "kernels").glob("*.py"))
    names = {module_name(f): f for f in files}
    out = []
    for name, f in names.items():
        for level, mod, items, top in imports(f):
            if level == 0 and not mod.startswith("bandsim"):
                continue
            target = resolve(name, f.name == "__init__.py", level, mod)
            subs = [f"{target}.{i}" for i in items if f"{target}.{i}" in names]
            out += [(name, t, top) for t in (subs or [target]) if t in names]
    return names, out


def heavy_modules(names, edges):
    """Modules that load a heavy dependency at import (directly or through bandsim modules)."""
    direct = {n for n, f in names.items()
              if any(top and level == 0 and mod.split(".")[0] in HEAVY
                     for level, mod, _, top in imports(f))}
    top_edges = {}
    for src, dst, top in edges:
        if top:
            top_edges.setdefault(src, set()).add(dst)
    heavy, changed = set(direct), True
    while changed:
        changed = False
        for src, dsts in top_edges.items():
            if src not in heavy and dsts & heavy:
                heavy.add(src)
                changed = True
    return heavy


def test_no_module_imports_from_a_layer_above_its_own():
    _, edges = bandsim_imports()
    bad = sorted({f"{src} ({LAYERS[layer(src)]}) imports {dst} ({LAYERS[layer(dst)]})"
                  f"{'' if top else ' inside a function'}"
                  for src, dst, top in edges if layer(dst) > layer(src)})
    assert not bad, bad


def test_function_level_imports_defer_only_heavy_dependencies():
    names, edges = bandsim_imports()
    heavy = heavy_modules(names, edges)
    light = sorted(f"{src} -> {dst}" for src, dst, top in edges
                   if not top and dst not in heavy and dst != src)
    assert len(light) <= MAX_LIGHT_LAZY, (len(light), light)


def test_the_command_line_loads_no_exact_law_toolkit_at_import():
    # scipy.special (~30-100 ms) loads at the first exact law evaluated, not at import:
    # `bandsim run` with a warm Numba cache evaluates none (cold start of the CLI).
    import subprocess

    code = ("import sys, bandsim, bandsim.cli, bandsim.plugin; "
            "print(sorted(m for m in ('scipy.special', 'scipy.stats') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_the_public_kernel_api_imports_kernels_only():
    # bandsim.backend is what users' @njit code imports: nothing of the Python layer
    _, edges = bandsim_imports()
    bad = [dst for src, dst, _ in edges
           if src == "bandsim.backend" and not dst.startswith("bandsim.kernels")]
    assert not bad, bad
