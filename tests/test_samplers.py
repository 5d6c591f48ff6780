"""Discrete noise samplers against exact pmfs from scipy.stats (seed 003 noises)."""
import math

import numpy as np
import pytest
from numba import njit
from scipy import stats

from bandsim.kernels import samplers
from tests.conftest import ALPHA
from tests.stats import chi2_gof


@njit
def _draw(rng, which, a, b, size):
    out = np.empty(size, np.int64)
    for i in range(size):
        if which == 0:
            out[i] = samplers.polya(rng, a, b)
        elif which == 1:
            out[i] = samplers.discrete_laplace(rng, a)
        elif which == 2:
            out[i] = samplers.discrete_laplace_sum(rng, np.int64(b), a)
        elif which == 3:
            out[i] = samplers.skellam(rng, a)
        else:
            out[i] = samplers.discrete_gaussian(rng, a)
    return out


def draw(which, a, b=0.0, size=40_000, seed=0):
    return _draw(np.random.default_rng(seed), which, a, b, size)


def support_of(x, pad=5):
    return np.arange(x.min() - pad, x.max() + pad + 1)


@pytest.mark.parametrize("r,beta", [(0.25, 0.8), (1.0, 0.5), (1 / 64, 0.95)])
def test_polya_is_negative_binomial(r, beta):
    # Pólya(r, β) pmf Γ(x+r)/(x!Γ(r)) β^x (1−β)^r = NB(r, 1−β) (seed 003, Fact 1)
    x = draw(0, r, beta, seed=1)
    k = support_of(x)
    assert chi2_gof(x, k, stats.nbinom.pmf(k, r, 1 - beta)) > ALPHA
    # power: the wrong β is rejected by the same test
    assert chi2_gof(x, k, stats.nbinom.pmf(k, r, 1 - beta * 0.97)) < ALPHA


@pytest.mark.parametrize("scale", [0.7, 2.0, 25.0])
def test_discrete_laplace_pmf_and_variance(scale):
    a = 1.0 / scale
    x = draw(1, -math.expm1(-a), seed=2)
    k = support_of(x)
    pmf = stats.dlaplace.pmf(k, a)
    assert chi2_gof(x, k, pmf) > ALPHA
    # seed 003 Definition 4 pmf equals scipy's dlaplace
    assert np.allclose(pmf, (math.exp(a) - 1) / (math.exp(a) + 1) * np.exp(-np.abs(k) * a))
    # exact variance 2β/(1−β)², β = e^{−1/b}; sample variance within 4 SE
    beta = math.exp(-a)
    var = 2 * beta / (1 - beta) ** 2
    assert stats.dlaplace.var(a) == pytest.approx(var, rel=1e-10)
    mu4 = stats.dlaplace.moment(4, a)
    se = math.sqrt((mu4 - var**2) / x.size)
    assert abs(x.var() - var) < stats.norm.isf(ALPHA / 2) * se


def _dlaplace_sum_pmf(n, q, k):
    j = np.arange(0, 4000)
    nb = stats.nbinom.pmf(j, n, q)
    diff = np.convolve(nb, nb[::-1])  # index i ↔ value i − (len−1)
    return diff[k + j.size - 1]


@pytest.mark.parametrize("n,scale", [(3, 1.5), (10, 4.0)])
def test_sum_of_discrete_laplace_is_difference_of_negative_binomials(n, scale):
    q = -math.expm1(-1.0 / scale)
    x = draw(2, q, n, seed=3)
    k = support_of(x)
    assert chi2_gof(x, k, _dlaplace_sum_pmf(n, q, k)) > ALPHA
    per_user = draw(1, q, size=40_000 * n, seed=4).reshape(-1, n).sum(1)
    assert chi2_gof(per_user, k, _dlaplace_sum_pmf(n, q, k)) > ALPHA


@pytest.mark.parametrize("mu", [0.3, 4.0, 200.0])
def test_skellam(mu):
    x = draw(3, mu, seed=5)
    k = support_of(x)
    assert chi2_gof(x, k, stats.skellam.pmf(k, mu, mu)) > ALPHA
    if mu >= 1:  # power: a 20 % larger variance is rejected
        assert chi2_gof(x, k, stats.skellam.pmf(k, 1.2 * mu, 1.2 * mu)) < ALPHA


@pytest.mark.parametrize("sigma2", [0.3, 2.5, 40.0, 1e4])
def test_discrete_gaussian_exact_pmf(sigma2):
    x = draw(4, sigma2, seed=6)
    k = np.arange(-int(12 * math.sqrt(sigma2)) - 3, int(12 * math.sqrt(sigma2)) + 4)
    w = np.exp(-k.astype(float) ** 2 / (2 * sigma2))
    assert chi2_gof(x, k, w / w.sum()) > ALPHA
    w2 = np.exp(-k.astype(float) ** 2 / (2 * sigma2 * 1.1))
    assert chi2_gof(x, k, w2 / w2.sum()) < ALPHA  # power: 10 % wider is rejected
