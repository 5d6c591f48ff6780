"""The whole-run record–replay audit (bandsim.wholerun): every recordable built-in PASSes,
a recording with no changed user is the production run, and each realistic mistake —
in encoding, in the reward model, in the engine's use of a release, in a plan's noise
scale, in a plug-in's sampler — FAILs with a line naming the release and the check."""
import dataclasses
import json
import math
import re
from pathlib import Path

import numba
import numpy as np
import pytest

import bandsim
from bandsim import registry
from bandsim.cli import main
from bandsim.kernels import elimination
from bandsim.kernels._jit import rebind
from bandsim.kernels.codes import LAW_LAPLACE
from bandsim.kernels.record import release, rsum
from bandsim.wholerun import audit
from bandsim.wholerun.checks import MEANS, audit_params, recordable
from bandsim.wholerun.driver import play

T = 100_000
RECORDABLE = [n for n, a in registry.algorithms().items() if a.private
              and recordable(a, a.resolve(audit_params(a), T), T) is None]


def test_the_elimination_and_decision_algorithms_are_recordable():
    engines = {registry.get_algorithm(n).engine for n in RECORDABLE}
    assert "elimination" in engines  # (no built-in private algorithm runs the decision engine)
    assert {"dp-se", "dist-dp-se", "sdp-ae", "dist-dp-se-shuffle"} <= set(RECORDABLE)


@pytest.mark.parametrize("name", RECORDABLE)
def test_every_recordable_builtin_passes(name):
    r = audit(name, horizon=T)
    assert r.verdict == "PASS", r.failures
    assert r.neighbours >= 9 and r.releases >= 3 and not r.failures
    if math.isfinite(r.claimed):  # a Laplace claim: what one reward enters composes to it
        assert 0 < r.epsilon <= r.claimed * (1 + 1e-12)
    if name == "dp-se":  # one epoch sum at Lap(1/ε): exactly the claim
        assert r.epsilon == pytest.approx(r.claimed, rel=1e-12)


@pytest.mark.parametrize("name", ["dp-se", "dist-dp-se", "cdp-se", "sdp-ae",
                                  "dist-dp-se-shuffle"])
def test_a_recording_with_no_changed_user_is_the_production_run(name, monkeypatch):
    """Same seed stream as simulate(runs=1): the recorder does not alter a draw."""
    # the draws only: the result's whole-run verdict, audited at these settings by
    # test_every_recordable_builtin_passes, is not computed again
    monkeypatch.setenv("BANDSIM_RESULT_AUDIT", "off")
    algo = registry.get_algorithm(name)
    means, seed = (0.9, 0.8, 0.7), 7
    res = bandsim.simulate(name, means=list(means), horizon=T, runs=1, seed=seed,
                           **audit_params(algo))
    ss = np.random.SeedSequence(seed).spawn(2)[1].spawn(1)[0]
    run = play(algo, res.config["params"], means, T, rng=np.random.default_rng(ss))
    assert np.array_equal(run.pulls, res.pulls[0])
    assert np.array_equal(run.elim, res.elimination_time[0])
    assert run.regret[-1] == res.pseudo_regret[0, -1]
    assert len(run.rel) > 0


# ------------------------------------------------------------------ negative controls

def _fails(report, check, law=None):
    """Every failure is one line naming a release; one of them is ``check``'s."""
    assert report.verdict == "FAIL"
    lines = [f for f in report.failures if f.startswith(check)]
    assert lines, report.failures
    assert all("release #" in f for f in lines), lines
    if law:
        assert any(law in f for f in lines), lines
    return lines


@numba.njit
def _ceil_encode(rng, x, g):  # randomized rounding started from ⌈xg⌉: x̂ reaches g + 1
    y = x * g
    return np.int64(math.ceil(y)) + (1 if rng.random() < y - math.floor(y) else 0)


@numba.njit
def _unclipped(rng, mu, sigma):  # the clipped Gaussian reward, not clipped
    return mu + sigma * rng.standard_normal()


@numba.njit
def _reads_the_true_sum(rng, mech, rcode, rpar, n, fpar, ipar, rec, run, t0, arm):
    """DP-SE's batch, its release logged, but the engine handed the true sum."""
    s = rsum(rng, rec, run, t0, arm, rcode, rpar, n)
    release(rec, run, t0 + n, arm, n, LAW_LAPLACE, 0, s, fpar[0],
            s + rng.laplace(0.0, fpar[0]))
    return s


