"""An edited kernel reaches its cached callers in other files, for every Numba cache locator.

Numba keys a cached kernel on its own file only. The guard in
``kernels/_jit.py`` puts a digest of all kernel sources into every cache file
name. Each test copies the ``kernels`` package to a temporary directory, adds
a caller module, runs the caller in a fresh interpreter (which compiles and
caches it), edits the callee ``samplers.skellam`` in another file, and runs
the caller again in a new interpreter: it must see the edit. The three
locators are Numba's in-tree ``__pycache__``, ``NUMBA_CACHE_DIR`` and the
user-wide cache (forced with ``NUMBA_CACHE_LOCATOR_CLASSES``, as a read-only
install would get it).
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[1] / "kernels"

CALLER = '''\
from ._jit import jit
from .samplers import skellam


@jit
def caller(rng):
    return skellam(rng, 4.0)
'''

EDIT = '''

@jit
def skellam(rng, mu):  # edited by tests/test_jit_cache.py: no noise at all
    return 777
'''

RUN = ("import numpy as np, kernels, kernels._probe as p; "
       "print(kernels.__file__); print(p.caller(np.random.default_rng(0)))")


def _start(root, env):
    return subprocess.Popen([sys.executable, "-c", RUN], cwd=root, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _result(proc, root):
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    where, value = out.split()
    assert Path(where).resolve().is_relative_to(root), f"imported {where}, not the copy"
    return int(value)


def _run_all(cases):
    """Run the caller once in every case's copy, in parallel; returns {locator: value}."""
    procs = {name: _start(root, env) for name, (root, env, _) in cases.items()}
    return {name: _result(proc, cases[name][0]) for name, proc in procs.items()}


def _caller_cache(base):
    return sorted(base.rglob("_probe.caller-*.nbi"))


def _case(tmp_path, locator):
    """A copy of the package plus the environment that selects ``locator``."""
    root = tmp_path / locator / "pkg"
    shutil.copytree(KERNELS, root / "kernels", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "kernels" / "_probe.py").write_text(CALLER)
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES", "NUMBA_DISABLE_JIT")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if locator == "in-tree":
        cache = root / "kernels" / "__pycache__"
    elif locator == "NUMBA_CACHE_DIR":
        cache = tmp_path / locator / "cache"
        env["NUMBA_CACHE_DIR"] = str(cache)
    else:
        cache = tmp_path / locator / "xdg"
        env["XDG_CACHE_HOME"] = str(cache)
        env["NUMBA_CACHE_LOCATOR_CLASSES"] = "UserWideCacheLocator"
    return root, env, cache


def test_cached_caller_sees_an_edited_callee(tmp_path):
    cases = {loc: _case(tmp_path, loc) for loc in ("in-tree", "NUMBA_CACHE_DIR", "user-wide")}
    before = _run_all(cases)
    first = {}
    for loc, (root, env, cache) in cases.items():
        assert before[loc] != 777
        first[loc] = _caller_cache(cache)
        assert len(first[loc]) == 1, f"{loc}: the caller was not cached under {cache}"
        with open(root / "kernels" / "samplers.py", "a") as f:
            f.write(EDIT)

    after = _run_all(cases)
    stale = [loc for loc in cases if after[loc] != 777]
    assert not stale, f"a stale cached caller ran the old sampler: {', '.join(stale)}"
    for loc, (root, env, cache) in cases.items():
        second = _caller_cache(cache)
        # a new cache key, and the stale entry was swept
        assert len(second) == 1 and second != first[loc], loc

    # unchanged sources: the cache is reused, not rebuilt
    root, env, cache = cases["NUMBA_CACHE_DIR"]
    (entry,) = _caller_cache(cache)
    stamp = entry.stat().st_mtime_ns
    assert _result(_start(root, env), root) == 777
    assert _caller_cache(cache) == [entry] and entry.stat().st_mtime_ns == stamp
