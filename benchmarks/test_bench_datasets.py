"""DP-SE on a categorical MSLR-shaped instance (issue 7): K=50, values {0, .25, .5, .75, 1}.

Figures in ``extra_info``: simulated pulls per second (one thread) and the
ratio to the per-user, per-pull reference with categorical rewards measured in
the same session.
"""
import time

import numpy as np
import pytest

import bandsim
from bandsim.instances import categorical_instance
from tests import reference
from tests.test_categorical import categorical_reward

K, T, RUNS = 50, 10**8, 1000


@pytest.fixture(scope="module")
def mslr_like():
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.array([8.0, 4, 2, 1, 0.5]) * 2, size=K)
    return categorical_instance([np.arange(5) / 4] * K, probs, name="mslr-like")


@pytest.fixture(scope="module")
def categorical_reference_pps(mslr_like):
    """Pulls/s of the per-pull DP-SE reference on the categorical instance."""
    draw = categorical_reward(mslr_like.values.tolist(), mslr_like.probs.tolist())
    rng, T_ref, runs = np.random.default_rng(0), 50_000, 3
    t0 = time.perf_counter()
    for _ in range(runs):
        reference.dp_se(rng, mslr_like.means, T_ref, 1.0, 1.0 / T_ref, [T_ref], reward=draw)
    return runs * T_ref / (time.perf_counter() - t0)


def test_dp_se_categorical_k50(benchmark, mslr_like, categorical_reference_pps):
    kw = dict(instance=mslr_like, epsilon=1.0, horizon=T, runs=RUNS, seed=1, threads=1)
    bandsim.simulate("dp-se", **{**kw, "runs": 10})  # warm-up
    benchmark.pedantic(bandsim.simulate, args=("dp-se",), kwargs=kw, rounds=3, iterations=1)
    median = benchmark.stats.stats.median
    pps = RUNS * T / median
    benchmark.extra_info.update(pulls_per_second=pps,
                                reference_pulls_per_second=categorical_reference_pps,
                                speedup_vs_reference=pps / categorical_reference_pps)
    print(f"\n{benchmark.name}: median {median:.3f} s, {pps:.3g} pulls/s, reference "
          f"{categorical_reference_pps:.3g} pulls/s, ratio {pps / categorical_reference_pps:.3g}")
