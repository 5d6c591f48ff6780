"""Recording mode of the per-step engines (UCB1, SE, DP-UCB) and of the SVT engine (DP-SE 2).

A recorded run (:func:`bandsim.wholerun.driver.play`) must take the
production decisions, a replay on a neighbouring dataset with frozen
releases must reproduce every block, and the releases whose true statistic
changes must be exactly those of the papers' privacy proofs: the nodes of
the user's arm's tree that cover its count (DP-UCB, Sajed 2019 Algorithm 5),
one SVT instance's queries and its arm's histogram sum (DP-SE 2, Sajed 2019
Algorithm 10, Theorem A.1.1).
"""
import dataclasses
import math

import numpy as np
import pytest

from bandsim import registry
from bandsim.algorithms import per_step, svt
from bandsim.instances import make_instance
from bandsim.kernels import codes
from bandsim.kernels import record as R
from bandsim.kernels.shard import make_shard
from bandsim.privacy.participation import releases_of
from bandsim.wholerun import audit
from bandsim.wholerun.driver import play

#: (algorithm, params, means, horizon): DP-SE 2 at ε = 2 on well-separated arms halts
#: and eliminates in several epochs at T = 2·10⁴.
CASES = {
    "ucb1": ({}, [0.7, 0.5, 0.4], 5_000),
    "se": ({}, [0.7, 0.5, 0.4], 5_000),
    "dp-ucb": ({"epsilon": 0.5}, [0.7, 0.6, 0.55, 0.5], 20_000),
    "dp-se2": ({"epsilon": 2.0}, [0.9, 0.8, 0.3, 0.1], 20_000),
    "dp-se2-modified": ({"epsilon": 2.0}, [0.9, 0.8, 0.3, 0.1], 20_000),
}
OUTPUTS = ("blocks", "pulls", "elim", "regret")


def _production(name, params, means, horizon, seed, rewards="bernoulli"):
    """One production run (``rec=None``) set up exactly as :func:`play` sets up its run."""
    algo = registry.get_algorithm(name)
    inst = make_instance(means=list(means), rewards=rewards, sigma=0.3)
    plan = algo.plan(algo.resolve(dict(params), horizon), inst.arms, horizon)
    _, gaps, rcode, rpar = inst.per_run(1)
    cps = np.unique(np.linspace(1, horizon, 64).astype(np.int64))
    regret = np.zeros((1, cps.size))
    pulls = np.zeros((1, inst.arms), np.int64)
    elim = np.zeros((1, inst.arms), np.int64)
    plan.run_shard(np.random.default_rng(seed),
                   make_shard(gaps, rcode, rpar, horizon, cps, regret, pulls, elim))
    return pulls[0], elim[0], regret[0]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("rewards", ["bernoulli", "gaussian"])
def test_a_recorded_run_without_a_changed_user_takes_the_production_decisions(name, rewards):
    params, means, horizon = CASES[name]
    run = play(name, params, means, horizon, rewards=rewards, seed=5)
    pulls, elim, regret = _production(name, params, means, horizon, 5, rewards)
    assert run.pulls.tolist() == pulls.tolist()
    assert run.elim.tolist() == elim.tolist()
    np.testing.assert_array_equal(run.regret, regret)
    assert run.pulls.sum() == horizon and len(run.rel) > 0


def _pair(name, block, y0, y1, seed=3, mirror=False):
    params, means, horizon = CASES[name]
    r0 = play(name, params, means, horizon, seed=seed, block=block, y=y0)
    r1 = play(name, params, means, horizon, seed=seed, block=block, y=y1, mode=codes.REPLAY,
              frozen=r0.values, mirror=mirror)
    return r0, r1


