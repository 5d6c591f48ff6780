"""Fixed-confidence elimination (``dp-se-bai``), one thread: runs per second, ns per pull.

C1–C4 (K = 5) at ε ∈ {0.1, 1}, δ = 10⁻², 1,000 runs, budget 10⁸, through
``bandsim.simulate_bai`` (planning and the summary's lower bound included).
Reported in ``extra_info``: mean τ, runs/s and ns per simulated pull; also the
speed of the obvious reference of ``tests/test_bai.py`` (one uniform per pull,
NumPy-vectorised per epoch) on C3 at ε = 0.1, 100 runs, and the ratio.
"""
import time

import numpy as np
import pytest

import bandsim
from tests.test_bai import per_pull_dp_se


@pytest.mark.parametrize("instance", ["C1", "C2", "C3", "C4"])
@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_dp_se_bai_speed(benchmark, instance, eps):
    bandsim.simulate_bai("dp-se-bai", instance=instance, arms=5, epsilon=eps, delta=0.01,
                         runs=1, seed=0, threads=1)  # compiled and loaded

    def run():
        return bandsim.simulate_bai("dp-se-bai", instance=instance, arms=5, epsilon=eps,
                                    delta=0.01, runs=1000, budget=10**8, seed=12345, threads=1)

    res = benchmark.pedantic(run, rounds=3, iterations=1)
    secs = benchmark.stats.stats.min
    benchmark.extra_info.update(tau_mean=float(res.tau.mean()), runs_per_s=1000 / secs,
                                ns_per_pull=secs / res.tau.sum() * 1e9)


def test_reference_ratio(benchmark):
    mu = [0.75, 0.53125, 0.375, 0.28125, 0.25]
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    ref = per_pull_dp_se(mu, 0.1, 0.01, 100, rng)[0]
    ref_ns = (time.perf_counter() - t0) / ref.sum() * 1e9
    res = benchmark.pedantic(lambda: bandsim.simulate_bai(
        "dp-se-bai", means=mu, epsilon=0.1, delta=0.01, runs=1000, seed=1, threads=1),
        rounds=3, iterations=1)
    ns = benchmark.stats.stats.min / res.tau.sum() * 1e9
    benchmark.extra_info.update(reference_ns_per_pull=ref_ns, engine_ns_per_pull=ns,
                                ratio=ref_ns / ns)