@pytest.fixture
def mutated(monkeypatch):
    """``mutated({"name": kernel})``: the elimination engine with that callee replaced."""
    orig = elimination.run_shard

    def apply(replacements):
        monkeypatch.setattr(elimination, "run_shard", rebind(orig, replacements))

    return apply


def test_rounding_from_the_ceiling_fails_b(mutated):
    assert audit("dist-dp-se").verdict == "PASS"
    mutated({"encode": _ceil_encode})
    lines = _fails(audit("dist-dp-se"), "(b) sensitivity", "batch")
    assert any("outside [0, n g]" in f or "changes by" in f for f in lines)


def test_an_unclipped_gaussian_reward_fails_b(mutated):
    mutated({"clipped_gaussian": _unclipped})
    lines = _fails(audit("dist-dp-se"), "(b) sensitivity", "batch")
    assert any("outside [0, n g]" in f for f in lines)


def test_an_engine_that_reads_the_true_sum_fails_a(mutated):
    """The mirror replay (every other reward x → 1 − x, releases frozen) decides otherwise."""
    assert audit("dp-se").verdict == "PASS"
    mutated({"batch_estimate": _reads_the_true_sum})
    lines = _fails(audit("dp-se"), "(a) decisions", "laplace")
    assert any("mirrored" in f for f in lines)


@pytest.fixture
def weak_dp_se():
    """A plug-in copy of dp-se whose plan draws Laplace noise 20 % too small."""
    base = registry.get_algorithm("dp-se")

    def plan(params, arms, horizon):
        p = base.plan(params, arms, horizon)
        return dataclasses.replace(p, fpar=np.asarray(p.fpar) * 0.8)

    bandsim.register(dataclasses.replace(base, name="dp-se-weak-scale", plan=plan),
                     replace=True)
    yield "dp-se-weak-scale"
    registry.unregister("dp-se-weak-scale")


def test_a_laplace_scale_20_percent_too_small_fails_c_and_d(weak_dp_se):
    r = audit(weak_dp_se)
    _fails(r, "(c) scales", "laplace")
    d = _fails(r, "(d) composition", "laplace")
    assert any("ε = 0.625 > claimed 0.5" in f for f in d), d
    assert r.epsilon == pytest.approx(0.625)


def test_an_engine_that_ignores_the_recorder_is_not_auditable():
    """A plan whose run_shard takes ``rec`` but drops it records nothing: never a PASS."""
    base = registry.get_algorithm("dp-se")

    class Deaf:
        def __init__(self, plan):
            self.plan = plan

        def __getattr__(self, name):
            return getattr(self.plan, name)

        def run_shard(self, rng, shard, rec=None):
            self.plan.run_shard(rng, shard)

    bandsim.register(dataclasses.replace(base, name="dp-se-deaf",
                                         plan=lambda p, a, h: Deaf(base.plan(p, a, h))),
                     replace=True)
    try:
        r = audit("dp-se-deaf")
        assert r.verdict == "not auditable" and "recorded 0 reward blocks" in r.reason
    finally:
        registry.unregister("dp-se-deaf")


# ------------------------------------------------------------------ plug-in samplers

