"""Private stopping rules (bandsim.stopping): the (α, β) guarantee and the batched path."""
import numpy as np
import pytest
from scipy import stats

from bandsim import ConfigError
from bandsim.stopping import dp_exp_nas, dp_nas
from tests import reference
from tests.conftest import ALPHA
from tests.stats import chi2_two_sample


def _guarantee_holds(failures, runs, beta):
    """One-sided binomial test of H0: P[failure] ≤ β; True if H0 is not rejected at ALPHA."""
    return stats.binomtest(failures, runs, beta, alternative="greater").pvalue > ALPHA


CASES = [
    # (values, probs, alpha, beta, epsilon): two-point law of the lower bound
    # (Theorem 4.2.1), the difference of two Bernoulli rewards, a negative mean
    ([-1.0, 1.0], [0.3, 0.7], 0.5, 0.05, 1.0),
    ([-1.0, 0.0, 1.0], [0.15, 0.45, 0.4], 0.25, 0.1, 2.0),
    ([-2.0, 0.5, 2.0], [0.5, 0.2, 0.3], 0.5, 0.2, 0.5),
]


@pytest.mark.parametrize("rule, runs", [(dp_exp_nas, 20_000), (dp_nas, 1_000)])
@pytest.mark.parametrize("values, probs, alpha, beta, eps", CASES)
def test_alpha_beta_guarantee_holds_empirically(rule, runs, values, probs, alpha, beta, eps):
    res = rule(values, probs, alpha=alpha, beta=beta, epsilon=eps, runs=runs, seed=3)
    assert res.stopped.all()
    mu = float(np.dot(values, probs))
    failures = int((np.abs(res.estimates - mu) > alpha * abs(mu)).sum())
    assert failures == round(res.failure_fraction() * runs)
    assert _guarantee_holds(failures, runs, beta)
    assert res.times.min() >= 2


def test_the_guarantee_check_has_power():
    # the sample mean after a fixed 16 samples is not an (α, β) rule: rejected
    rng = np.random.default_rng(4)
    values, probs, alpha, beta = np.array([-1.0, 1.0]), [0.3, 0.7], 0.5, 0.05
    est = rng.choice(values, p=probs, size=(20_000, 16)).mean(axis=1)
    failures = int((np.abs(est - 0.4) > alpha * 0.4).sum())
    assert not _guarantee_holds(failures, est.size, beta)


def test_dp_exp_nas_tests_only_at_powers_of_two():
    res = dp_exp_nas([-1, 1], [0.2, 0.8], alpha=0.5, beta=0.1, epsilon=1.0, runs=2000, seed=1)
    t = res.times
    assert np.all(t & (t - 1) == 0)
    assert np.unique(t).size >= 2


@pytest.mark.parametrize("exponential", [True, False])
def test_kernels_match_the_per_sample_reference_in_distribution(exponential):
    values, probs = [-1.0, 0.0, 1.0], [0.1, 0.3, 0.6]
    kw = dict(alpha=0.5, beta=0.2, epsilon=4.0)
    rng = np.random.default_rng(8)
    n_ref = 1000 if exponential else 300
    ref = np.array([reference.dp_nas(rng, values, probs, exponential=exponential, **kw)
                    for _ in range(n_ref)])
    rule = dp_exp_nas if exponential else dp_nas
    res = rule(values, probs, runs=20_000, seed=9, **kw)
    assert chi2_two_sample(res.times, ref[:, 0]) > ALPHA
    assert chi2_two_sample(res.estimates, ref[:, 1]) > ALPHA
    assert np.unique(res.times).size > 1


def test_a_wrong_batched_rule_would_be_caught():
    # power: a 4x smaller ε stops later, and the same test sees it
    values, probs = [-1.0, 0.0, 1.0], [0.1, 0.3, 0.6]
    rng = np.random.default_rng(8)
    ref = np.array([reference.dp_nas(rng, values, probs, 0.5, 0.2, 4.0, exponential=True)
                    for _ in range(1000)])
    res = dp_exp_nas(values, probs, alpha=0.5, beta=0.2, epsilon=1.0, runs=20_000, seed=9)
    assert chi2_two_sample(res.times, ref[:, 0]) < ALPHA


def test_runs_that_reach_the_cap_are_reported():
    res = dp_nas([-1, 1], [0.49, 0.51], alpha=0.1, beta=0.1, epsilon=1.0, runs=5, seed=1,
                 max_samples=1000)
    assert not res.stopped.any() and np.all(res.times == 1000)
    assert res.failure_fraction() == 1.0


@pytest.mark.parametrize("kw, field", [
    (dict(values=[-1, 1], probs=[0.5, 0.5]), "values"),      # mean 0
    (dict(values=[-1, 3], probs=[0.5, 0.5], R=1.0), "values"),
    (dict(values=[-1, 1], probs=[0.5, 0.6]), "probs"),
    (dict(values=[0, 1], alpha=1.5), "alpha"),
    (dict(values=[0, 1], beta=0.0), "beta"),
    (dict(values=[0, 1], epsilon=-1), "epsilon"),
    (dict(values=[0, 1], runs=0), "runs"),
])
def test_bad_input_names_the_field(kw, field):
    args = dict(alpha=0.5, beta=0.1, epsilon=1.0, runs=10, seed=1)
    args.update(kw)
    values = args.pop("values")
    probs = args.pop("probs", None)
    with pytest.raises(ConfigError) as e:
        dp_exp_nas(values, probs, **args)
    assert e.value.field == field
