"""Categorical (empirical) rewards: exact multinomial batch sums, instances, simulations."""
import bisect
import itertools

import numpy as np
import pytest
from scipy import stats

import bandsim
from bandsim import ConfigError
from bandsim.registry import algorithms
from bandsim.instances import categorical_instance, categorical_rows
from bandsim.kernels import rewards
from tests import reference
from tests.conftest import ALPHA
from tests.stats import chi2_gof, chi2_two_sample

#: three arms on the grid {0, 1/2, 1} with means 0.7, 0.6, 0.55
VALUES = [[0.0, 0.5, 1.0]] * 3
PROBS = [[0.1, 0.4, 0.5], [0.2, 0.4, 0.4], [0.25, 0.4, 0.35]]


def row(values, probs):
    return categorical_rows([values], [probs])[0]


def test_counts_follow_the_multinomial_pmf():
    n, p = 8, [0.5, 0.3, 0.2]
    par = row([0.0, 0.5, 1.0], p)
    rng = np.random.default_rng(1)
    draws = np.array([rewards.categorical_counts(rng, par, n) for _ in range(20_000)])
    assert np.all(draws.sum(axis=1) == n)
    outcomes = [c for c in itertools.product(range(n + 1), repeat=3) if sum(c) == n]
    index = {c: i for i, c in enumerate(outcomes)}
    cells = np.array([index[tuple(c)] for c in draws])
    support = np.arange(len(outcomes))
    assert chi2_gof(cells, support, stats.multinomial.pmf(outcomes, n, p)) > ALPHA
    # power: the same draws reject slightly different probabilities
    wrong = stats.multinomial.pmf(outcomes, n, [0.45, 0.35, 0.2])
    assert chi2_gof(cells, support, wrong) < ALPHA


def exact_sum_pmf(probs, n):
    """pmf of the sum of n rewards on the grid {0, 1/4, …, 1}, in quarters (n-fold convolution)."""
    pmf = np.array([1.0])
    for _ in range(n):
        pmf = np.convolve(pmf, probs)
    return pmf


@pytest.mark.parametrize("n", [1, 7, 30])
def test_batch_sum_is_exact(n):
    grid = np.arange(5) / 4
    probs = np.array([0.3, 0.1, 0.25, 0.05, 0.3])
    par = row(grid, probs)
    rng = np.random.default_rng(n)
    s = np.array([rewards.batch_sum(rng, rewards.CATEGORICAL, par, n) for _ in range(20_000)])
    quarters = np.round(s * 4).astype(int)
    assert np.allclose(quarters, s * 4)
    support = np.arange(4 * n + 1)
    assert chi2_gof(quarters, support, exact_sum_pmf(probs, n)) > ALPHA
    # power: the pmf of a slightly different distribution is rejected
    if n == 30:
        wrong = exact_sum_pmf(np.array([0.32, 0.1, 0.23, 0.05, 0.3]), n)
        assert chi2_gof(quarters, support, wrong) < ALPHA


def test_padding_zero_probabilities_and_large_batches():
    inst = categorical_instance([[0.2, 0.9], [0.0, 0.3, 0.6, 1.0]],
                                [[0.5, 0.5], [0.4, 0.0, 0.2, 0.4]])
    assert inst.values.shape == (2, 4)  # padded
    rows = categorical_rows(inst.values, inst.probs)
    assert rows.shape == (2, 1 + 2 * 3)  # the zero-probability value is dropped
    assert rows[0, 0] == 2 and rows[1, 0] == 3
    rng = np.random.default_rng(4)
    assert rewards.batch_sum(rng, rewards.CATEGORICAL, rows[0], 0) == 0.0
    # only the arm's own values occur (a batch of one user is one value)
    ones = {rewards.batch_sum(rng, rewards.CATEGORICAL, rows[1], 1) for _ in range(500)}
    assert ones == {0.0, 0.6, 1.0}
    # huge batches are one multinomial: the mean is right to a few standard errors
    n = 10**12
    s = rewards.batch_sum(rng, rewards.CATEGORICAL, rows[1], n)
    mean, var = 0.52, 0.4 * 0.52**2 + 0.2 * 0.08**2 + 0.4 * 0.48**2
    assert abs(s - n * mean) < stats.norm.isf(ALPHA / 2) * np.sqrt(n * var)


def test_categorical_instance_means_and_per_run():
    inst = categorical_instance(VALUES, PROBS, name="toy")
    np.testing.assert_allclose(inst.means, [0.7, 0.6, 0.55])
    means, gaps, rcode, rpar = inst.per_run(5)
    assert rcode == rewards.CATEGORICAL and rpar.shape == (5, 3, 7)
    assert rpar.flags.c_contiguous
    np.testing.assert_allclose(gaps[0], [0.0, 0.1, 0.15])


