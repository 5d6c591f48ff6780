"""The batched decision-rule engine against its per-pull reference (tests/reference_beyond.py).

- deterministic arms (means 0 and 1, no noise): the engine's N_a(T) equal the
  reference's exactly, for explore-then-commit and for a batched
  successive-halving-like rule that keeps picking several arms;
- noisy arms with Laplace releases: the probability of committing to the best
  arm agrees with the reference (two-proportion z-test at α = 10⁻⁶), and a
  rule committing to the *worst* arm is told apart (negative control);
- the rule gets the engine's generator (reproducible from the seed) and a per-run
  state; nothing a rule leaves in ``pick`` reaches the next run;
- bad decisions (r > K, an arm outside [0, K)) raise; a rule of the wrong
  signature is refused at registration.
"""
import math

import numba
import numpy as np
import pytest

import bandsim
from bandsim.algorithms.families import BatchedDecision
from bandsim.algorithms.decision import decision_plan
from bandsim.errors import ConfigError
from bandsim.kernels.shard import make_shard
from bandsim.params import EPSILON
from tests import reference_beyond as ref

ALPHA = 1e-6


@numba.njit
def etc(stat, cnt, t, c, pick):
    r = 0
    for a in range(stat.shape[0]):
        if cnt[a] < c[0]:
            pick[r] = a
            r += 1
    if r == 0:
        pick[0] = np.argmax(stat / cnt)
    return r


@numba.njit
def etc_worst(stat, cnt, t, c, pick):
    r = etc(stat, cnt, t, c, pick)
    if r == 0:
        pick[0] = np.argmin(stat / cnt)
    return r


