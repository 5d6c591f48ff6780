"""Recording mode of the episodic and per-round Thompson engines (whole-run privacy audit).

A recorded run on D and its replay on a neighbour D' (one user's reward
changed, every release frozen to its recorded value) must take every
decision of the recorded run, and the releases whose true statistic
changes must be exactly those the paper's privacy proof lets the user
enter: one episode sum (AdaP, DP-KLUCB/IMED; Azize & Basu, NeurIPS 2022,
Theorem 6), one chunk sum (Lazy-DP-TS; Hu & Hegde, UAI 2022, Theorem 3),
or one epoch sum and at most r + 1 nodes of epoch r's binary mechanism
(DP-TS; Hu & Hegde, UAI 2022, Theorem 1). The declarations
(``Algorithm.participation``) must list the scales and counts the engines
record.
"""
import numpy as np
import pytest

from bandsim import registry
from bandsim.kernels import codes
from bandsim.kernels import record as R
from bandsim.privacy.participation import cases, releases_of
from bandsim.wholerun.driver import play

MEANS = (0.7, 0.5, 0.45)
EPS = 0.5
HORIZON = 3000
EPISODIC = ("adap-ucb", "adap-klucb", "dp-klucb", "dp-imed")
ALL = EPISODIC + ("lazy-dp-ts", "dp-ts")


def _params(name):
    return dict(epsilon=EPS)


def _record(name, block=-1, y=0.0, seed=3, horizon=HORIZON):
    return play(name, _params(name), MEANS, horizon, seed=seed, block=block, y=y)


def _replay(name, rec, block, y, mirror=False, seed=3, horizon=HORIZON):
    return play(name, _params(name), MEANS, horizon, seed=seed, mode=codes.REPLAY, block=block,
                y=y, frozen=rec.values, mirror=mirror)


def _same_decisions(a, b):
    assert np.array_equal(a.blocks, b.blocks)
    assert np.array_equal(a.rel, b.rel)  # a replay logs its fresh values, returns the frozen
    assert np.array_equal(a.pulls, b.pulls)
    assert np.array_equal(a.regret, b.regret)


@pytest.mark.parametrize("name", ALL)
def test_the_recording_specialisation_without_a_changed_user_is_the_production_run(name):
    """Same seed, same draws: the recorded run's outputs are those of ``rec=None``."""
    from bandsim.instances import make_instance
    from bandsim.kernels.shard import make_shard

    algo = registry.get_algorithm(name)
    rewards = "gaussian" if "gaussian" in algo.rewards else "bernoulli"
    run = play(name, _params(name), MEANS, HORIZON, rewards=rewards, sigma=0.3, seed=9)
    inst = make_instance(means=list(MEANS), rewards=rewards, sigma=0.3)
    plan = algo.plan(algo.resolve(_params(name), HORIZON), inst.arms, HORIZON)
    _, gaps, rcode, rpar = inst.per_run(1)
    cps = np.unique(np.linspace(1, HORIZON, 64).astype(np.int64))  # as play's
    out = np.zeros((1, cps.size)), np.zeros((1, 3), np.int64), np.zeros((1, 3), np.int64)
    plan.run_shard(np.random.default_rng(9), make_shard(gaps, rcode, rpar, HORIZON, cps, *out))
    np.testing.assert_array_equal(run.regret, out[0][0])
    assert run.pulls.tolist() == out[1][0].tolist() and run.pulls.min() > 1


