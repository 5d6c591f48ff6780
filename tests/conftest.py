import numpy as np
import pytest

#: Significance level of every statistical test in the suite. With fixed seeds
#: the tests are deterministic; a correct implementation fails one of them
#: with probability about ALPHA per test before the seeds were fixed.
ALPHA = 1e-3


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
