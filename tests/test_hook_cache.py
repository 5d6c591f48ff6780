"""A plug-in's compiled hooks cannot go stale: the disk cache of a hook is keyed by every
source it can reach, so an edit of a helper in another module is seen by the next process."""
import os
import subprocess
import sys

import numba

import bandsim
from bandsim import hookcache
from tests.conftest import numba_cache_dir

HELPER_V1 = '''
import numba


@numba.njit
def estimate(n, k):  # the analyzer's estimate: the true count
    return float(k)
'''

HELPER_V2 = '''
import numba


@numba.njit
def estimate(n, k):  # edited: the count of zeros instead (a realistic sign slip)
    return float(n - k) + 0.0
'''

PLUGIN = '''
import numba
import numpy as np

import bandsim
from bandsim.algorithms.elimination import plan_protocol
from bandsim.mechanisms.families import DataDependent
from bandsim.mechanisms.release import ReleaseBatch
from bandsim.params import EPSILON, GROWTH, P

import stale_helper


@numba.njit
def release(rng, n, k, fpar):
    return stale_helper.estimate(n, k)


bandsim.register(DataDependent(
    name="stale-probe", summary="s", source="s", trust="local ε-DP", release=release,
    release_law=lambda n, k, fpar: (np.array([float(k)]), np.array([1.0])),
    batch=lambda n, epsilon: ReleaseBatch("stale-probe", n, (0.5,), dict(epsilon=epsilon),
                                          sigma=1.0)), replace=True)
bandsim.register(bandsim.Algorithm(
    name="stale-probe-se", summary="s", trust="local ε-DP", source="s",
    params=(EPSILON, P, GROWTH), mechanism="stale-probe",
    plan=lambda prm, arms, horizon: plan_protocol("stale-probe", prm, arms, horizon)),
    replace=True)
'''

RUN = '''
import bandsim, stale_plugin
res = bandsim.simulate("stale-probe-se", instance="C2", arms=3, epsilon=1.0,
                       horizon=20_000, runs=2, seed=1)
print(float(res.pseudo_regret[:, -1].sum()))
'''


