"""The releases every algorithm declares: what the returning-user accountant composes.

The declarations state the papers' privacy proofs; these tests check them against
an independent dp-accounting composition and against the noise scales the engines'
plans really use, each with a negative control (a realistic mutation of the
derivation, applied by monkeypatching, must make the check fail).
"""
import math

import pytest

import dp_accounting
from dp_accounting import dp_event

from bandsim.errors import ConfigError
from bandsim.privacy.accountant import accountable, calibrate, compose, compose_releases
from bandsim.privacy.participation import cases, per_user_text, releases_of
from bandsim.registry import algorithms, get_algorithm

DELTA = 1e-6
#: dp-accounting's composition of the whole DP-TS mechanism at ε = 0.5, B = 10, δ = 1e-6
#: (epoch sum Lap(4) + r + 1 nodes Lap(4(r + 1))), by epoch r of the reward.
DP_TS_EXPECTED = {0: 4.671, 1: 4.062, 3: 3.558, 9: 3.115}


def independent_dp_ts(eps, B, r, delta=DELTA):
    """Hu & Hegde (UAI 2022), Theorem 1, composed with dp-accounting's own accountant."""
    acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_event.ComposedDpEvent(
        [dp_event.LaplaceDpEvent(2 / eps)]
        + [dp_event.LaplaceDpEvent(2 * (r + 1) / eps)] * (r + 1)), B)
    return acc.get_epsilon(delta)


def dp_ts_case(r, eps=0.5, B=10, horizon=10**7):
    algo = get_algorithm("dp-ts")
    rel = releases_of(algo, algo.resolve({"epsilon": eps}, horizon), horizon)
    rows = compose_releases(cases(rel)[f"r = {r}"], B, DELTA)
    return {c.method.split(" (")[0]: c.epsilon for c in rows}["PLD accountant"]


@pytest.mark.parametrize("r", sorted(DP_TS_EXPECTED))
def test_dp_ts_returning_is_dp_accountings_whole_mechanism(r):
    ours = dp_ts_case(r)
    assert ours == pytest.approx(independent_dp_ts(0.5, 10, r), abs=2e-3)
    assert ours == pytest.approx(DP_TS_EXPECTED[r], abs=2e-3)


def test_dp_ts_cli_figure_is_the_worst_epoch():
    rows = {c.method.split(" (")[0]: c for c in compose("dp-ts", 0.5, 1, 10, DELTA)}
    pld = rows["PLD accountant"]
    assert pld.epsilon == pytest.approx(4.671, abs=2e-3) and pld.case == "r = 0"
    assert rows["basic composition"].epsilon == pytest.approx(5.0)


def test_dp_ts_negative_control_dropping_the_tree_nodes():
    """The old accountant composed only the epoch sum's Lap(2/ε): 2.499, caught."""
    algo = get_algorithm("dp-ts")
    epoch_only = releases_of(algo, algo.resolve({"epsilon": 0.5}, 10**7), 10**7)[:1]
    got = {c.method.split(" (")[0]: c.epsilon
           for c in compose_releases(epoch_only, 10, DELTA)}["PLD accountant"]
    assert got == pytest.approx(2.499, abs=2e-3)
    assert abs(got - independent_dp_ts(0.5, 10, 0)) > 0.1 * got  # the check fails


def test_dp_ts_calibration_meets_the_whole_mechanism():
    """--target-epsilon inverts the same list: the PLD row's per-participation ε, composed
    independently with every release, meets the target tightly."""
    cals = {c.method.split(" (")[0]: c for c in calibrate("dp-ts", 10, 1.0, DELTA, 1,
                                                           horizon=1000)}
    e = cals["PLD accountant"].epsilon_per_batch
    assert independent_dp_ts(e, 10, 0) <= 1.0 + 2e-3
    assert independent_dp_ts(e * 1.01, 10, 0) > 1.0
    assert e < 0.2  # the epoch-only accountant recommended about twice that ε


# ------------------------------------------------- declarations versus the engines' plans

def _plan(name, eps=0.37, arms=3, horizon=12_345):
    algo = get_algorithm(name)
    prm = algo.resolve({"epsilon": eps}, horizon)
    return algo, prm, algo.plan(prm, arms, horizon), releases_of(algo, prm, horizon)


