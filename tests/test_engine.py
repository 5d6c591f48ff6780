"""The elimination engine against the per-pull reference (tests/reference.py)."""
import numpy as np
import pytest

import bandsim
from bandsim.kernels import protocols, regret
from bandsim.kernels.elimination import run_shard
from tests import reference
from tests.conftest import ALPHA
from tests.stats import chi2_two_sample


def enumerate_order(order, active, n):
    """The pull sequence of one stage, arm by arm."""
    if order == regret.ROUND_ROBIN:
        return [a for _ in range(n) for a in active]
    return [a for a in active for _ in range(n)]


@pytest.mark.parametrize("order", [regret.ROUND_ROBIN, regret.BLOCKS])
@pytest.mark.parametrize("horizon", [1, 7, 23, 64, 200])
def test_regret_bookkeeping_is_exact_at_every_pull(order, horizon):
    # no elimination (infinite width): the pull sequence is fixed by the order
    K = 3
    gaps = np.array([[0.0, 0.25, 0.5]])
    batch = np.ones((50, K + 1), np.int64) * np.arange(1, 51)[:, None]
    width = np.full((50, K + 1), np.inf)
    fpar = np.zeros((50, K + 1, 1))
    ipar = np.zeros((50, K + 1, 1), np.int64)
    cps = np.arange(1, horizon + 1, dtype=np.int64)
    out = np.zeros((1, horizon))
    pulls = np.zeros((1, K), np.int64)
    elim = np.zeros((1, K), np.int64)
    rpar = np.full((1, K, 1), 0.5)
    from bandsim.kernels.shard import EliminationTables, make_shard
    from bandsim.kernels.hooks import unbound

    run_shard(np.random.default_rng(0), make_shard(gaps, 0, rpar, horizon, cps, out, pulls, elim),
              EliminationTables(batch, width, np.int64(protocols.NONE), fpar, ipar,
                                np.int64(order), False), unbound(), None)
    seq = [a for s in range(50) for a in enumerate_order(order, [0, 1, 2], s + 1)][:horizon]
    expected = np.cumsum(gaps[0][seq])
    np.testing.assert_allclose(out[0], expected, rtol=0, atol=1e-12)
    assert pulls[0].tolist() == np.bincount(seq, minlength=K).tolist()
    assert elim[0].tolist() == [-1, -1, -1]


@pytest.mark.parametrize("horizon", [1_000, 2_500, 40_000])
def test_dp_se_matches_reference_exactly_when_decisions_are_certain(horizon):
    # gaps of 0.9: every suboptimal arm leaves after epoch 1 in every run, so
    # the regret path is deterministic; checkpoints cut rounds mid-way.
    means = [0.95, 0.05, 0.04]
    cps = np.unique(np.r_[np.arange(1, horizon, 97), horizon])
    res = bandsim.simulate("dp-se", means=means, epsilon=1.0, horizon=horizon,
                           runs=3, seed=1, checkpoints=cps)
    ref, pulls = reference.dp_se(np.random.default_rng(0), means, horizon, 1.0,
                                 1.0 / horizon, cps)
    for r in range(3):
        np.testing.assert_allclose(res.pseudo_regret[r], ref, rtol=1e-12)
        assert res.pulls[r].tolist() == pulls.tolist()


