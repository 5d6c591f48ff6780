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


@pytest.mark.parametrize("name", ["adap-tt", "adap-tt-star"])
def test_top_two_engine_against_the_per_pull_reference(benchmark, name):
    """Release-batched top-two engine vs the plain-Python per-pull oracle, C3, ε = 1, CPU
    time per pull in the same process (benchmarks/toptwo_bai.py also times the authors' code)."""
    from bandsim.bai import declarations
    from tests.reference import top_two_bai

    mu = np.array([0.75, 0.53125, 0.375, 0.28125, 0.25])
    params = dict(epsilon=1.0, delta=0.01, beta=0.5)
    if name == "adap-tt":
        params["threshold"] = "eq-5.11"
    plan = declarations.get(name).plan(params, 5, 10**8)
    runs = 1000
    rpar = np.ascontiguousarray(np.broadcast_to(mu[None, :, None], (runs, 5, 1)))
    tau, arm, st = np.zeros(runs, np.int64), np.zeros(runs, np.int64), np.zeros(runs, bool)
    rng = np.random.default_rng(0)
    t0 = time.process_time()
    pulls = sum(top_two_bai(rng, mu, 0.01, epsilon=1.0, threshold="eq-5.14" if name !=
                            "adap-tt" else "eq-5.11")[0] for _ in range(10))
    ref_ns = (time.process_time() - t0) / pulls * 1e9
    benchmark.pedantic(lambda: plan.run_shard(np.random.default_rng(1), 0, rpar, tau, arm, st),
                       rounds=3, iterations=1)
    ns = benchmark.stats.stats.min / tau.sum() * 1e9
    benchmark.extra_info.update(reference_ns_per_pull=ref_ns, engine_ns_per_pull=ns,
                                ratio=ref_ns / ns, tau_mean=float(tau.mean()))