def _blocks_to_try(run):
    """First, second, a middle and the last block, and the blocks just before and
    after the first release of a sum over ≥ 4 rewards (an epoch/chunk boundary)."""
    nb = run.blocks.shape[0]
    big = np.flatnonzero(run.rel[:, R.REL_N] >= 4)
    edge = int(run.rel[big[0], R.REL_BLOCKS]) if big.size else 1
    return sorted({0, 1, nb // 2, nb - 1, edge - 1, min(edge, nb - 1)})


def _changed(name, block, y0, y1):
    rec = _record(name, block, y0)
    rep = _replay(name, rec, block, y1)
    _same_decisions(rec, rep)
    far = _replay(name, rec, block, y1, mirror=True)
    _same_decisions(rec, far)  # control flow reads releases only
    for run in (rec, rep, far):  # every true reward sum lies in [0, n]
        n = run.rel[:, R.REL_N]
        true = run.val[:, R.VAL_TRUE]
        assert np.all((true >= 0) & (true <= n)), name
    d = rep.val[:, R.VAL_TRUE] - rec.val[:, R.VAL_TRUE]
    return rec, np.flatnonzero(d != 0), d


@pytest.mark.parametrize("name", ALL)
def test_replay_on_a_neighbour_takes_every_decision_and_changes_only_the_users_releases(name):
    base = _record(name)
    blk = base.blocks
    for b in _blocks_to_try(base):
        for y0, y1 in ((0.0, 1.0), (1.0, 0.0), (0.0, 0.99)):
            rec, idx, d = _changed(name, b, y0, y1)
            assert np.array_equal(rec.blocks[:b + 1], blk[:b + 1])  # D and D' share the past
            arm, t0, n = blk[b, R.BLK_ARM], blk[b, R.BLK_T0], blk[b, R.BLK_N]
            np.testing.assert_allclose(d[idx], y1 - y0, rtol=0, atol=1e-9)
            rel = rec.rel[idx]
            assert np.all(rel[:, R.REL_ARM] == arm)
            assert np.all(rel[:, R.REL_BLOCKS] > b)  # released after the user's reward
            if name != "dp-ts":  # one disjoint sum: the release closing the user's block
                after = np.flatnonzero(rec.rel[:, R.REL_BLOCKS] == b + 1)
                assert idx.tolist() == after[:1].tolist(), (name, b)
                if idx.size:
                    assert rel[0, R.REL_N] == n and rel[0, R.REL_T] >= t0 + 1
                continue
            scale = rec.val[idx, R.VAL_SCALE]
            sums = idx[scale == 2 / EPS]  # the epoch sum (or the initial pull)
            nodes = idx[scale != 2 / EPS]
            assert sums.size <= 1
            tag = rec.rel[idx, R.REL_TAG]
            r = tag[0]
            assert np.all(tag == r)  # one epoch of one arm
            assert nodes.size <= r + 1
            np.testing.assert_allclose(rec.val[nodes, R.VAL_SCALE], 2 * (r + 1) / EPS,
                                       rtol=1e-12)
            if r == -1:  # the initial pull: one release of one reward, no tree
                assert idx.size == 1 and rel[0, R.REL_N] == 1
            if sums.size == 0:  # only if the horizon cut the epoch before it closed
                closed = ((rec.val[:, R.VAL_SCALE] == 2 / EPS) & (rec.rel[:, R.REL_ARM] == arm)
                          & (rec.rel[:, R.REL_TAG] == r))
                assert not closed.any(), (b, r)


def _epoch_opening(horizon=5000):
    """(block, arm, r): the first reward of a DP-TS epoch r ≥ 2 of the recorded run."""
    base = _record("dp-ts", horizon=horizon)
    tag, arms = base.rel[:, R.REL_TAG], base.rel[:, R.REL_ARM]
    is_sum = base.rel[:, R.REL_N] == 2 ** (tag + 1)  # an epoch sum (nodes cover ≤ 2^r)
    i = np.flatnonzero(is_sum & (tag >= 2))[0]  # a completed epoch r ≥ 2
    arm, r = arms[i], tag[i]
    prev = np.flatnonzero(is_sum & (arms == arm) & (tag == r - 1))[0]  # the previous close
    first = int(base.rel[prev, R.REL_BLOCKS])  # index of the epoch's first block
    assert base.blocks[first, R.BLK_ARM] == arm
    return first, int(arm), int(r)


def test_dp_ts_first_reward_of_an_epoch_enters_r_plus_one_nodes():
    """The reward opening epoch r ≥ 1 enters the r + 1 nodes of levels 0 … r (Chan, Shi &
    Song 2011, Binary Mechanism B) and the epoch sum: the worst case of Theorem 1."""
    first, _, r = _epoch_opening()
    rec, idx, d = _changed("dp-ts", first, 0.0, 1.0)
    assert rec.rel[idx, R.REL_TAG].tolist() == [r] * (r + 2)
    assert sorted(rec.rel[idx, R.REL_N].tolist()) == sorted([2 ** i for i in range(r + 1)]
                                                            + [2 ** (r + 1)])
    eps = np.sum(np.abs(d[idx]) / rec.val[idx, R.VAL_SCALE])  # basic composition
    assert abs(eps - EPS) < 1e-12  # ε/2 + (r + 1) · ε/(2(r + 1)): tight


@pytest.mark.parametrize("name", ALL)
def test_participation_declares_every_recorded_scale_and_count(name):
    """Every recorded Laplace scale is a declared scale (rel. 1e-12), and a reward
    enters at most the declared count of releases of that scale."""
    algo = registry.get_algorithm(name)
    params = algo.resolve(_params(name), HORIZON)
    declared = releases_of(algo, params, HORIZON)
    run = _record(name)
    laws = set(run.rel[:, R.REL_LAW].tolist())
    assert laws == {codes.LAW_LAPLACE}
    scales = np.unique(run.val[:, R.VAL_SCALE])
    ok = np.array([r.scale for r in declared if r.law == "laplace"])
    for s in scales:
        assert np.min(np.abs(ok / s - 1)) < 1e-12, (name, s, ok)
    if name == "dp-ts":  # case "r = k": Lap(2(k + 1)/ε) × (k + 1), the tag of the nodes
        by_case = cases(declared)
        for r in np.unique(run.rel[:, R.REL_TAG]):
            if r < 0:
                continue
            (node,) = [x for x in by_case[f"r = {r}"] if x.case]
            node_scales = run.val[(run.rel[:, R.REL_TAG] == r)
                                  & (run.val[:, R.VAL_SCALE] != 2 / EPS), R.VAL_SCALE]
            np.testing.assert_allclose(node_scales, node.scale, rtol=1e-12)
            assert node.count == r + 1
    else:
        assert len(declared) == 1 and declared[0].count == 1


@pytest.mark.parametrize("rewards", ["gaussian"])
def test_episode_sums_of_other_reward_models_lie_in_range_and_replay(rewards):
    kw = dict(rewards=rewards, seed=5)
    rec = play("adap-klucb", dict(epsilon=EPS), MEANS, HORIZON, block=7, y=0.3, **kw)
    rep = play("adap-klucb", dict(epsilon=EPS), MEANS, HORIZON, mode=codes.REPLAY, block=7,
               y=0.8, frozen=rec.values, **kw)
    _same_decisions(rec, rep)
    n, true = rec.rel[:, R.REL_N], rec.val[:, R.VAL_TRUE]
    assert np.all((true >= 0) & (true <= n))
    assert np.unique(true % 1).size > 3  # fractional rewards really drawn
    d = rep.val[:, R.VAL_TRUE] - true
    (i,) = np.flatnonzero(d)
    assert rec.rel[i, R.REL_BLOCKS] == 8 and abs(d[i] - 0.5) < 1e-9


# ------------------------------------------------------------------ negative controls
# Each control is a realistic mistake in the code that draws or uses the noise; the
# whole-run audit (bandsim.wholerun.audit) must FAIL it with a line naming the
# release and the check, and PASS the honest algorithm at the same setting.

AUDIT_T = 3000


def source_mutant(kernel, old, new):
    """A fresh (uncached) compilation of ``kernel`` with ``old`` replaced by ``new`` in
    its source — the mutation a developer could make by hand. ``old`` must occur once."""
    import inspect
    import textwrap

    import numba

    src = textwrap.dedent(inspect.getsource(kernel.py_func))
    assert src.count(old) == 1, (kernel.__name__, old)
    src = "\n".join(line for line in src.replace(old, new).splitlines()
                    if not line.startswith("@"))
    env = dict(kernel.py_func.__globals__)
    exec(compile(src, f"<mutant of {kernel.__name__}>", "exec"), env)
    options = {k: v for k, v in kernel.targetoptions.items() if k not in ("cache", "nopython")}
    return numba.njit(**options)(env[kernel.__name__])


def _audit(name):
    from bandsim.wholerun import audit

    return audit(name, dict(epsilon=EPS), horizon=AUDIT_T)


def _caught(report, check, what):
    """FAIL, and some failure line names the check and a release of ``what``."""
    assert report.verdict == "FAIL", report
    lines = [f for f in report.failures if f.startswith(check) and what in f]
    assert lines, report.failures
    return lines[0]


@pytest.mark.parametrize("name", ALL)
def test_whole_run_audit_passes_the_honest_engines(name):
    report = _audit(name)
    assert report.verdict == "PASS", report.failures
    assert report.neighbours >= 15 and report.epsilon <= EPS * (1 + 1e-9)
    assert report.epsilon > EPS / 2  # the neighbours really entered noisy releases


@pytest.mark.parametrize("name", EPISODIC)
def test_episode_scale_divided_by_its_length_fails_the_scale_check(name, monkeypatch):
    """Lap((1/ε)/L) on an episode sum of L rewards: each episode εL-DP (the mistake of
    calibrating the sum with the sensitivity 1/L of the mean)."""
    from bandsim.kernels import episodic

    monkeypatch.setattr(episodic, "_run_shard", source_mutant(
        episodic._run_shard, "b = noise_scale  #", "b = noise_scale / L  #"))
    line = _caught(_audit(name), "(c) scales", "laplace, scale ")
    assert "scale 1)" in line or "scale 0.5)" in line  # 2/L with L = 2, 4: not declared


def test_dp_ts_node_scale_with_r_instead_of_r_plus_one_fails():
    """Lap(2r/ε) on the nodes of epoch r: every epoch-0 node noiseless (ε = ∞)."""
    from bandsim.kernels import thompson

    mutant = source_mutant(thompson.run_dp_ts_shard, "node_scale * (epoch[J] + 1)",
                           "node_scale * epoch[J]")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(thompson, "run_dp_ts_shard", mutant)
        report = _audit("dp-ts")
        first, _, r = _epoch_opening()  # and beyond epoch 0: the worst reward of epoch r
        rec, idx, d = _changed("dp-ts", first, 0.0, 1.0)
    _caught(report, "(c) scales", "laplace, scale 0)")
    eps = np.sum(np.abs(d[idx]) / rec.val[idx, R.VAL_SCALE])
    assert abs(eps - (EPS / 2 + (r + 1) * EPS / (2 * r))) < 1e-12  # > ε for every r ≥ 1


def _scale_check(run):
    """Check (c) of the whole-run audit on ``run`` (DP-TS at HORIZON): its failure lines."""
    from bandsim.plancache import make_plan
    from bandsim.wholerun.replay import _Audit

    algo = registry.get_algorithm("dp-ts")
    params = algo.resolve(_params("dp-ts"), HORIZON)
    a = _Audit(algo, params, HORIZON, MEANS, 3, make_plan(algo, params, len(MEANS), HORIZON))
    a.scales(run)
    return a.failures


@pytest.mark.parametrize("where, tag, n", [("first pull", -1, lambda r: r == 1),
                                          ("epoch 1's sum", 1, lambda r: r == 4)])
def test_dp_ts_scale_recorded_for_another_position_fails_the_scale_check(where, tag, n):
    """A release recorded with a declared scale of another position: the first pull (or an
    epoch's completed sum) at 2 × 2/ε = 8, the node scale of epoch 1. Any declared scale
    would pass; the scale declared for its position (tag, n) does not."""
    run = _record("dp-ts")
    assert _scale_check(run) == []  # the honest run: every class at its position's scale
    hit = (run.rel[:, R.REL_TAG] == tag) & n(run.rel[:, R.REL_N])
    assert hit.any() and np.all(run.val[hit, R.VAL_SCALE] == 2 / EPS)
    run.val[hit, R.VAL_SCALE] *= 2  # = 2(1 + 1)/ε: a declared scale, not this position's
    (line,) = _scale_check(run)
    assert line.startswith(f"(c) scales: release class laplace (tag {tag}, n = "
                           f"{int(run.rel[hit, R.REL_N][0])}, scale 8)"), line
    assert f"computed from scale 4 (tag {tag}, n = " in line, (where, line)


# A plug-in index policy (docs/plugins.md, example (c): MOSS on the episodic engine) that
# computes its index from the true episode mean. A plug-in's index only sees the
# engine's statistic, so it gets the true mean in one of two realistic ways:
# (i) its own plan runs the engine without the engine's Laplace, because the author
#     "privatizes the index" with its ε-dependent width term instead (the docs' MOSS
#     index has log(T)/(ε n) for the noise's width), or
# (ii) an engine bug hands every index the true mean: the release is made (and
#     logged) but its value is not used.

def _moss():
    import math

    import numba

    @numba.njit
    def moss_index(stat, n, t, c):  # c = [max stat, T, K, ε]
        bonus = math.sqrt(max(0.0, math.log(c[1] / (c[2] * n))) / n)
        return stat + bonus + math.log(c[1]) / (c[3] * n)

    return moss_index


def _register_moss(name, plan_class=None):
    import dataclasses

    from bandsim.plugin import EPSILON, EpisodicIndex, register

    algo = EpisodicIndex(
        name=name, summary="MOSS index on doubling episodes with Laplace sums (test)",
        source="Audibert & Bubeck (COLT 2009), MOSS; episodes + Laplace", params=(EPSILON,),
        index=_moss(), estimator="cumulative",
        constants=lambda prm, arms, horizon: (horizon, arms, prm["epsilon"]))
    if plan_class is not None:  # the plug-in's own plan, built on the family's
        def plan(params, arms, horizon):
            p = algo._plan(params, arms, horizon)
            return plan_class(**{f.name: getattr(p, f.name) for f in dataclasses.fields(p)})

        algo = dataclasses.replace(algo, plan=plan)
    register(algo, replace=True)


@pytest.fixture
def moss():
    names = []

    def make(name, plan_class=None):
        _register_moss(name, plan_class)
        names.append(name)
        return name

    yield make
    registry.unregister(*names)


def test_plugin_index_policy_passes_and_one_fed_the_true_mean_by_its_plan_fails(moss):
    from dataclasses import dataclass

    from bandsim.kernels import episodic
    from bandsim.plugin import EpisodicPlan

    assert _audit(moss("wr-moss")).verdict == "PASS"

    @dataclass(kw_only=True)
    class IndexNoisePlan(EpisodicPlan):
        """The engine without its Laplace: 'the index's ε term privatizes it'."""

        def run_shard(self, rng, shard, rec=None):
            episodic.run_shard(rng, shard, self.index, self.c, self.ratio, self.rule,
                               self.estimator, 0.0, self.tie_random, rec)

    report = _audit(moss("wr-moss-true-mean", IndexNoisePlan))
    _caught(report, "(c) scales", "exact, scale 0)")
    _caught(report, "(b) sensitivity", "releases nothing noisy")


def test_plugin_index_policy_fed_the_true_mean_by_the_engine_fails_decisions(moss,
                                                                             monkeypatch):
    from bandsim.kernels import episodic

    monkeypatch.setattr(episodic, "_run_shard", source_mutant(
        episodic._run_shard, "s = release(rec, run, t, A, L, LAW_LAPLACE",
        "release(rec, run, t, A, L, LAW_LAPLACE"))  # released, logged, but not used
    report = _audit(moss("wr-moss"))
    _caught(report, "(a) decisions", "on the mirrored dataset")
    _caught(report, "(a) decisions", "from 0 to 1")


# A kernel that draws with one scale and records another passes checks (a)–(d), which
# read the recorded scale; the recorded noise itself must then fail (e)
# (bandsim.wholerun.noise: z = (value − true)/scale is Lap(0, 1)).

def _noise_lines(name, horizon, seed=0):
    from bandsim.wholerun.noise import laplace_noise

    return laplace_noise(play(name, dict(epsilon=EPS), MEANS, horizon, seed=seed))


@pytest.mark.parametrize("name", ALL)
def test_recorded_noise_of_the_honest_engines_is_standard_laplace(name):
    horizon = 20_000 if name == "dp-ts" else 100_000
    assert _noise_lines(name, horizon) == []


def test_episode_noise_drawn_at_scale_over_L_but_recorded_at_scale_fails_noise(monkeypatch):
    from bandsim.kernels import episodic

    monkeypatch.setattr(episodic, "_run_shard", source_mutant(
        episodic._run_shard, "laplace_draw(rng, b))", "laplace_draw(rng, b / L))"))
    (line,) = _noise_lines("adap-ucb", HORIZON)
    assert line.startswith("(e) noise") and "release #0" in line


def test_dp_ts_nodes_drawn_ten_percent_under_their_recorded_scale_fail_noise(monkeypatch):
    from bandsim.kernels import thompson
    from bandsim.kernels._jit import rebind

    node = source_mutant(thompson.tree_release, "s + laplace(rng, scale))",
                         "s + laplace(rng, 0.9 * scale))")
    monkeypatch.setattr(thompson, "run_dp_ts_shard",
                        rebind(thompson.run_dp_ts_shard, {"tree_release": node}))
    (line,) = _noise_lines("dp-ts", 20_000)
    assert line.startswith("(e) noise") and "mean |z| = 0.9" in line