def _blocks(name):
    """First, second, a middle and the last two blocks of the base run."""
    params, means, horizon = CASES[name]
    nb = len(play(name, params, means, horizon, seed=3).blocks)
    return sorted({0, 1, nb // 2, nb - 2, nb - 1})


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_replay_on_a_neighbour_with_frozen_releases_reproduces_every_block(name):
    for b in _blocks(name):
        for y0, y1 in [(0.0, 1.0), (1.0, 0.0), (0.0, 0.99)]:
            for mirror in (False, True):
                r0, r1 = _pair(name, b, y0, y1, mirror=mirror)
                for f in OUTPUTS:
                    np.testing.assert_array_equal(getattr(r0, f), getattr(r1, f),
                                                  err_msg=f"{name} block {b} {f}")
                np.testing.assert_array_equal(r0.rel, r1.rel)
                np.testing.assert_array_equal(r0.val[:, R.VAL_SCALE], r1.val[:, R.VAL_SCALE])


def _changed(r0, r1):
    d = r1.val[:, R.VAL_TRUE] - r0.val[:, R.VAL_TRUE]
    return np.nonzero(d != 0.0)[0], d


def _declared_scales(name, law):
    params, _, horizon = CASES[name]
    algo = registry.get_algorithm(name)
    rel = releases_of(algo, algo.resolve(dict(params), horizon), horizon)
    out = {r.scale for r in rel if r.law == law}
    if law == "svt":
        out |= {r.query_scale for r in rel if r.law == "svt"}
    return out, rel


def test_a_dp_ucb_reward_enters_exactly_the_nodes_of_its_arm_tree_that_cover_its_count():
    """The level-i node released at count n (i = lowest set bit of n) sums the counts
    n − 2^i + 1 … n, so count c of arm a enters it iff k = ⌈c/2^i⌉ is odd and
    k·2^i ≤ N_a(T): at most one node per level, ⌊log₂ N_a⌋ + 1 ≤ ⌈log₂ T⌉ (K ≥ 2) of the
    declared ⌈log₂T⌉ + 1, each by y1 − y0, each with the declared scale (⌈log₂T⌉ + 1)/ε."""
    scales, rel = _declared_scales("dp-ucb", "laplace")
    (decl,) = rel
    _, _, horizon = CASES["dp-ucb"]
    assert decl.count == int(np.ceil(np.log2(horizon))) + 1
    for b in _blocks("dp-ucb"):
        for y0, y1 in [(0.0, 1.0), (1.0, 0.0), (0.0, 0.99)]:
            r0, r1 = _pair("dp-ucb", b, y0, y1)
            arm = r0.blocks[b, R.BLK_ARM]
            c = int(np.sum(r0.blocks[:b + 1, R.BLK_ARM] == arm))  # the user's count
            n_a = int(r0.pulls[arm])
            expected = [i for i in range(64)
                        if (-(-c // 2**i)) % 2 == 1 and -(-c // 2**i) * 2**i <= n_a]
            idx, d = _changed(r0, r1)
            assert sorted(r0.rel[idx, R.REL_TAG].tolist()) == expected
            assert set(r0.rel[idx, R.REL_ARM].tolist()) == {arm}
            assert set(r0.rel[idx, R.REL_LAW].tolist()) == {codes.LAW_LAPLACE}
            np.testing.assert_allclose(d[idx], y1 - y0, rtol=0, atol=1e-9)
            assert len(idx) <= int(np.ceil(np.log2(horizon))) < decl.count
            assert set(r0.val[:, R.VAL_SCALE].tolist()) == scales
            n = r0.rel[:, R.REL_N]
            assert np.all(n == 2 ** r0.rel[:, R.REL_TAG])
            assert np.all((r0.val[:, R.VAL_TRUE] >= 0) & (r0.val[:, R.VAL_TRUE] <= n))


@pytest.mark.parametrize("name", ["dp-se2", "dp-se2-modified"])
def test_a_dp_se2_reward_enters_one_svt_instance_and_its_arm_histogram_sum(name):
    svt, _ = _declared_scales(name, "svt")
    lap, _ = _declared_scales(name, "laplace")
    law = {codes.LAW_SVT_THRESHOLD: svt, codes.LAW_SVT_QUERY: svt, codes.LAW_LAPLACE: lap}
    epochs_seen = set()
    for b in _blocks(name):
        for y0, y1 in [(0.0, 1.0), (1.0, 0.0), (0.0, 0.99)]:
            r0, r1 = _pair(name, b, y0, y1)
            for code, scales in law.items():
                assert set(r0.val[r0.rel[:, R.REL_LAW] == code, R.VAL_SCALE]) <= scales
            arm = r0.blocks[b, R.BLK_ARM]
            thr = np.nonzero((r0.rel[:, R.REL_LAW] == codes.LAW_SVT_THRESHOLD)
                             & (r0.rel[:, R.REL_BLOCKS] <= b))[0]
            epoch = r0.rel[thr[-1], R.REL_TAG]  # the instance the user's block belongs to
            epochs_seen.add(int(epoch))
            idx, d = _changed(r0, r1)
            laws = r0.rel[idx, R.REL_LAW]
            assert set(laws.tolist()) <= {codes.LAW_SVT_QUERY, codes.LAW_LAPLACE}
            assert set(r0.rel[idx, R.REL_TAG].tolist()) <= {epoch}
            hist = idx[laws == codes.LAW_LAPLACE]
            assert len(hist) <= 1 and set(r0.rel[hist, R.REL_ARM].tolist()) <= {arm}
            np.testing.assert_allclose(d[hist], y1 - y0, rtol=0, atol=1e-9)
            assert np.all(np.abs(d[idx]) <= 1.0 + 1e-9)
            sums = r0.rel[:, R.REL_N] >= 1
            assert np.all(r0.rel[sums, R.REL_LAW] == codes.LAW_LAPLACE)
            assert np.all((r0.val[sums, R.VAL_TRUE] >= 0)
                          & (r0.val[sums, R.VAL_TRUE] <= r0.rel[sums, R.REL_N]))
    assert len(epochs_seen) >= 2  # the cases reach past the first instance


# ---------------------------------------------------------------- the whole-run audit

#: An instance on which DP-SE 2 halts its SVT and releases histogram sums at ε = 0.5,
#: T = 10⁵ (on the audit's default instance its first epoch runs to the horizon).
HALTING = (0.9, 0.5, 0.2)


def _short_tree(horizon):
    """``tree_levels`` with the + 1 forgotten: ⌈log₂ T⌉ levels (Sajed (2019), Alg 5 line 3
    asks ⌈log₂ T⌉ + 1), so every node gets Lap(⌈log₂ T⌉/ε)."""
    return math.ceil(math.log2(horizon)) if horizon > 1 else 1


def _failure(report, check, law):
    """The first failure line of ``check`` that names a release of ``law``."""
    return next((f for f in report.failures if f.startswith(check) and "release #" in f
                 and f", {law}, scale " in f), None)


def test_dp_ucb_with_its_tree_one_level_short_fails_the_whole_run_audit(monkeypatch):
    """The mutation is decided in the plan (the kernel allocates 64 levels and reads the
    node scale from the plan). With K ≥ 2 a reward enters at most ⌈log₂ T⌉ nodes, so the
    mutant composes to at most ε: only the scale check (c), and the declared cases of (b),
    can see it."""
    monkeypatch.setattr(per_step, "tree_levels", _short_tree)
    horizon = 20_000
    m = (horizon - 1).bit_length() + 1
    report = audit("dp-ucb", horizon=horizon)
    assert report.verdict == "FAIL"
    line = _failure(report, "(c) scales", "laplace")
    assert line is not None, report.failures
    assert f"scale {(m - 1) / 0.5:g}" in line and f"computed from scale {m / 0.5:g}" in line


@pytest.mark.parametrize("name", ["dp-se2", "dp-se2-modified"])
def test_dp_se2_with_its_histogram_noise_halved_fails_the_whole_run_audit(monkeypatch, name):
    """Lap(1/ε) on each epoch sum instead of Lap(2/ε) (Algorithm 10 line 20's Lap(2/(εr))
    on the mean, read as Lap(1/ε) on the sum): (c) names the histogram release."""
    plan = svt._plan_dp_se2

    def halved(params, arms, horizon, modified):
        p = plan(params, arms, horizon, modified)
        return dataclasses.replace(p, hist_scale=p.hist_scale / 2)

    monkeypatch.setattr(svt, "_plan_dp_se2", halved)
    for means in (HALTING, None):  # None: the audit's defaults (its wide instance halts)
        report = audit(name, means=means)
        assert report.verdict == "FAIL"
        line = _failure(report, "(c) scales", "laplace")
        assert line is not None and "computed from scale 4" in line, report.failures


@pytest.mark.parametrize("name, horizon, means", [
    ("dp-ucb", 20_000, None),
    ("dp-se2", 100_000, None), ("dp-se2", 100_000, HALTING),
    ("dp-se2-modified", 100_000, None), ("dp-se2-modified", 100_000, HALTING),
])
def test_the_honest_per_step_and_svt_engines_pass_the_whole_run_audit(name, horizon, means):
    report = audit(name, horizon=horizon, means=means)
    assert report.verdict == "PASS", report.failures
    assert report.neighbours >= 10 and report.epsilon <= report.claimed * (1 + 1e-9)
    if name == "dp-ucb":  # ⌊log₂ N_a⌋ + 1 ≤ ⌈log₂ T⌉ nodes of scale (⌈log₂ T⌉ + 1)/ε
        m = (horizon - 1).bit_length() + 1
        assert report.epsilon <= (m - 1) / m * report.claimed * (1 + 1e-9)
    elif means == HALTING:  # the SVT instance (ε/2) and the histogram sum (ε/2)
        assert report.epsilon == pytest.approx(report.claimed, rel=1e-9)


@pytest.mark.parametrize("name", ["ucb1", "se"])
def test_ucb1_and_se_are_not_private(name):
    assert audit(name, horizon=5_000).verdict == "not private"