@pytest.fixture(scope="module")
def randomized_response():
    """The randomized-response example of docs/plugins.md and its half-flip twin."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "plugins.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "rr_sampler" in b)
    exec(compile(block, "docs/plugins.md", "exec"), {"__name__": "docs_plugins_rr"})
    yield
    registry.unregister("rr-se", "rr-weak-se", "rr", "rr-weak")


def test_an_untrusted_sampler_is_sampled_at_its_recorded_batch_sizes(randomized_response):
    good = audit("rr-se", {"epsilon": 1.0})
    assert good.verdict == "PASS", good.failures
    assert good.sampled_sizes and max(good.sampled_sizes) <= 64
    weak = audit("rr-weak-se", {"epsilon": 1.0})
    lines = _fails(weak, "(f) sampler", "batch")
    assert all(f"n = {n}" in " ".join(lines) for n in weak.sampled_sizes)
    # its declared law and scale hold; the draws of its hook do not: the many-run law test
    # (g) sees it too, in the recorded releases given their counts k
    assert not [f for f in weak.failures if not f.startswith(("(f)", "(g)", "(h)"))]
    assert any(f.startswith("(g) law: release class batch") for f in weak.failures)


# ------------------------------------------------------------------ command line

def test_the_command_line(capsys):
    assert main(["audit", "dp-se", "--whole-run", "--horizon", "20000"]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "neighbours" in out and "composed ε" in out
    assert main(["audit", "dp-se,dist-dp-se", "--whole-run", "--epsilon", "0.3",
                 "--horizon", "20000", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["verdict"] for r in rows] == ["PASS", "PASS"] and rows[0]["claimed"] == 0.3


@pytest.mark.parametrize("argv, field", [
    (["audit", "ucb1", "--whole-run"], "algorithm"),
    (["audit", "dp-se", "--whole-run", "--sampled"], "sampled"),
    (["audit", "dp-se", "--whole-run", "--returning", "3"], "returning"),
    (["audit", "dp-se", "--whole-run", "--horizon", "1"], "horizon"),
    (["audit", "dp-se", "--whole-run", "--epsilon", "-1"], "epsilon"),
    (["audit", "dp-se", "--whole-run", "--scale", "2"], "scale"),
])
def test_bad_input_fails_closed_in_one_line(argv, field, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {field}=")


def test_the_verdict_reaches_results_list_and_board(capsys, monkeypatch, tmp_path):
    from bandsim.studies.leaderboard import failed_audit
    from bandsim.studies.suite import audit_columns

    res = bandsim.simulate("dist-dp-se", means=[0.9, 0.5], horizon=20_000, runs=2, seed=1,
                           epsilon=0.5)
    w = res.config["privacy"]["whole_run"]
    assert w["verdict"] == "PASS" and w["horizon"] == 20_000
    assert w["command"].startswith("bandsim audit dist-dp-se --whole-run --epsilon 0.5")
    cols = audit_columns(res.config["privacy"], True)
    assert cols["whole_run_verdict"] == "PASS"
    assert failed_audit(dict(verdict="PASS", whole_run_verdict="FAIL"))
    assert not failed_audit(dict(verdict="PASS", whole_run_verdict="PASS"))
    assert "whole_run" not in bandsim.simulate("ucb1", means=[0.9, 0.5], horizon=1000,
                                               runs=1).config["privacy"]
    monkeypatch.setenv("BANDSIM_CACHE_DIR", str(tmp_path))  # a fresh verdict cache
    main(["list", "--json"])
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out) if "whole_run" in r}
    assert rows["ucb1"]["whole_run"] == "-"
    assert rows["cdp-se"]["whole_run"] == "not run — bandsim audit cdp-se --whole-run"
    assert main(["audit", "dp-se,cdp-se", "--whole-run"]) == 0  # at the defaults: kept
    capsys.readouterr()
    main(["list", "--json"])
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out) if "whole_run" in r}
    # the verdict and what its budget could detect (scale deficit, correlation, draws)
    assert re.fullmatch(r"PASS ε 0\.5 ≤ 0\.5; detects scale −\d+ % \(−\d+ % in every "
                        r"law\), \|ρ\| ≥ 0\.\d+; each law ≥ \d{1,3}(,\d{3})* draws",
                        rows["dp-se"]["whole_run"]), rows["dp-se"]["whole_run"]
    assert rows["cdp-se"]["whole_run"].startswith("PASS; detects scale −")
    assert w["power"]["classes"] >= 1 and "noise scale ≥" in w["detects"]
    assert w["power"]["min_floor"] >= 1000 and "each law from ≥ " in w["detects"]


def test_a_whole_run_fail_is_never_ranked():
    from bandsim.studies import leaderboard as lb

    rows = [dict(role="entry", trust="central ε-DP", algorithm=a, cost_ratio=float("nan"),
                 verdict="PASS", audit_ratio=float("nan"), provisional=False,
                 provisional_note="", counterpart="se", counterpart_note="", runs=1,
                 seconds=0.0, rank=1.0, whole_run_verdict=w, failed_audit=lb.failed_audit(
                     dict(verdict="PASS", whole_run_verdict=w)))
            for a, w in (("dp-se", "PASS"), ("dist-dp-se", "FAIL"))]
    board = {b["algorithm"]: b for b in lb.board_rows(rows)}
    assert board["dist-dp-se"]["failed"] and not board["dp-se"]["failed"]
    assert board["dp-se"]["position"] == 1 and board["dist-dp-se"]["position"] == 0
    failed = lb.failed_section(list(board.values()))
    col = failed.columns.index("whole-run audit")
    assert [(r[1], r[col]) for r in failed.rows] == [("dist-dp-se", "1 FAIL")]
    ranked = lb.board_section("central ε-DP", list(board.values()))
    assert [r[1] for r in ranked.rows] == ["dp-se"]
    assert ranked.rows[0][ranked.columns.index("whole-run audit")] == "1 PASS"
