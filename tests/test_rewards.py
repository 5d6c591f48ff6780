"""Reward batch sums: exact Binomial; clipped Gaussian per-user vs the CLT path."""
import numpy as np
import pytest
from scipy import stats

import bandsim
from bandsim.instances import berry_esseen_bound, clipped_gaussian_moments
from bandsim.kernels import rewards
from tests.conftest import ALPHA
from tests.stats import chi2_gof


def draw(code, par, n, size, seed):
    rng = np.random.default_rng(seed)
    return np.array([rewards.batch_sum(rng, code, par, n) for _ in range(size)])


def test_bernoulli_batch_sum_is_binomial():
    n, mu = 40, 0.3
    x = draw(rewards.BERNOULLI, np.array([mu]), n, 20_000, 1)
    k = np.arange(n + 1)
    assert chi2_gof(x.astype(int), k, stats.binom.pmf(k, n, mu)) > ALPHA


@pytest.mark.parametrize("mu", [0.05, 0.5, 0.7])
def test_gaussian_clt_path_is_within_its_berry_esseen_bound(mu):
    sigma = 0.1
    n = rewards.GAUSSIAN_EXACT_MAX_N + 1
    m1, var = clipped_gaussian_moments(mu, sigma)
    par = np.array([mu, sigma, m1, var])
    size = 20_000
    clt = draw(rewards.CLIPPED_GAUSSIAN, par, n, size, 2)
    rng = np.random.default_rng(3)
    per_user = np.clip(mu + sigma * rng.standard_normal((size, n)), 0, 1).sum(1)
    # Kolmogorov distance between the two samples is at most the Berry–Esseen
    # bound plus the DKW sampling margin of each sample at significance ALPHA
    d = stats.ks_2samp(clt, per_user).statistic
    margin = 2 * np.sqrt(np.log(2 * 2 / ALPHA) / (2 * size))
    assert d <= berry_esseen_bound(mu, sigma, n) + margin
    # first two moments agree with the exact ones (z-test at ALPHA)
    z = stats.norm.isf(ALPHA / 2)
    assert abs(clt.mean() - n * m1) < z * np.sqrt(n * var / size)
    assert abs(per_user.mean() - n * m1) < z * np.sqrt(n * var / size)


def test_gaussian_small_batches_are_exact_per_user():
    # below the threshold the kernel draws user by user: same stream, same sum
    mu, sigma, n = 0.4, 0.1, 10
    m1, var = clipped_gaussian_moments(mu, sigma)
    s = rewards.batch_sum(np.random.default_rng(9), rewards.CLIPPED_GAUSSIAN,
                          np.array([mu, sigma, m1, var]), n)
    rng = np.random.default_rng(9)
    expected = sum(min(max(mu + sigma * rng.standard_normal(), 0.0), 1.0) for _ in range(n))
    assert s == pytest.approx(expected, abs=1e-12)


def test_gaussian_simulation_records_its_approximation():
    res = bandsim.simulate("dp-se", instance="easy", arms=5, rewards="gaussian",
                           epsilon=0.5, horizon=10**6, runs=50, seed=1)
    assert res.config["rewards"] == "gaussian" and res.config["sigma"] == 0.1
    assert 0 < res.config["gaussian_clt_kolmogorov_bound"] < 1
    assert "moment-matched" in res.config["gaussian_batch_sum"]
    assert np.all(res.pseudo_regret[:, -1] >= 0)