def _compare(algo, ref_fn, ref_kwargs, sim_kwargs, means, horizon, n_ref=300):
    rng = np.random.default_rng(2024)
    cps = [horizon // 3, horizon]
    ref = [ref_fn(rng, means, horizon, checkpoints=cps, **ref_kwargs) for _ in range(n_ref)]
    ref_regret = np.array([r[0] for r in ref])
    ref_pulls = np.array([r[1] for r in ref])
    res = bandsim.simulate(algo, means=means, horizon=horizon, runs=20_000, seed=7,
                           checkpoints=cps, **sim_kwargs)
    # pseudo-regret at both checkpoints and every N_a(T): chi-square two-sample
    # tests at significance ALPHA (fixed seeds: deterministic)
    for c in range(2):
        assert chi2_two_sample(res.pseudo_regret[:, c], ref_regret[:, c]) > ALPHA
    for a in range(len(means)):
        assert chi2_two_sample(res.pulls[:, a], ref_pulls[:, a]) > ALPHA
    # and the outcome is genuinely random, so the test has power
    assert np.unique(res.pseudo_regret[:, -1]).size > 3


def test_dp_se_matches_reference_in_distribution():
    _compare("dp-se", reference.dp_se, dict(epsilon=1.0, beta=0.1),
             dict(epsilon=1.0, beta=0.1), [0.7, 0.6, 0.55], 6_000)


def test_batch_se_matches_reference_in_distribution():
    _compare("batch-se", reference.batch_se, dict(p=0.1, growth=2.0),
             dict(p=0.1, growth=2.0), [0.7, 0.6, 0.55], 3_000)


def test_a_wrong_engine_would_be_caught():
    # power check: the reference with a smaller ε is rejected by the same test
    rng = np.random.default_rng(5)
    means, T = [0.7, 0.6, 0.55], 6_000
    ref = np.array([reference.dp_se(rng, means, T, 0.05, 0.1, [T])[0][0] for _ in range(300)])
    res = bandsim.simulate("dp-se", means=means, horizon=T, runs=20_000, seed=7,
                           checkpoints=[T], epsilon=1.0, beta=0.1)
    assert chi2_two_sample(res.pseudo_regret[:, -1], ref) < ALPHA


def test_elimination_times_are_consistent_with_pulls():
    res = bandsim.simulate("batch-se", instance="C2", arms=5, horizon=100_000,
                           runs=500, seed=3)
    el = res.elimination_time
    assert np.all((el == -1) | ((el > 0) & (el <= 100_000)))
    # an eliminated arm is never pulled again: N_a(T) ≤ its elimination time
    gone = el > 0
    assert np.all(res.pulls[gone] <= el[gone])
    assert np.all(res.pulls.sum(axis=1) == 100_000)
    # pseudo-regret is the gap-weighted pulls at T
    np.testing.assert_allclose(res.pseudo_regret[:, -1],
                               (res.pulls * (res.means.max(1, keepdims=True) - res.means)).sum(1))


def _tiny_shard(mech, hooks, seed=0):
    from bandsim.kernels.shard import EliminationTables, make_shard

    K, S, horizon = 3, 20, 500
    gaps = np.array([[0.0, 0.25, 0.5]])
    out, pulls, elim = np.zeros((1, 1)), np.zeros((1, K), np.int64), np.zeros((1, K), np.int64)
    shard = make_shard(gaps, 0, np.array([[[0.9], [0.65], [0.4]]]), horizon,
                       np.array([horizon], np.int64), out, pulls, elim)
    tables = EliminationTables(np.full((S, K + 1), 10, np.int64), np.full((S, K + 1), 0.2),
                               np.int64(mech), np.ones((S, K + 1, 1)),
                               np.zeros((S, K + 1, 1), np.int64), np.int64(regret.BLOCKS), False)
    run_shard(np.random.default_rng(seed), shard, tables, hooks, None)
    return out[0, 0], pulls[0].tolist(), elim[0].tolist()


def test_built_in_engine_runs_without_hooks_and_a_plug_in_code_without_hooks_fails():
    # A built-in mechanism passes hooks=None (no first-class functions to unbox per
    # shard); Numba must prune the plug-in branch for it (else typing fails here), the
    # draws must equal those of the unbound-hooks path, and a plug-in code must raise.
    from bandsim.kernels.codes import LAPLACE, PLUGIN_SUM
    from bandsim.kernels.hooks import unbound

    assert _tiny_shard(LAPLACE, None) == _tiny_shard(LAPLACE, unbound())
    with pytest.raises(ValueError, match="without its kernels"):
        _tiny_shard(PLUGIN_SUM, None)
    assert bandsim.engines._hooks("laplace") is None
