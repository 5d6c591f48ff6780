"""VB-SDP-AE at scale (issue 4): K=10, T=5e7, 10,000 runs, one thread (target < 3 s).

Figures go to ``extra_info`` and stdout: median wall time, simulated pulls per
second, and the ratio to the per-user, per-pull reference (tests/reference.py,
every user encodes its own bits with Algorithm 3) measured in the same session
on the same instance and privacy parameters.
"""
import time

import numpy as np
import pytest

import bandsim
from bandsim.instances import thesis_means
from tests import reference

from .test_bench_foundation import _report

T, RUNS, K = 50_000_000, 10_000, 10
EPS, DELTA = 0.5, 1e-6


@pytest.fixture(scope="session")
def shuffle_reference_pulls_per_second():
    """Throughput (pulls/s) of the per-user VB-SDP-AE reference, measured in this run."""
    horizon, runs = 20_000, 3
    means = thesis_means("C1", K)
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(runs):
        reference.vb_sdp_ae(rng, means, horizon, EPS, DELTA, [horizon])
    return runs * horizon / (time.perf_counter() - t0)


def test_vb_sdp_ae_at_scale(benchmark, shuffle_reference_pulls_per_second):
    kw = dict(instance="C1", arms=K, epsilon=EPS, delta=DELTA, horizon=T, runs=RUNS,
              seed=1, threads=1)
    bandsim.simulate("vb-sdp-ae", **{**kw, "runs": 10})  # warm-up: JIT compile / cache load
    benchmark.pedantic(bandsim.simulate, args=("vb-sdp-ae",), kwargs=kw, rounds=5, iterations=1)
    _report(benchmark, shuffle_reference_pulls_per_second)