def engine_scales_match(name, horizon=12_345):
    """Every declared release's scale (and count) is what the engine's plan gives it."""
    algo, prm, plan, rel = _plan(name, horizon=horizon)
    lap = [r for r in rel if r.law == "laplace"]
    if name == "dp-ts":
        ok = math.isclose(plan.chunk_scale, lap[0].scale, rel_tol=1e-12)
        for r in lap[1:]:
            k = int(r.case.split("= ")[1])
            ok &= math.isclose(plan.node_scale * (k + 1), r.scale, rel_tol=1e-12)
            ok &= r.count == k + 1
        return ok
    if name == "dp-ucb":
        return (math.isclose(plan.scale, lap[0].scale, rel_tol=1e-12)
                and plan.stages[0]["levels"] == lap[0].count)
    if name.startswith("dp-se2"):
        svt = [r for r in rel if r.law == "svt"][0]
        return (math.isclose(plan.svt_scale, svt.scale, rel_tol=1e-12)
                and math.isclose(plan.svt_scale, svt.query_scale, rel_tol=1e-12)
                and math.isclose(plan.hist_scale, lap[0].scale, rel_tol=1e-12))
    if name == "dp-se":
        import numpy as np

        used = np.asarray(plan.fpar)[:, 2:, 0][np.asarray(plan.batch)[:, 2:] > 0]
        return bool(np.allclose(used, lap[0].scale, rtol=1e-12, atol=0))
    return math.isclose(plan.noise_scale, lap[0].scale, rel_tol=1e-12)  # episodic, lazy


ENGINE_NOISE = ["dp-ts", "dp-ucb", "dp-se2", "dp-se2-modified", "dp-se", "adap-ucb",
                "adap-klucb", "dp-klucb", "dp-imed", "lazy-dp-ts"]


@pytest.mark.parametrize("name", ENGINE_NOISE)
@pytest.mark.parametrize("horizon", [10, 12_345, 2**20])
def test_declared_releases_are_the_engines_scales(name, horizon):
    assert engine_scales_match(name, horizon)


def test_every_private_algorithm_declares_its_releases():
    from bandsim.algorithms import arm_elimination, elimination, episodic, per_step, svt

    builtins = {a.name for a in (*per_step.ALGORITHMS, *elimination.ALGORITHMS, *svt.ALGORITHMS,
                                 *episodic.ALGORITHMS, arm_elimination.SDP_AE,
                                 arm_elimination.VB_SDP_AE)}
    assert len(builtins) == 21
    for a in algorithms().values():
        if a.private and a.name in builtins:
            assert a.participation is not None, a.name
            assert a.name in accountable()


@pytest.mark.parametrize("name,target,mutant", [
    # DP-UCB's tree one level short: ⌈log₂T⌉ instead of ⌈log₂T⌉ + 1 (+3.8 % ε at T = 1e5)
    ("dp-ucb", "bandsim.algorithms.per_step.tree_levels",
     lambda horizon: max(1, math.ceil(math.log2(horizon)))),
    # DP-TS's nodes without the ε/2 split (Lap((r + 1)/ε))
    ("dp-ts", "bandsim.algorithms.episodic.dp_ts_constants",
     lambda eps, log2=True: dict(c_shift=6 * math.sqrt(8) / eps, chunk_scale=2 / eps,
                                 node_scale=1 / eps, log_factor=1.0)),
    # the episode Laplace scale divided by an episode length (L = 2)
    ("adap-ucb", "bandsim.algorithms.episodic.adap_constants",
     lambda eps, alpha: dict(c=__import__("numpy").array([0.0, alpha, eps]),
                             noise_scale=1 / (2 * eps), ratio=2.0)),
    # DP-SE 2's histogram at 1/ε instead of 2/ε
    ("dp-se2", None, None),
])
def test_negative_control_engine_scale_mutations(monkeypatch, name, target, mutant):
    assert engine_scales_match(name)
    if name == "dp-se2":
        from bandsim.algorithms import svt

        orig = svt.Se2Plan
        monkeypatch.setattr(svt, "Se2Plan",
                            lambda **kw: orig(**{**kw, "hist_scale": kw["hist_scale"] / 2}))
    else:
        monkeypatch.setattr(target, mutant)
    assert not engine_scales_match(name)


def test_per_user_text_states_the_releases():
    algo = get_algorithm("dp-ucb")
    prm = algo.resolve({"epsilon": 0.5}, 10**5)
    text = per_user_text(releases_of(algo, prm, 10**5), "dp-ucb", 0.5, 10**5)
    assert "18 × Lap(36)" in text and "parallel composition across rewards" in text
    assert "--epsilon 0.5 --horizon 100000 --returning B" in text
    algo = get_algorithm("dp-ts")
    text = per_user_text(releases_of(algo, algo.resolve({"epsilon": 0.5}, 100), 100), "dp-ts")
    assert "Lap(4) on its epoch's completed sum" in text and "r = 0 … r = 5" in text
    algo = get_algorithm("dist-dp-se")
    text = per_user_text(releases_of(algo, {}, 100), "dist-dp-se")
    assert text.startswith("each user contributes to one batch (parallel composition)")