@numba.njit
def leader_and_rest(stat, cnt, t, c, pick):
    """Round 1: every arm; then the current leader twice per round plus arm t % K."""
    K = stat.shape[0]
    if cnt.min() == 0:
        for a in range(K):
            pick[a] = a
        return K
    best = np.argmax(stat / cnt)
    pick[0] = best
    pick[1] = (t // 7) % K
    pick[2] = best
    return 3


@numba.njit
def too_many(stat, cnt, t, c, pick):
    return stat.shape[0] + 1


@numba.njit
def bad_arm(stat, cnt, t, c, pick):
    pick[0] = -1
    return 1


def _engine(decide, means, horizon, batch, c, runs, seed, epsilon=None):
    prm = {} if epsilon is None else {"epsilon": epsilon}
    plan = decision_plan(prm, len(means), horizon, decide=decide, batch=batch, c=c,
                         mechanism="none" if epsilon is None else "laplace")
    K = len(means)
    gaps = np.tile(max(means) - np.asarray(means, float), (runs, 1))
    rpar = np.zeros((runs, K, 4))
    rpar[:, :, 0] = means
    cps = np.array([horizon], np.int64)
    out, pulls, elim = np.zeros((runs, 1)), np.zeros((runs, K), np.int64), np.zeros((runs, K),
                                                                                  np.int64)
    plan.run_shard(np.random.default_rng(seed), make_shard(gaps, 0, rpar, horizon, cps, out,
                                                           pulls, elim))
    return pulls, out[:, 0]


@pytest.mark.parametrize("rule, horizon, batch", [(etc, 1000, 30), (leader_and_rest, 997, 13)])
def test_deterministic_arms_match_the_reference_exactly(rule, horizon, batch):
    means = [0.0, 1.0, 0.0]
    pulls, regret = _engine(rule, means, horizon, batch, [batch], runs=3, seed=1)
    expect = ref.decision_rule(np.random.default_rng(1), rule, means, horizon, batch, [batch])
    for r in range(3):
        assert pulls[r].tolist() == expect.tolist()
        assert regret[r] == pytest.approx(pulls[r, 0] + pulls[r, 2])


def test_committing_probability_matches_the_reference_with_laplace_releases():
    means, horizon, m, eps, runs = [0.5, 0.45, 0.4], 3000, 200, 0.05, 2000
    pulls, _ = _engine(etc, means, horizon, m, [m], runs=runs, seed=5, epsilon=eps)
    best = (pulls[:, 0] > m).mean()
    rng = np.random.default_rng(6)
    slow = [ref.decision_rule(rng, etc, means, horizon, m, [m], 1 / eps)[0] > m
            for _ in range(400)]
    p_ref = np.mean(slow)
    se = math.sqrt(best * (1 - best) / runs + p_ref * (1 - p_ref) / len(slow))
    z = abs(best - p_ref) / se
    assert z < 4.9, (best, p_ref)  # two-sided α ≈ 10⁻⁶
    worst, _ = _engine(etc_worst, means, horizon, m, [m], runs=runs, seed=5, epsilon=eps)
    p_worst = (worst[:, 0] > m).mean()
    assert abs(p_worst - p_ref) / se > 4.9  # the negative control is told apart


@pytest.mark.parametrize("rule, words", [(too_many, "number of arms"), (bad_arm, "arm outside")])
def test_bad_decisions_raise(rule, words):
    with pytest.raises(ValueError, match=words):
        _engine(rule, [0.2, 0.8], 100, 10, [1.0], runs=1, seed=0)


def test_a_rule_of_the_wrong_signature_is_refused_at_registration():
    @numba.njit
    def wrong(stat, cnt):
        return 0

    with pytest.raises(ConfigError, match="does not compile") as e:
        bandsim.register(BatchedDecision(
            name="wrong-rule", summary="s", trust="none", source="s", params=(EPSILON,),
            plan=lambda prm, arms, horizon: None, decide=wrong, mechanism="laplace"))
    assert e.value.field == "algorithm 'wrong-rule' decide"
    assert "wrong-rule" not in bandsim.registry.algorithms()


@numba.njit
def random_commit(rng, stat, cnt, t, c, pick, state):
    """One batch of arm 0, then commit to an arm drawn from the engine's generator."""
    if state[0] == 0.0:  # the run's first decision (state is zeroed per run)
        state[0] = 1.0
        pick[0] = 0
        return 1
    pick[0] = rng.integers(0, stat.shape[0])
    return 0


@numba.njit
def leaky(stat, cnt, t, c, pick):
    """An earlier-form rule that keeps a mark in ``pick[1]``: one batch of arm 0, then commit
    to arm 1 (a mark left from the previous run would skip the batch)."""
    if pick[1] == 0:
        pick[0] = 0
        pick[1] = 1
        return 1
    pick[0] = 1
    return 0


def test_the_rule_draws_from_the_engines_generator_reproducibly():
    """decide(rng, …, state): the commit is drawn from the seeded engine generator (same seed,
    same pulls; another seed, other pulls) and is uniform over the K arms (chi-square)."""
    means, K, runs = [0.0, 1.0, 0.0, 0.5], 4, 4000
    a, _ = _engine(random_commit, means, 500, 10, [0.0], runs=runs, seed=3)
    b, _ = _engine(random_commit, means, 500, 10, [0.0], runs=runs, seed=3)
    other, _ = _engine(random_commit, means, 500, 10, [0.0], runs=runs, seed=4)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, other)
    assert (a[:, 0] >= 10).all()  # every run starts with its one batch of arm 0: state is per run
    committed = np.argmax(a - np.array([10, 0, 0, 0]), axis=1)
    counts = np.bincount(committed, minlength=K)
    chi2 = ((counts - runs / K) ** 2 / (runs / K)).sum()
    assert chi2 < 35.0, counts  # χ²(3) exceeds 35 with probability < 1.3e-7


def test_pick_is_zeroed_between_runs_for_earlier_form_rules():
    """A five-argument rule still runs; what it leaves in ``pick`` does not reach the next
    run (before, runs 2… saw the mark and committed at once to arm 1)."""
    pulls, _ = _engine(leaky, [0.2, 0.8], 200, 10, [0.0], runs=5, seed=0)
    assert pulls[:, 0].tolist() == [10] * 5


def test_a_randomized_rule_matches_the_per_pull_reference_with_deterministic_arms():
    """The reference calls the seven-argument form too (its own generator): with one arm of
    mean 1 and the rest 0, N_a(T) follows from the first batch alone."""
    ref_pulls = ref.decision_rule(np.random.default_rng(0), random_commit, [0.0, 1.0], 100,
                                  10, [0.0])
    assert ref_pulls[0] >= 10 and ref_pulls.sum() == 100