def _run(directory):
    env = dict(os.environ, PYTHONPATH=str(directory), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-c", RUN], cwd=directory, env=env, text=True,
                          capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return float(proc.stdout.split()[-1])


def _plugin(directory, helper):
    directory.mkdir()
    (directory / "stale_helper.py").write_text(helper)
    (directory / "stale_plugin.py").write_text(PLUGIN)


def test_an_edited_helper_in_another_module_is_run_by_the_next_process(tmp_path):
    d = tmp_path / "plugin"
    _plugin(d, HELPER_V1)
    honest = _run(d)
    cached = sorted(p.name for p in numba_cache_dir(d).glob("stale_plugin.release-*.nbi"))
    assert cached and all(".reach" in n for n in cached), cached  # the hook was cached
    assert _run(d) == honest  # and the cache serves the same code again
    (d / "stale_helper.py").write_text(HELPER_V2)
    edited = _run(d)
    control = tmp_path / "control"  # the edited plug-in, never cached before
    _plugin(control, HELPER_V2)
    assert edited == _run(control) != honest
    assert edited > 10 * honest  # the inverted estimate eliminates the best arm


def test_the_reach_digest_sees_helpers_in_other_modules_and_closures(tmp_path, monkeypatch):
    (tmp_path / "reach_a.py").write_text(
        "import numba\nimport reach_b\n\n\n@numba.njit\ndef f(x):\n"
        "    return reach_b.g(x) + 1\n")
    (tmp_path / "reach_b.py").write_text(
        "import numba\nfrom reach_c import h\n\n\n@numba.njit\ndef g(x):\n    return h(x)\n")
    (tmp_path / "reach_c.py").write_text("import numba\n\n\n@numba.njit\ndef h(x):\n"
                                         "    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import reach_a

    names = {d.py_func.__name__ for d in hookcache.reachable(reach_a.f)}
    assert names == {"f", "g", "h"}
    before = hookcache.reach_digest(reach_a.f)
    (tmp_path / "reach_c.py").write_text("import numba\n\n\n@numba.njit\ndef h(x):\n"
                                         "    return 3 * x\n")
    assert hookcache.reach_digest(reach_a.f) != before  # two modules away

    @numba.njit
    def inner(x):
        return x

    @numba.njit
    def outer(x):
        return inner(x)

    assert {d.py_func.__name__ for d in hookcache.reachable(outer)} == {"outer", "inner"}


def test_a_cache_true_helper_is_rekeyed_and_unkeyable_code_is_not_cached(tmp_path,
                                                                         monkeypatch):
    from numba.core.caching import FunctionCache, NullCache

    (tmp_path / "rk_helper.py").write_text("import numba\n\n\n@numba.njit(cache=True)\n"
                                           "def g(x):\n    return x + 1.0\n")
    (tmp_path / "rk_hook.py").write_text("import numba\nfrom rk_helper import g\n\n\n"
                                         "@numba.njit(cache=True)\ndef f(x):\n"
                                         "    return g(x)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import rk_helper
    import rk_hook

    assert type(rk_helper.g._cache) is FunctionCache  # Numba's: blind to g's callees
    hookcache.enable_cache(rk_hook.f)
    for fn in (rk_hook.f, rk_helper.g):
        assert isinstance(fn._cache, FunctionCache) and type(fn._cache) is not FunctionCache
        assert ".reach" in fn._cache._impl.get_filename_base("x", "")
    ns = {}
    exec("import numba\n@numba.njit(cache=False)\ndef typed(x):\n    return x\n", ns)
    hookcache.enable_cache(ns["typed"])
    assert isinstance(ns["typed"]._cache, NullCache)


def test_cache_true_kernels_of_a_plugins_own_module_are_rekeyed_at_registration(
        tmp_path, monkeypatch):
    """An engine of the plug-in's own (never compiled as a hook) whose ``cache=True`` kernel
    calls a helper in another module: registering the plug-in rekeys its cache."""
    from numba.core.caching import FunctionCache

    (tmp_path / "own_helper.py").write_text("import numba\n\n\n@numba.njit\ndef g(x):\n"
                                            "    return x + 1.0\n")
    (tmp_path / "own_engine.py").write_text(
        "import numba\nimport bandsim\nfrom bandsim.params import EPSILON\n"
        "from own_helper import g\n\n\n@numba.njit(cache=True)\ndef step(x):\n"
        "    return g(x)\n\n\n"
        "ALGO = bandsim.Algorithm(name='own-engine', summary='s', trust='none', source='s',\n"
        "                         params=(), plan=lambda prm, arms, horizon: None)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import own_engine

    assert type(own_engine.step._cache) is FunctionCache  # Numba's: blind to g
    bandsim.register(own_engine.ALGO, replace=True)
    try:
        cache = own_engine.step._cache
        assert type(cache) is not FunctionCache and isinstance(cache, FunctionCache)
        assert ".reach" in cache._impl.get_filename_base("x", "")
    finally:
        bandsim.registry.unregister("own-engine")


def test_the_store_key_sees_an_edited_helper_in_another_module(tmp_path, monkeypatch):
    """The results store is a cache too: its key holds the plug-in's reach digest, so a job
    is not answered from a file computed before the helper was edited."""
    import sys

    from bandsim.studies.store import identity, key

    d = tmp_path / "plugin"
    _plugin(d, HELPER_V1)
    monkeypatch.syspath_prepend(str(d))
    import stale_plugin  # noqa: F401  (registers stale-probe and stale-probe-se)

    try:
        job = dict(algorithm="stale-probe-se", instance="C2", arms=3, epsilon=1.0,
                   horizon=20_000, runs=2, seed=1)
        algo = bandsim.registry.get_algorithm(job["algorithm"])
        prov = bandsim.registry.plugin_provenance(algo)
        assert [p["declares"] for p in prov if p["reach"]] == ["mechanism stale-probe"]
        before = key(identity(job))
        (d / "stale_helper.py").write_text(HELPER_V2)  # stale_plugin.py itself is unchanged
        for name, get in (("stale-probe", bandsim.registry.get_mechanism),
                          ("stale-probe-se", bandsim.registry.get_algorithm)):
            bandsim.register(get(name), replace=True)  # as a new process would load it
        assert key(identity(job)) != before
    finally:
        bandsim.registry.unregister("stale-probe-se", "stale-probe")
        for m in ("stale_plugin", "stale_helper"):
            sys.modules.pop(m, None)


def test_the_audit_cache_key_sees_an_edited_plugin_law(tmp_path, monkeypatch):
    """Exact audits are cached across processes; a plug-in's exact law is its own code, so
    an edit of the module that declares it is another key (no stale PASS)."""
    import sys

    from bandsim.privacy.auditcache import audit_key
    from bandsim.privacy.release import audit_release

    d = tmp_path / "plugin"
    _plugin(d, HELPER_V1)
    monkeypatch.syspath_prepend(str(d))
    import stale_plugin  # noqa: F401

    try:
        b = bandsim.registry.get_mechanism("stale-probe").derive(8, {"epsilon": 1.0})
        before = audit_key("stale-probe", audit_release, b, "stale-probe-se", None)
        (d / "stale_plugin.py").write_text(PLUGIN.replace("[float(k)]", "[float(k) + 0.0]"))
        bandsim.register(bandsim.registry.get_mechanism("stale-probe"), replace=True)
        assert audit_key("stale-probe", audit_release, b, "stale-probe-se", None) != before
    finally:
        bandsim.registry.unregister("stale-probe-se", "stale-probe")
        for m in ("stale_plugin", "stale_helper"):
            sys.modules.pop(m, None)


def test_the_reach_digest_does_not_depend_on_where_the_code_lies(tmp_path, monkeypatch):
    """The same plug-in in two directories (two machines, two checkouts) has one digest, so
    a study directory moved elsewhere resumes from its files."""
    import importlib
    import sys

    digests = []
    for where in ("one", "two"):
        d = tmp_path / where
        d.mkdir()
        (d / "moved_a.py").write_text("import numba\nimport moved_b\n\n\n@numba.njit\n"
                                      "def f(x):\n    return moved_b.g(x)\n")
        (d / "moved_b.py").write_text("import numba\n\n\n@numba.njit\ndef g(x):\n"
                                      "    return x\n")
        for m in ("moved_a", "moved_b"):
            sys.modules.pop(m, None)
        monkeypatch.syspath_prepend(str(d))
        digests.append(hookcache.reach_digest(importlib.import_module("moved_a").f))
    for m in ("moved_a", "moved_b"):
        sys.modules.pop(m, None)
    assert digests[0] is not None and digests[0] == digests[1]
