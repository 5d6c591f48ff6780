"""The data-dependent release family and the one kernel path for plug-ins.

- randomized response (docs/plugins.md, example (e)) draws its declared exact
  law through the engines' own dispatch (G-test, α = 10⁻⁶), and so does a
  slow per-user reference; the twin that flips with half the probability
  is rejected by the same test (negative control) and FAILs ``--sampled``;
- the elimination engine really calls ``release`` (a release that ignores
  the data eliminates nothing);
- kernel keys nothing consumes, plain functions, wrong signatures and wrong
  codes are refused at registration;
- a plug-in mechanism's engine is compiled once and reused from the disk
  cache by a later process (times printed, not asserted).
"""
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import bandsim
from bandsim.cli import main
from bandsim.errors import ConfigError
from bandsim.kernels import codes
from bandsim.mechanisms.release import ReleaseBatch
from bandsim.privacy.sampled import ALPHA, g_test
from bandsim.registry import get_mechanism, unregister
from tests.conftest import doc_example, numba_cache_dir

RR_NAMES = ("rr", "rr-se", "rr-weak", "rr-weak-se", "rr-blind", "rr-blind-se")


@pytest.fixture(scope="module")
def rr():
    """Example (e) of docs/plugins.md, as written."""
    yield doc_example("def rr_logpmf", "docs_rr_example")
    unregister(*RR_NAMES)


def _draws(name, n, k, size, seed, epsilon=1.0):
    from bandsim.engines import protocol_kernel

    spec = get_mechanism(name)
    b = spec.derive(n, {"epsilon": epsilon})
    fpar = np.zeros(4)
    fpar[:len(b.fpar)] = b.fpar
    sample = protocol_kernel(name, "sample_releases")
    return b, sample(np.random.default_rng(seed), codes.RELEASE, n, k, fpar,
                     np.zeros(3, np.int64), size)


def _pvalue(spec, b, k, draws):
    from bandsim.privacy.release import law_of, to_cells

    values, probs = law_of(spec, b, k)
    cells = to_cells(values, draws)
    assert (cells < len(values)).all()
    return g_test(np.bincount(cells, minlength=len(values)), probs)[1]


@pytest.mark.parametrize("k", [0, 5, 16])
def test_release_draws_its_exact_law_and_the_twin_does_not(rr, k):
    n = 16
    b, x = _draws("rr", n, k, 200_000, seed=k)
    assert _pvalue(get_mechanism("rr"), b, k, x) > ALPHA
    b, w = _draws("rr-weak", n, k, 200_000, seed=k)  # half the flips: 13 % vs 27 % at ε = 1
    assert _pvalue(get_mechanism("rr"), b, k, w) < ALPHA


def test_a_per_user_reference_draws_the_same_law(rr):
    """Every user flips her own bit (slow, obvious): the declared law again."""
    n, k, size = 12, 4, 100_000
    spec = get_mechanism("rr")
    b = spec.derive(n, {"epsilon": 1.0})
    p = b.fpar[0]
    rng = np.random.default_rng(7)
    bits = np.zeros((size, n), np.int64)
    bits[:, :k] = 1
    flips = rng.random((size, n)) < p
    ones = (bits ^ flips).sum(axis=1)
    est = (ones - p * n) / (1.0 - 2.0 * p)
    assert _pvalue(spec, b, k, est) > ALPHA


def test_exact_and_sampled_audits_pass_rr_and_the_sampled_one_fails_its_twin(rr):
    from bandsim.privacy.audit import audit
    from bandsim.privacy.sampled import kernel_mechanisms, sampled

    assert audit("rr-se", 1.0, 16).passed
    assert audit("rr-weak-se", 1.0, 16).passed  # the law is right: only sampling sees the bug
    assert {"rr", "rr-weak"} <= set(kernel_mechanisms())
    good = sampled("rr-se", 1.0, 16)
    assert good.code == 0, good.verdict()
    assert good.checks[0].draws >= 10**6
    weak = sampled("rr-weak-se", 1.0, 16)
    assert weak.code == 1 and not all(c.passed for c in weak.checks), weak.verdict()
    assert main(["audit", "rr-weak-se", "--epsilon", "1", "--batch-size", "16", "--sampled"]) == 1
    assert main(["audit", "rr-se", "--epsilon", "1", "--batch-size", "16"]) == 0


def test_the_elimination_engine_calls_release(rr):
    """A 'release' that ignores the data (n/2 ones always) eliminates nothing; RR does."""
    @numba.njit
    def blind(rng, n, k, fpar):
        return 0.5 * n

    spec = get_mechanism("rr")
    import dataclasses

    bandsim.register(dataclasses.replace(spec, name="rr-blind", release=blind),
                     replace=True)
    algo = bandsim.registry.get_algorithm("rr-se")
    bandsim.register(dataclasses.replace(
        algo, name="rr-blind-se", mechanism="rr-blind",
        plan=lambda prm, arms, horizon: rr["plan_protocol"]("rr-blind", prm, arms, horizon)),
        replace=True)
    kw = dict(instance="C2", arms=3, epsilon=8.0, horizon=200_000, runs=20, seed=3)
    blind_res = bandsim.simulate("rr-blind-se", **kw)
    assert (blind_res.elimination_time == -1).all()
    honest = bandsim.simulate("rr-se", **kw)
    assert (honest.elimination_time[:, 1:] > 0).mean() > 0.9  # the suboptimal arms are eliminated
    again = bandsim.simulate("rr-se", **kw)
    assert np.array_equal(honest.pseudo_regret, again.pseudo_regret)


