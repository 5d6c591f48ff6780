"""Per-step engines at thesis scale (issue 5): K=5, T=5e7, one thread.

For ``ucb1``, ``se`` and ``dp-ucb`` the figure is the median wall time per
simulated pull (ns/pull = median / (runs · T)), with the ratio to the same
algorithm's per-pull Python reference (``tests/reference.py``) measured in
this session. ``se`` finishes eliminating after ~10⁶ pulls on C1, after which
the last arm is pulled to T in closed form; ``se-tie`` (two equally good
arms, never separated) measures its per-step loop over all of T. ``dp-se2``
is batched: 10,000 runs, wall time.
"""
import time

import numpy as np
import pytest

import bandsim
from bandsim.algorithms.per_step import dp_ucb_constants
from tests import reference

T, K = 50_000_000, 5
C1 = [0.75, 0.7, 0.7, 0.7, 0.7]
TIE = [0.75, 0.75, 0.7, 0.7, 0.7]


def _ref_pulls_per_second(fn, means, horizon=20_000, runs=3, **kw):
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(runs):
        fn(rng, means, horizon, checkpoints=[horizon], **kw)
    return runs * horizon / (time.perf_counter() - t0)


@pytest.fixture(scope="module")
def ref_pps():
    c = dp_ucb_constants(K, 20_000, 0.25, 1 / 20_000)
    return {
        "ucb1": _ref_pulls_per_second(reference.ucb, C1),
        "dp-ucb": _ref_pulls_per_second(reference.ucb, C1, gamma=c["gamma"],
                                        scale=c["node_scale"]),
        "se": _ref_pulls_per_second(reference.se, TIE),
    }


CASES = {
    "ucb1": dict(means=C1, runs=2),
    "dp-ucb": dict(means=C1, runs=2, epsilon=0.25),
    "se": dict(means=C1, runs=20),
    "se-tie": dict(means=TIE, runs=2),
}


@pytest.mark.parametrize("case", list(CASES))
def test_per_step_ns_per_pull(benchmark, ref_pps, case):
    algo = case.split("-tie")[0]
    kw = dict(CASES[case], horizon=T, seed=1, threads=1, checkpoints=16)
    bandsim.simulate(algo, **{**kw, "horizon": 10_000})  # warm-up: JIT cache load
    benchmark.pedantic(bandsim.simulate, args=(algo,), kwargs=kw, rounds=3, iterations=1)
    median = benchmark.stats.stats.median
    pulls = kw["runs"] * T
    ns = median / pulls * 1e9
    pps = pulls / median
    ref = ref_pps[algo]
    benchmark.extra_info.update(ns_per_pull=ns, pulls_per_second=pps,
                                reference_pulls_per_second=ref, speedup_vs_reference=pps / ref)
    print(f"\n{case}: median {median:.3f} s for {kw['runs']} x T=5e7, {ns:.2f} ns/pull, "
          f"reference {1e9 / ref:.0f} ns/pull, ratio {pps / ref:.3g}")


@pytest.mark.parametrize("algo", ["dp-se2", "dp-se2-modified"])
def test_dp_se2_thesis_scale(benchmark, algo):
    kw = dict(instance="C1", arms=K, epsilon=0.25, horizon=T, runs=10_000, seed=1, threads=1)
    bandsim.simulate(algo, **{**kw, "runs": 10})
    benchmark.pedantic(bandsim.simulate, args=(algo,), kwargs=kw, rounds=3, iterations=1)
    median = benchmark.stats.stats.median
    benchmark.extra_info.update(seconds=median, pulls_per_second=kw["runs"] * T / median)
    print(f"\n{algo}: 10,000 runs x T=5e7 in {median:.3f} s (median)")
