"""One reward path: every engine, on every reward model, draws rewards with the
exact law (kernels.rewards.draw / batch_sum / encoded_sum).

Each engine is compared in distribution (two-sample χ² on the final
pseudo-regret and on N_1(T), α = ALPHA, fixed seeds) with a plain per-pull
reference that draws every reward from the exact law with numpy. The
historical defect this guards against: per-step engines treated every
non-Bernoulli code as a clipped Gaussian, so categorical rewards were all 1.0.
A negative control shows the comparison has power: the same reference with
Bernoulli rewards of the same means (the right means, the wrong law) is
rejected for UCB1 on a two-value categorical instance (values 0.05 and 0.95).
"""
import bisect
import functools
import zlib

import numpy as np
import pytest

import bandsim
from bandsim.instances import categorical_instance
from bandsim.mechanisms import secagg
from tests import reference, reference_beyond
from tests.conftest import ALPHA
from tests.stats import chi2_two_sample

MEANS = (0.75, 0.6, 0.45)
SIGMA = 0.3  # clipped often enough to matter
# categorical: two values 0.05 / 0.95 apart from Bernoulli's 0 / 1, same means
LO, HI = 0.05, 0.95


def cat_probs(means):
    return [[1 - (m - LO) / (HI - LO), (m - LO) / (HI - LO)] for m in means]


def true_means(model, means):
    """E[X] of each arm (what pseudo-regret is measured with)."""
    if model == "gaussian":
        from bandsim.instances import clipped_gaussian_moments

        return [clipped_gaussian_moments(m, SIGMA)[0] for m in means]
    return list(means)


def sampler(model, means):
    """Per-pull reference sampler of one reward of arm a (exact law, numpy)."""
    if model == "bernoulli":
        return lambda rng, a: float(rng.random() < means[a])
    if model == "gaussian":
        return lambda rng, a: float(np.clip(means[a] + SIGMA * rng.standard_normal(), 0, 1))
    cdfs = [np.cumsum(p).tolist() for p in cat_probs(means)]
    return lambda rng, a: (LO, HI)[min(bisect.bisect_right(cdfs[a], rng.random()), 1)]


def instance(model, means):
    if model == "categorical":
        return dict(instance=categorical_instance([[LO, HI]] * len(means), cat_probs(means)))
    if model == "gaussian":
        return dict(means=list(means), rewards="gaussian", sigma=SIGMA)
    return dict(means=list(means))


#: algorithm → (engine family, horizon, params, per-pull reference(rng, means, T, cps,
#: reward), means): means where the outcome is random (so the test can fail)
CASES = {
    "ucb1": ("per-step", 2000, {}, lambda rng, m, T, c, r: reference.ucb(rng, m, T, c, reward=r), MEANS),
    "se": ("per-step", 3000, {}, lambda rng, m, T, c, r: reference.se(rng, m, T, c, reward=r), MEANS),
    "dp-se": ("elimination", 3000, dict(epsilon=2.0, beta=0.5),
              lambda rng, m, T, c, r: reference.dp_se(rng, m, T, 2.0, 0.5, c, reward=r),
              (0.7, 0.6, 0.5)),
    "dp-se2-modified": ("svt", 3000, dict(epsilon=4.0, beta=0.5),
                        lambda rng, m, T, c, r: reference.dp_se2(rng, m, T, 4.0, 0.5, c,
                                                                 modified=True, reward=r),
                        MEANS),
    "adap-ucb": ("episodic", 3000, dict(epsilon=1.0),
                 lambda rng, m, T, c, r: reference_beyond.adap(rng, m, T, 1.0, 3.1, c, reward=r)[:2],
                 MEANS),
    "dist-dp-se": ("elimination (SecAgg)", 3000, dict(epsilon=2.0),
                   lambda rng, m, T, c, r: reference.protocol_se(
                       rng, m, T, lambda n: secagg.mechanism("dist-dp", n, 2.0, 0.1), 0.1,
                       4.0, c, reward=r), (0.7, 0.4, 0.1)),
}
REF_RUNS = 150


@functools.lru_cache(maxsize=None)
def reference_runs(algo, model, law=None):
    _, T, _, ref, means = CASES[algo]
    rng = np.random.default_rng(zlib.crc32(f"{algo}|{model}|{law}".encode()))
    draw = sampler(law or model, means)
    out = [ref(rng, true_means(model, means), T, [T], draw) for _ in range(REF_RUNS)]
    return np.array([o[0][-1] for o in out]), np.array([o[1][0] for o in out])


def engine_runs(algo, model):
    _, T, params, _, means = CASES[algo]
    res = bandsim.simulate(algo, horizon=T, runs=5_000, seed=3, checkpoints=[T], **params,
                           **instance(model, means))
    return res.pseudo_regret[:, -1], res.pulls[:, 0]


@pytest.mark.parametrize("model", ["bernoulli", "gaussian", "categorical"])
@pytest.mark.parametrize("algo", list(CASES))
def test_engine_rewards_follow_the_exact_law(algo, model):
    regret, pulls = engine_runs(algo, model)
    ref_regret, ref_pulls = reference_runs(algo, model)
    assert np.unique(regret).size > 1  # outcomes are random: the test can fail
    assert chi2_two_sample(regret, ref_regret) > ALPHA
    assert chi2_two_sample(pulls, ref_pulls) > ALPHA


@pytest.mark.parametrize("algo", ["ucb1"])
def test_the_comparison_tells_the_law_not_only_the_means(algo):
    """Negative control: Bernoulli rewards with the categorical instance's means are told apart."""
    regret, pulls = engine_runs(algo, "categorical")
    wrong_regret, wrong_pulls = reference_runs(algo, "categorical", law="bernoulli")
    assert min(chi2_two_sample(regret, wrong_regret), chi2_two_sample(pulls, wrong_pulls)) < ALPHA