@numba.njit
def _sum_noise(rng, n, fpar):
    return rng.laplace(0.0, fpar[0])


def _mech(**kw):
    base = dict(name="bad-plugin", summary="s", source="s", trust="central ε-DP", kind="laplace",
                code=codes.PLUGIN_SUM, family="sum", kernels={"sum_noise": _sum_noise},
                batch=lambda n, epsilon: ReleaseBatch("bad-plugin", n, (1 / epsilon,),
                                                      dict(epsilon=epsilon)))
    base.update(kw)
    return bandsim.Mechanism(**base)


@pytest.mark.parametrize("change, field, words", [
    (dict(kernels={"sum_noise": _sum_noise, "batch_estimate": _sum_noise}), "kernels",
     "batch_estimate"),
    (dict(kernels={}, family="release", code=codes.RELEASE), "kernels", "release"),
    (dict(kernels={"sum_noise": lambda rng, n, fpar: 0.0}), "kernels[sum_noise]",
     "decorate it with @numba.njit"),
    (dict(kernels={"sum_noise": numba.njit(lambda a, b: 0.0)}), "kernels[sum_noise]",
     "does not compile"),
    (dict(code=codes.PLUGIN), "code", "101"),
    (dict(family="release", code=codes.RELEASE, kernels={"release": _sum_noise}),
     "release_logpmf", "exact output law"),
])
def test_bad_kernel_declarations_are_refused_at_registration(change, field, words):
    with pytest.raises(ConfigError) as e:
        bandsim.register(_mech(**change))
    # the field names the declaration first (bandsim.validation)
    assert e.value.field == f"mechanism 'bad-plugin' {field}" and words in str(e.value)
    assert "bad-plugin" not in bandsim.registry.mechanisms()


PLUGIN_MODULE = '''
import numba
import numpy as np

import bandsim
from bandsim.algorithms.elimination import plan_protocol
from bandsim.kernels import codes
from bandsim.mechanisms.families import DataDependent
from bandsim.mechanisms.release import ReleaseBatch
from bandsim.params import EPSILON, GROWTH, P


@numba.njit
def coin(rng, n, k, fpar):  # every user flips a fair coin w.p. fpar[0], else reports her bit
    heads = rng.binomial(k, 1.0 - fpar[0] / 2) + rng.binomial(n - k, fpar[0] / 2)
    return (heads - fpar[0] * n / 2) / (1.0 - fpar[0])


bandsim.register(DataDependent(
    name="cache-probe", summary="s", source="s", trust="local ε-DP", release=coin,
    release_law=lambda n, k, fpar: (np.arange(n + 1.0), np.full(n + 1, 1.0 / (n + 1))),
    batch=lambda n, epsilon: ReleaseBatch("cache-probe", n, (0.5,), dict(epsilon=epsilon),
                                          sigma=float(np.sqrt(n)))), replace=True)
bandsim.register(bandsim.Algorithm(
    name="cache-probe-se", summary="s", trust="local ε-DP", source="s",
    params=(EPSILON, P, GROWTH), mechanism="cache-probe",
    plan=lambda prm, arms, horizon: plan_protocol("cache-probe", prm, arms, horizon)),
    replace=True)
'''

RUN = '''
import time
t0 = time.perf_counter()
import bandsim, cache_probe_plugin
res = bandsim.simulate("cache-probe-se", instance="C2", arms=3, epsilon=1.0,
                       horizon=100_000, runs=4, seed=1)
print(time.perf_counter() - t0, float(res.pseudo_regret[:, -1].sum()))
'''


def test_a_plugin_mechanism_is_served_by_the_disk_cached_engine(tmp_path):
    """Two fresh processes with one cache directory: the second compiles nothing of bandsim.

    The first process compiles (or loads) the engines and caches the plug-in's
    kernel; the second loads both. Times are printed (the machine is shared),
    results must be identical, and the plug-in's cache files must exist.
    """
    (tmp_path / "cache_probe_plugin.py").write_text(PLUGIN_MODULE)
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    times, outs = [], []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", RUN], cwd=tmp_path, env=env, text=True,
                              capture_output=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        t, regret = proc.stdout.split()[-2:]
        times.append(float(t))
        outs.append(regret)
    print(f"first simulate of a plug-in mechanism: {times[0]:.2f} s, then {times[1]:.2f} s")
    assert outs[0] == outs[1]
    where = numba_cache_dir(tmp_path)  # NUMBA_CACHE_DIR when set, else __pycache__
    cached = list(where.glob("cache_probe_plugin.coin-*.nbi"))
    assert cached, sorted(p.name for p in where.iterdir()) if where.is_dir() else where
