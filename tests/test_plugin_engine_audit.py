"""A plug-in's own engine in the audits' net (docs/plugins.md, "An engine of your own").

An engine that records through the release primitive of ``bandsim.plugin`` is audited by
the whole-run audit like a built-in one (example (f) of docs/plugins.md, run by
tests/test_plugins.py). One that does not stays "not auditable" — never PASS — and the
suite never ranks it above an audited algorithm of its trust model, however low its
regret: here an "oracle" engine that pulls the best arm from the first pull (regret 0,
claiming central ε-DP) against DP-SE.
"""
import math

import numpy as np
import pytest

import bandsim
from bandsim import registry
from bandsim.cli import main
from bandsim.plugin import EPSILON, laplace_participation
from bandsim.studies import leaderboard as lb
from bandsim.studies import suite

ORACLE = "oracle-engine-test"


class _OraclePlan:
    """An engine of its own that records nothing: every pull on the best arm."""

    stages = []

    def run_shard(self, rng, shard):
        best = np.argmin(shard.gaps, axis=1)
        shard.pulls[:] = 0
        shard.pulls[np.arange(len(best)), best] = shard.horizon
        shard.regret[:] = 0.0
        shard.elim[:] = -1


@pytest.fixture(scope="module")
def oracle():
    registry.algorithms()  # built-ins first
    bandsim.register(bandsim.Algorithm(
        name=ORACLE, summary="pulls the best arm (a test plug-in that records nothing)",
        trust="central ε-DP", source="none (a test plug-in)", params=(EPSILON,),
        plan=lambda prm, arms, horizon: _OraclePlan(), engine="oracle", mechanism="laplace",
        participation=laplace_participation("nothing it records"), family="se"),
        replace=True)
    yield ORACLE
    registry.unregister(ORACLE)


def test_an_engine_that_does_not_record_is_not_auditable_never_pass(oracle, capsys):
    from bandsim.wholerun import audit

    r = audit(oracle)
    assert r.verdict == "not auditable" and "no recording mode" in r.reason
    res = bandsim.simulate(oracle, means=[0.75, 0.7, 0.65], epsilon=0.5, horizon=20_000,
                           runs=4, seed=1)
    w = res.config["privacy"]["whole_run"]
    assert w["verdict"] == "not auditable" and "no recording mode" in w["reason"]
    assert main(["audit", oracle, "--whole-run", "--horizon", "20000"]) == 2
    capsys.readouterr()


def _row(algorithm, regret, whole_run, cell="C2"):
    return dict(role="entry", trust="central ε-DP", algorithm=algorithm, instance=cell,
                horizon=10**5, epsilon=0.5, regret_mean=regret, regret_ci95=1.0,
                private=True, counterpart="", counterpart_note="", provisional=False,
                provisional_note="", verdict="PASS", audit_ratio=math.nan, runs=8,
                seconds=0.0, whole_run_verdict=whole_run)


def test_the_board_ranks_an_unaudited_row_after_every_audited_one():
    rows = [_row("blind", 1.0, "not auditable"), _row("a", 50.0, "PASS"),
            _row("b", 20.0, "PASS"), _row("blind2", 0.5, "not auditable"),
            _row("blind", 1.0, "not auditable", "C3"), _row("a", 50.0, "PASS", "C3"),
            _row("b", 20.0, "PASS", "C3"), _row("c", 30.0, "FAIL", "C3")]
    lb.rank_rows(rows)
    c2 = {r["algorithm"]: r["rank"] for r in rows if r["instance"] == "C2"}
    assert c2 == {"b": 1.0, "a": 2.0, "blind2": 3.0, "blind": 4.0}  # tiers, regret within
    c3 = {r["algorithm"]: r["rank"] for r in rows if r["instance"] == "C3"}
    assert c3["blind"] == 3.0 and math.isnan(c3["c"])  # a FAIL is not ranked at all
    board = lb.board_rows(rows)
    order = [b["algorithm"] for b in board]
    assert order == ["b", "a", "blind2", "blind", "c"], order
    assert [b["position"] for b in board] == [1, 2, 3, 4, 0]
    assert [b["unaudited"] for b in board[:4]] == [False, False, True, True]


def test_the_suite_never_ranks_an_engine_it_cannot_audit_above_an_audited_one(oracle,
                                                                             tmp_path, capsys):
    """The oracle has regret 0 and DP-SE does not: the oracle still comes second."""
    tiny = suite.Tier("quick", (suite.SuiteInstance("C2-K3", "C2", 3),), (1.0,), (20_000,),
                      runs=8, step_runs=4, budget=0.4, algorithms=("dp-se", oracle))
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(suite.TIERS, "quick", tiny)
        assert main(["suite", "--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    capsys.readouterr()
    rows, board, _ = lb.read(tmp_path)
    by = {r["algorithm"]: r for r in rows if r["role"] == "entry"}
    assert by[oracle]["regret_mean"] == 0.0 < by["dp-se"]["regret_mean"]
    assert by[oracle]["whole_run_verdict"] == "not auditable"
    assert by["dp-se"]["whole_run_verdict"] == "PASS"
    assert by["dp-se"]["rank"] == 1 and by[oracle]["rank"] == 2
    pos = {b["algorithm"]: b["position"] for b in board}
    assert pos["dp-se"] == 1 and pos[oracle] == 2
    md = (tmp_path / "leaderboard.md").read_text()
    assert "2/2 (not auditable: after the audited)" in md
