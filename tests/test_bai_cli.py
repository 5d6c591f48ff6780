"""Best-arm identification in the user-facing commands: run, list, results, plot, audit, suite,
reproduce; T*_ε of Jourdan & Azize (NeurIPS 2025) against the thesis bound (Azize, PhD thesis
2024, Cor. 4.25)."""
import json
import math

import numpy as np
import pytest

from bandsim import registry
from bandsim.bai import audit, bounds, declarations
from bandsim.studies import bai_board as board, bai_figure as fig57
from bandsim.cli import main

C2 = [0.75, 0.625, 0.5, 0.375, 0.25]
LN = math.log(1 / 0.03)


def test_run_prints_the_bai_table_with_both_bounds(capsys):
    assert main(["run", "dp-se-bai", "--instance", "C3", "--arms", "5", "--epsilon", "0.1",
                 "--delta", "0.01", "--runs", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for col in ("E[τ]", "median", "error CI", "censored", "bound (thesis)", "E[τ]/bound",
                "bound (JA'25)"):
        assert col in out
    assert "559" in out and "605" in out  # C3, ε = 0.1: thesis bound and T*_ε·ln(1/3δ)


def test_delta_is_the_risk_and_confidence_names_the_same_parameter(capsys):
    argv = ["run", "dp-se-bai", "--instance", "C3", "--epsilon", "1", "--runs", "5",
            "--seed", "2", "--json"]
    assert main(argv + ["--delta", "0.05"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(argv + ["--confidence", "0.05"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a[0]["delta"] == b[0]["delta"] == 0.05 and a[0]["tau_mean"] == b[0]["tau_mean"]


@pytest.mark.parametrize("argv,field", [
    (["dp-se,dp-se-bai", "--delta", "0.01"], "algorithm"),      # --delta would mean two things
    (["dp-se-bai", "--delta", "0.01", "--horizon", "1e5"], "horizon"),
    (["dp-se-bai", "--delta", "0.01", "--confidence", "0.01"], "confidence"),
    (["dp-se-bai", "--delta", "1.5"], "delta"),
    (["se-bai", "--delta", "0.01"], "epsilon"),                # non-private: no ε
    (["dp-se", "--epsilon", "1"], "horizon"),                  # regret still needs T
])
def test_bad_bai_command_lines_are_one_line_naming_the_flag(argv, field, capsys):
    extra = ["--epsilon", "1"] if argv[0] != "dp-se" else []
    assert main(["run", *argv, *extra, "--instance", "C3", "--runs", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {field}") and "\n" not in err, err


def test_sweep_results_and_plot_of_a_bai_directory(tmp_path, capsys):
    d = tmp_path / "sweep"
    # ε above C3's privacy-free ε = ln 9 (T*_ε = T*_KL: no slow bound in this test)
    assert main(["run", "dp-se-bai,se-bai", "--instance", "C3", "--epsilon", "3,5",
                 "--delta", "0.01,0.1", "--runs", "10", "--seed", "3", "--out", str(d)]) == 0
    assert len(list(d.glob("*.parquet"))) == 6  # 2·2 private + 2 non-private
    capsys.readouterr()
    assert main(["results", str(d), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 6 and all(r["censored"] == 0 for r in rows)
    import bandsim

    assert bandsim.load(d).num_rows == 6
    runs = bandsim.load(d, level="run").to_pandas()
    assert len(runs) == 60
    assert sorted(runs.groupby("file").tau.mean().round(6)) == sorted(
        round(r["tau_mean"], 6) for r in rows)
    assert main(["plot", str(d), "--x", "delta"]) == 0
    assert (d / "plot.png").stat().st_size > 10_000
    assert main(["plot", str(d), "--x", "arms"]) == 2  # only ε or δ for stopping times


def test_censored_runs_are_drawn_as_lower_bounds_not_means(tmp_path):
    from bandsim.bai import simulate_bai
    from bandsim.studies import bai_study as study

    res = simulate_bai("dp-se-bai", instance="C1", arms=5, epsilon=1, delta=0.01, runs=4,
                       budget=1000, seed=1, threads=1)
    res.to_parquet(tmp_path / "c.parquet")
    row = study.collect(tmp_path)[0]
    assert row["censored"] == 4 and math.isnan(row["tau_mean"]) and row["tau_mean_lower"] == 1000
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    study._panel(ax, [row], "epsilon")
    marks = [ln for ln in ax.lines if ln.get_marker() == "^"]
    assert marks and marks[0].get_ydata()[0] == 1000  # the min(τ, T_max) lower bound, hollow
    assert not ax.containers  # no error bar: no mean is drawn for it
    plt.close(fig)


def test_t_star_eps_reproduces_the_reference_values_and_is_free_above_the_threshold():
    # Jourdan & Azize 2025 lower bound T*_ε·ln(1/(3δ)) at δ = 0.01 (independent solver):
    # C2: 995 at ε = 0.1, 435 at ε = 1 (T*_KL = 122.9)
    assert bounds.t_star_eps(C2, 0.1) * LN == pytest.approx(995, rel=5e-3)
    assert bounds.t_star_eps(C2, 1.0) * LN == pytest.approx(435, rel=5e-3)
    free = bounds.privacy_free_epsilon(C2)
    assert free == pytest.approx(math.log(0.75 * 0.75 / (0.25 * 0.25)))  # the farthest arm
    assert bounds.t_star_eps(C2, free * 1.01) == pytest.approx(bounds.t_star_kl(C2))
    # below the threshold privacy costs: strictly more than T*_KL (an ε → ∞ reading fails)
    assert bounds.t_star_eps(C2, 0.1) > 2 * bounds.t_star_kl(C2)


def test_list_shows_the_identification_task(capsys):
    assert main(["list", "--json"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if r["kind"] == "algorithm"]
    task = {r["name"]: r["task"] for r in rows}
    assert task["dp-se-bai"] == task["se-bai"] == "identification" and task["dp-se"] == "regret"
    figs = [r["name"] for r in json.loads(_list_json(capsys)) if r["kind"] == "figure"]
    assert "azize-fig5.7" in figs


def _list_json(capsys):
    main(["list", "--json"])
    return capsys.readouterr().out


def test_audit_passes_and_the_recorded_check_catches_80_percent_noise(capsys):
    assert main(["audit", "dp-se-bai", "--epsilon", "0.5"]) == 0
    assert "PASS" in capsys.readouterr().out
    good = audit.whole_run("dp-se-bai", 0.5, runs=300)
    bad = audit.whole_run("dp-se-bai", 0.5, runs=300, scale_factor=0.8)
    assert good["verdict"] == "PASS" and good["blocks_ok"]
    assert bad["verdict"] == "FAIL" and not bad["scale_ok"]


def test_board_refuses_to_rank_an_algorithm_whose_errors_exceed_delta(monkeypatch):
    b = board.rows("quick", algorithms=["dp-se-bai"], runs=20)
    assert all(r["rank"] == 1 and r["audit"] == "PASS" for r in b)
    # negative control: an identifier that always recommends a wrong arm
    real = board.simulate_bai

    def wrong(*a, **k):
        res = real(*a, **k)
        res.correct[:] = False
        return res

    monkeypatch.setattr(board, "simulate_bai", wrong)
    b = board.rows("quick", algorithms=["dp-se-bai"], runs=20)
    assert all(r["rank"] is None and r["status"].startswith("fails correctness") for r in b)
    assert board.split(["dp-se", "dp-se-bai"]) == (["dp-se"], ["dp-se-bai"])


def test_fig57_reads_the_declarations_and_names_the_missing(monkeypatch):
    jobs2, missing2 = fig57.jobs(runs=5)  # every curve of the figure is declared today
    assert not missing2 and {j["algorithm"] for j in jobs2} == {n for n, _ in fig57.CURVES}
    assert np.all([j["delta"] == 0.01 for j in jobs2])
    monkeypatch.delitem(registry._ALGORITHMS, "adap-tt")  # one not (yet) declared
    jobs, missing = fig57.jobs(runs=5)
    assert {j["algorithm"] for j in jobs} <= set(declarations.ALGORITHMS)
    assert set(missing) == {"adap-tt"}
    assert len(jobs2) == len(jobs) + len(fig57.EPSILONS) * len(fig57.PANELS)


def test_board_ranks_an_algorithm_without_an_exact_audit_after_the_audited(monkeypatch):
    import dataclasses

    # the same DP-SE under a non-elimination engine name: as fast, but only the recorded
    # whole-run check applies to it, so it comes after the audited original
    twin = dataclasses.replace(declarations.get("dp-se-bai"), name="twin", engine="bai-other")
    monkeypatch.setitem(registry._ALGORITHMS, "twin", twin)
    monkeypatch.setattr(board, "INSTANCES", ("C3",))
    b = board.rows("quick", algorithms=["twin", "dp-se-bai"], runs=20)
    by = {(r["algorithm"], r["epsilon_cell"]): r for r in b}
    for eps in board.EPSILONS:
        assert by[("dp-se-bai", eps)]["rank"] == 1 and by[("twin", eps)]["rank"] == 2
        assert by[("twin", eps)]["audit"] == "not audited"
    assert audit.audit_text(twin).endswith("(recorded releases; no exact per-plan audit)")
    assert main(["audit", "twin", "--epsilon", "0.5"]) == 2  # no exact audit: one line


def test_regret_delta_takes_a_list_and_one_value_behaves_as_before(tmp_path, capsys):
    # (ε, δ)-DP's δ of the shuffle algorithm: a list sweeps it (one file per value); one
    # value keeps the old file name and result
    base = ["run", "sdp-ae", "--instance", "C2", "--arms", "3", "--epsilon", "1,2",
            "--horizon", "2e4", "--runs", "4", "--seed", "1"]
    assert main(base + ["--delta", "1e-6,1e-4", "--out", str(tmp_path / "two")]) == 0
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == [
        f"sdp-ae_C2_K3_eps{e}_delta{d}.parquet" for e in (1, 2) for d in ("0.0001", "1e-06")]
    assert main(base + ["--delta", "1e-6", "--out", str(tmp_path / "one")]) == 0
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == [
        "sdp-ae_C2_K3_eps1.parquet", "sdp-ae_C2_K3_eps2.parquet"]
    from bandsim import Result

    same = Result.from_parquet(tmp_path / "one" / "sdp-ae_C2_K3_eps1.parquet")
    swept = Result.from_parquet(tmp_path / "two" / "sdp-ae_C2_K3_eps1_delta1e-06.parquet")
    assert np.array_equal(same.pseudo_regret, swept.pseudo_regret)


def test_a_declared_identification_parameter_gets_its_flag(monkeypatch, capsys):
    import dataclasses

    from bandsim.params import Param

    # a declaration with a parameter of its own (as a top-two rule's threshold choice):
    # `run` and `bai` generate its flag from the declaration, and validate it there
    rule = Param("threshold", "theory", choices=("theory", "heuristic"), help="threshold")
    twin = dataclasses.replace(declarations.get("dp-se-bai"), name="twin",
                               params=declarations.get("dp-se-bai").params + (rule,))
    monkeypatch.setitem(registry._ALGORITHMS, "twin", twin)
    argv = ["run", "twin", "--instance", "C3", "--epsilon", "1", "--delta", "0.01", "--runs",
            "2", "--seed", "1", "--json"]
    assert main(argv + ["--threshold", "heuristic"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["algorithm"] == "twin"
    assert main(argv + ["--threshold", "bogus"]) == 2
    assert capsys.readouterr().err.startswith("error: threshold")
    assert main(["run", "dp-se-bai", *argv[2:], "--threshold", "theory"]) == 2  # not its own
    assert capsys.readouterr().err.startswith("error: threshold")


def test_a_sweep_file_of_identification_algorithms_runs_and_resumes(tmp_path, capsys):
    study = tmp_path / "s.toml"
    study.write_text('[study]\nruns = 5\nseed = 1\n[grid]\nalgorithm = ["dp-se-bai"]\n'
                     'instance = ["C3"]\nepsilon = [3, 5]\ndelta = [0.01, 0.1]\n')
    out = tmp_path / "o"
    assert main(["sweep", str(study), "--out", str(out)]) == 0
    files = sorted(out.glob("*.parquet"))
    assert len(files) == 4
    stamp = {f: f.stat().st_mtime_ns for f in files}
    assert main(["sweep", str(study), "--out", str(out)]) == 0  # resumed: nothing rewritten
    assert {f: f.stat().st_mtime_ns for f in files} == stamp
    study.write_text(study.read_text().replace("runs = 5", "runs = 5\nhorizon = 1e5"))
    capsys.readouterr()
    assert main(["sweep", str(study), "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith("error: horizon")
