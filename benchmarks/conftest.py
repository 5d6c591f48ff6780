import time

import numpy as np
import pytest

from tests import reference


@pytest.fixture(scope="session")
def reference_pulls_per_second():
    """Throughput (pulls/s) of the per-user DP-SE reference, measured in this run."""
    T, runs = 20_000, 5
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(runs):
        reference.dp_se(rng, [0.75, 0.7, 0.7, 0.7, 0.7], T, 0.25, 1.0 / T, [T])
    return runs * T / (time.perf_counter() - t0)
