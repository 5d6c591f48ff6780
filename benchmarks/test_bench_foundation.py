"""DP-SE at thesis scale (issue 2): K=5, T=5e7, 10,000 runs, one thread.

Figures are stored in ``extra_info``: simulated pulls per second, and the
ratio to the per-user reference measured in the same session.
"""
import os
import subprocess
import sys
import tempfile
import time

import bandsim

T, RUNS = 50_000_000, 10_000


def _report(benchmark, ref_pps, runs=RUNS, horizon=T):
    median = benchmark.stats.stats.median
    pps = runs * horizon / median
    benchmark.extra_info.update(pulls_per_second=pps, reference_pulls_per_second=ref_pps,
                                speedup_vs_reference=pps / ref_pps)
    print(f"\n{benchmark.name}: median {median:.3f} s, {pps:.3g} pulls/s, "
          f"reference {ref_pps:.3g} pulls/s, ratio {pps / ref_pps:.3g}")


def test_dp_se_thesis_scale(benchmark, reference_pulls_per_second):
    kw = dict(instance="C1", arms=5, epsilon=0.25, horizon=T, runs=RUNS, seed=1, threads=1)
    bandsim.simulate("dp-se", **{**kw, "runs": 10})  # warm-up: JIT compile / cache load
    benchmark.pedantic(bandsim.simulate, args=("dp-se",), kwargs=kw, rounds=5, iterations=1)
    _report(benchmark, reference_pulls_per_second)


def _cold_start(cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    cmd = [sys.executable, "-m", "bandsim.cli", "run", "dp-se", "--instance", "C2",
           "--arms", "5", "--epsilon", "0.25", "--horizon", "5e7", "--runs", "1000",
           "--seed", "1", "--json", "--threads", "1"]
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def test_cold_start_of_bandsim_run(benchmark):
    with tempfile.TemporaryDirectory() as cache:
        empty = _cold_start(cache)
        benchmark.pedantic(_cold_start, args=(cache,), rounds=3, iterations=1)
    benchmark.extra_info.update(cold_start_empty_cache_s=empty,
                                cold_start_warm_cache_s=benchmark.stats.stats.median)
    print(f"\ncold start: empty JIT cache {empty:.2f} s, warm cache "
          f"{benchmark.stats.stats.median:.2f} s")