def test_result_privacy_carries_the_generated_text():
    import bandsim

    res = bandsim.simulate("dp-se2", horizon=500, runs=1, seed=1, epsilon=0.5, instance="C1",
                           arms=3, threads=1)
    assert "SVT (threshold Lap(12), queries Lap(12))" in res.config["privacy"]["per_user"]


@pytest.mark.parametrize("name,expected", [("dp-ucb", 5.0), ("dp-se2", 5.0)])
def test_returning_works_for_the_per_step_and_svt_algorithms(name, expected):
    rows = {c.method.split(" (")[0]: c.epsilon for c in compose(name, 0.5, 1, 10, DELTA,
                                                                 horizon=10**5)}
    assert rows["basic composition"] == pytest.approx(expected)
    assert rows["PLD accountant"] < expected


def test_dp_ucb_pld_is_dp_accountings():
    m = 18  # ⌈log₂ 1e5⌉ + 1
    acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_event.LaplaceDpEvent(m / 0.5), m * 10)
    rows = {c.method.split(" (")[0]: c.epsilon for c in compose("dp-ucb", 0.5, 1, 10, DELTA,
                                                                 horizon=10**5)}
    assert rows["PLD accountant"] == pytest.approx(acc.get_epsilon(DELTA), abs=2e-3)


def test_missing_dp_accounting_is_one_line(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    with pytest.raises(ConfigError, match="pip install dp-accounting"):
        compose("dp-ts", 0.5, 1, 10, DELTA)
    with pytest.raises(ConfigError, match="pip install dp-accounting"):
        calibrate("dp-ts", 10, 1.0, DELTA, 1)


def test_list_marks_every_mechanism_float_safe_or_not(capsys, monkeypatch):
    import dataclasses

    from bandsim import registry
    from bandsim.cli import main
    from bandsim.cli.listing import _releases

    for m in registry.mechanisms().values():
        if m.kind != "none" and not m.kernels:
            assert m.float_safe is not None, m.name
    assert not registry.get_mechanism("laplace").float_safe  # float64 Laplace on a sum
    assert registry.get_mechanism("dist-dp").float_safe      # integers mod m
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "float64 Laplace" in out and "integers" in out and "Mironov" in out
    undeclared = dataclasses.replace(registry.get_mechanism("laplace"), float_safe=None)
    assert _releases(undeclared) == "not declared"  # never shown as safe by default


@pytest.mark.parametrize("name", ["dp-ucb", "dp-se2", "dp-ts", "adap-ucb"])
def test_returning_cli_for_engine_algorithms(capsys, name):
    from bandsim.cli import main

    base = ["audit", name, "--returning", "4", "--target-delta", "1e-6", "--horizon", "1000"]
    assert main(base + ["--epsilon", "0.5", "--batch-size", "1"]) == 0
    assert "PLD accountant" in capsys.readouterr().out
    assert main(base + ["--target-epsilon", "1", "--json"]) == 0
    assert '"epsilon_per_batch"' in capsys.readouterr().out


def test_missing_dp_accounting_cli_is_one_line_exit_2(monkeypatch, capsys):
    import sys

    from bandsim.cli import main

    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    code = main(["audit", "dp-ucb", "--epsilon", "0.5", "--returning", "3",
                 "--target-delta", "1e-6"])
    err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err.err + err.out
    assert "pip install dp-accounting" in err.err + err.out


def _dp_ts_audit(eps=0.8):
    from bandsim.algorithms import episodic
    from bandsim.registry import get_mechanism

    spec = get_mechanism("dp-ts-composition")
    return episodic._audit_dp_ts(spec.derive(64, {"epsilon": eps}), "dp-ts")


def test_dp_ts_exact_audit_reads_the_declared_releases(monkeypatch):
    from bandsim.algorithms import episodic

    rep = _dp_ts_audit()
    assert rep.passed
    assert [r.exact for r in rep.rows] == pytest.approx([0.4, 0.4, 0.8], rel=1e-12)
    # negative control: the declared nodes without the ε/2 split (Lap(2(r + 1)/ε) → Lap((r +
    # 1)/ε)); the audit restated no constant, so its tree row doubles and fails
    orig = episodic.dp_ts_participation

    def halved(params, horizon):
        return [episodic.Release(r.law, r.what, r.scale / 2 if r.case else r.scale,
                                 count=r.count, case=r.case) for r in orig(params, horizon)]

    monkeypatch.setattr(episodic, "dp_ts_participation", halved)
    rep = _dp_ts_audit()
    assert not rep.passed
    assert [r.short for r in rep.failures] == ["ε tree", "ε"]
    assert rep.rows[1].exact == pytest.approx(0.8, rel=1e-12)