@pytest.mark.parametrize("values, probs, field", [
    ([[0.5]], [[1.0]], "arms"),
    ([[0.0, 1.2], [0.5]], [[0.5, 0.5], [1.0]], "arm 0 values"),
    ([[0.0, 1.0], [0.5]], [[0.6, 0.6], [1.0]], "arm 0 probs"),
    ([[0.0, 1.0], [0.5]], [[1.0], [1.0]], "arm 0"),
])
def test_bad_categorical_instances_are_rejected(values, probs, field):
    with pytest.raises(ConfigError) as e:
        categorical_instance(values, probs)
    assert e.value.field == field


def categorical_reward(values, probs):
    """Per-pull reference sampler: inverse CDF of one uniform."""
    cdfs = [np.cumsum(p).tolist() for p in probs]

    def draw(rng, a):
        j = min(bisect.bisect_right(cdfs[a], rng.random()), len(values[a]) - 1)
        return values[a][j]
    return draw


def test_dp_se_on_categorical_matches_per_pull_reference_in_distribution():
    inst = categorical_instance(VALUES, PROBS)
    means, T, cps = inst.means, 6_000, [2_000, 6_000]
    rng = np.random.default_rng(2024)
    draw = categorical_reward(VALUES, PROBS)
    ref = [reference.dp_se(rng, means, T, 1.0, 0.1, cps, reward=draw) for _ in range(300)]
    res = bandsim.simulate("dp-se", instance=inst, horizon=T, runs=20_000, seed=7,
                           checkpoints=cps, epsilon=1.0, beta=0.1)
    assert res.config["rewards"] == "categorical"
    assert res.config["categorical"]["probs"] == PROBS
    for c in range(2):
        assert chi2_two_sample(res.pseudo_regret[:, c], [r[0][c] for r in ref]) > ALPHA
    for a in range(3):
        assert chi2_two_sample(res.pulls[:, a], [r[1][a] for r in ref]) > ALPHA
    assert np.unique(res.pseudo_regret[:, -1]).size > 3
    # power: Bernoulli rewards with the same means (larger variance) are told apart
    bern = bandsim.simulate("dp-se", means=means, horizon=T, runs=20_000, seed=7,
                            checkpoints=cps, epsilon=1.0, beta=0.1)
    assert chi2_two_sample(bern.pseudo_regret[:, -1], res.pseudo_regret[:, -1]) < ALPHA


#: values for REQUIRED parameters of any algorithm
REQUIRED_VALUES = {"epsilon": 1.0, "delta": 1e-6}


@pytest.mark.parametrize("name", sorted(algorithms()))
def test_every_algorithm_accepts_a_categorical_instance(name):
    """…or, if it declares no categorical rewards, refuses it before any work."""
    algo = algorithms()[name]
    params = {p.name: REQUIRED_VALUES[p.name] for p in algo.params if p.required}
    inst = categorical_instance(VALUES, PROBS)
    if "categorical" not in algo.rewards:  # e.g. Bernoulli-only Thompson sampling: refused
        with pytest.raises(bandsim.ConfigError, match="rewards"):
            bandsim.simulate(name, instance=inst, horizon=20_000, runs=64, seed=1, **params)
        return
    res = bandsim.simulate(name, instance=inst, horizon=20_000, runs=64, seed=1, **params)
    assert np.all(res.pulls.sum(axis=1) == 20_000)
    np.testing.assert_allclose(res.means[0], [0.7, 0.6, 0.55])


def test_binary_algorithms_binarize_categorical_rewards_exactly():
    # a binarized categorical reward is Bernoulli(E[X]): same draws as a
    # Bernoulli instance with those means, bit for bit
    from bandsim.instances import categorical_instance

    inst = categorical_instance([[0, 0.5, 1.0], [0, 0.25, 1.0]], [[0.2, 0.3, 0.5], [0.5, 0.3, 0.2]])
    kw = dict(horizon=200_000, runs=64, seed=4, epsilon=1.0, delta=1e-6)
    cat = bandsim.simulate("vb-sdp-ae", instance=inst, **kw)
    ber = bandsim.simulate("vb-sdp-ae", means=inst.means.tolist(), **kw)
    assert np.array_equal(cat.pseudo_regret, ber.pseudo_regret)
    assert "reward_binarization" in cat.config


def test_categorical_encoded_sum_matches_per_user_randomized_rounding():
    # Σ x̂ from multinomial counts + one Binomial per value vs every user
    # encoding its own reward (seed 003, Algorithm 2 line 3): same pmf
    from bandsim.instances import categorical_rows

    values, probs = [0.0, 0.3, 0.55, 1.0], [0.1, 0.4, 0.3, 0.2]
    par = categorical_rows([values], [probs])[0]
    n, g, size = 6, 7, 20_000
    rng = np.random.default_rng(8)
    fast = np.array([rewards.encoded_sum(rng, rewards.CATEGORICAL, par, n, g)
                     for _ in range(size)])
    rng = np.random.default_rng(9)
    x = rng.choice(values, p=probs, size=(size, n)) * g
    slow = (np.floor(x) + (rng.random((size, n)) < x - np.floor(x))).sum(1)
    assert chi2_two_sample(fast, slow) > ALPHA
    mean = n * g * np.dot(values, probs)
    assert abs(fast.mean() - mean) < stats.norm.isf(ALPHA / 2) * fast.std() / np.sqrt(size)
