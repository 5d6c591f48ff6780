import numpy as np
import pytest
from scipy import integrate, stats

from bandsim import ConfigError
from bandsim.instances import clipped_gaussian_moments, make_instance, thesis_means


def test_thesis_instances_k5_match_the_printed_values_with_typo_fixed():
    # seed 001, Chapter 6; the thesis prints 0.525 where its formulas give 0.625
    assert thesis_means("C1", 5).tolist() == [0.75, 0.7, 0.7, 0.7, 0.7]
    assert thesis_means("C2", 5).tolist() == [0.75, 0.625, 0.5, 0.375, 0.25]
    assert thesis_means("C3", 5).tolist() == [0.75, 0.53125, 0.375, 0.28125, 0.25]
    assert thesis_means("C4", 5).tolist() == [0.75, 0.71875, 0.625, 0.46875, 0.25]


@pytest.mark.parametrize("k", [2, 3, 10, 20])
def test_thesis_instances_any_k(k):
    for name in ("C2", "C3", "C4"):
        m = thesis_means(name, k)
        assert m.shape == (k,)
        assert m[0] == 0.75 and m[-1] == 0.25
        assert np.all(np.diff(m) < 0)
    c3, c4 = thesis_means("C3", k), thesis_means("C4", k)
    if k > 2:  # convex: big gaps early; concave: small gaps early
        assert np.all(np.diff(c3, 2) > 0) and np.all(np.diff(c4, 2) < 0)
    assert np.all(thesis_means("C1", k)[1:] == 0.7)


def test_random_instances_are_seeded_and_in_range():
    a = make_instance("easy", 10, runs=50, rng=np.random.default_rng(3)).location
    b = make_instance("easy", 10, runs=50, rng=np.random.default_rng(3)).location
    assert a.shape == (50, 10) and np.array_equal(a, b)
    assert a.min() >= 0.25 and a.max() <= 0.75
    h = make_instance("hard", 10, runs=50, rng=np.random.default_rng(3)).location
    assert h.min() >= 0.45 and h.max() <= 0.55
    # U[0.25, 0.75]: Kolmogorov-Smirnov at significance 1e-3
    assert stats.kstest(a.ravel(), stats.uniform(0.25, 0.5).cdf).pvalue > 1e-3


@pytest.mark.parametrize("mu", [0.0, 0.05, 0.3, 0.5, 0.97])
def test_clipped_gaussian_moments_match_quadrature(mu):
    sigma = 0.1
    m1, var = clipped_gaussian_moments(mu, sigma)
    pdf = stats.norm(mu, sigma).pdf
    e1 = integrate.quad(lambda y: y * pdf(y), 0, 1)[0] + stats.norm(mu, sigma).sf(1)
    e2 = integrate.quad(lambda y: y * y * pdf(y), 0, 1)[0] + stats.norm(mu, sigma).sf(1)
    assert m1 == pytest.approx(e1, abs=1e-10)
    assert var == pytest.approx(e2 - e1**2, abs=1e-10)


@pytest.mark.parametrize("kwargs, field", [
    (dict(instance="C9", arms=5), "instance"),
    (dict(instance="C1", arms=1), "arms"),
    (dict(instance="C1", arms=None), "arms"),
    (dict(means=[0.5, 1.2]), "means"),
    (dict(means=[0.5]), "means"),
    (dict(means=[0.5, 0.4], arms=3), "arms"),
    (dict(instance="C1", arms=5, rewards="poisson"), "rewards"),
    (dict(instance="C1", arms=5, rewards="gaussian", sigma=0), "sigma"),
])
def test_bad_instances_fail_with_the_field_named(kwargs, field):
    with pytest.raises(ConfigError) as e:
        make_instance(**kwargs)
    assert e.value.field == field
    assert field in str(e.value)
