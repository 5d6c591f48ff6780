"""``bandsim suite --backend local|dask``: the board through the results store — the same
rows bit for bit as the in-process suite, on Dask as locally, and after an interruption
and a resume (the finished configuration is not recomputed); the declared run costs and
the runs rule. A tiny slice (T = 2·10⁴, a few runs), so the module takes seconds."""
import pytest

from bandsim import ConfigError, registry
from bandsim.cli import main
from bandsim.costs import RunCost
from bandsim.studies import suite, suite_run
from bandsim.studies.store import Entry, Interrupted
from bandsim.studies.studydir import StudyDir

TINY = suite.Tier("tiny", (suite.SuiteInstance("C2-K3", "C2", 3), suite.OBD), (1.0,), (20_000,),
                  runs=8, step_runs=4, budget=None, long_horizon=20_000,
                  algorithms=("dp-se", "ucb1", "lazy-dp-ts"))
#: Its configurations: dp-se, ucb1, lazy-dp-ts and dp-se's counterpart se on two instances.
N = 8
#: The columns a board's rows must carry bit for bit whatever ran them.
EXACT = ("algorithm", "instance", "epsilon", "horizon", "runs", "seed", "regret_mean",
         "regret_ci95", "regret_median", "regret_sd", "verdict", "audit_exact",
         "whole_run_verdict", "imprecise", "precision_note")


def exact(rows):
    return sorted(tuple(repr(r[c]) for c in EXACT) for r in rows)


@pytest.fixture(scope="module")
def reference():
    rows, meta = suite.run_suite(TINY, progress=False)
    assert meta["jobs_done"] == meta["jobs_total"] == N and not meta["errors"]
    return rows


def test_the_stored_board_equals_the_in_process_one_locally_and_on_dask(reference, tmp_path):
    local, meta = suite_run.run_suite_stored(TINY, tmp_path / "a", backend="local",
                                             progress=False)
    assert exact(local) == exact(reference) and meta["resumed"] == 0
    dask, meta = suite_run.run_suite_stored(TINY, tmp_path / "b", backend="dask",
                                            progress=False)
    assert exact(dask) == exact(reference) and meta["backend"] == "dask"
    # run again: every configuration comes from the store, none is recomputed
    files = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "b" / "results").glob("*.parquet")}
    again, meta = suite_run.run_suite_stored(TINY, tmp_path / "b", backend="local",
                                             progress=False)
    assert meta["resumed"] == N and exact(again) == exact(reference)
    assert files == {p.name: p.stat().st_mtime_ns
                     for p in (tmp_path / "b" / "results").glob("*.parquet")}


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_an_interrupted_board_resumes_to_the_same_rows(reference, tmp_path, monkeypatch,
                                                       backend):
    """Interrupted halfway — after four of the eight configurations are written, the fourth
    not yet indexed (as a kill between a file's rename and the index leaves it; on Dask
    other tasks may be under way): the resumed board takes every written one from the
    store, recomputes none of them, and equals an uninterrupted run."""
    add, calls = StudyDir.add, []

    def killed(self, path, k, outcome, written=True):
        calls.append(path)
        if len(calls) == N // 2:
            raise KeyboardInterrupt
        return add(self, path, k, outcome, written)

    monkeypatch.setattr(StudyDir, "add", killed)
    with pytest.raises(Interrupted) as e:
        suite_run.run_suite_stored(TINY, tmp_path, backend=backend, progress=False)
    assert (e.value.done, e.value.total) == (N // 2 - 1, N)
    monkeypatch.setattr(StudyDir, "add", add)
    before = {p: p.stat().st_mtime_ns for p in calls}
    rows, meta = suite_run.run_suite_stored(TINY, tmp_path, backend="local", progress=False)
    assert N // 2 <= meta["resumed"] < N and exact(rows) == exact(reference)
    assert before == {p: p.stat().st_mtime_ns for p in calls}  # not recomputed


def test_a_log_file_gets_the_core_hours_too():
    """Plain progress lines (stderr not a terminal) carry the text the suite updates."""
    import io

    from rich.console import Console

    from bandsim.studies.jobs import PlainProgress

    f = io.StringIO()
    bar = PlainProgress(Console(file=f), every=0.0)
    task = bar.add_task("0/2 configurations", total=2)
    bar.update(task, completed=1, description="1/2 configurations · 0.10 core-h spent")
    assert f.getvalue().splitlines()[-1].startswith(
        "progress: 1/2 configurations · 0.10 core-h spent 1/2 (50 %)")


def test_progress_states_configurations_core_hours_spent_and_left():
    entries = [Entry(i, "s", None, None, "k") for i in range(3)]
    status = suite_run.CoreHours([3600.0, 7200.0, 1800.0], spent=1800.0, threads=2)
    assert status(entries, None, 0.0) == ("0/3 configurations · 0.50 core-h spent · "
                                          "≈ 3.50 core-h left (cost model)")
    entries[1].done = True
    assert status(entries, 1, 900.0) == ("1/3 configurations · 1.00 core-h spent · "
                                         "≈ 1.50 core-h left (cost model)")


def test_a_store_of_another_tier_is_refused(tmp_path):
    other = suite.Tier("tiny", TINY.instances[:1], (1.0,), (20_000,), runs=6, step_runs=4,
                       budget=None, algorithms=("dp-se",))
    suite_run.run_suite_stored(other, tmp_path, progress=False)
    with pytest.raises(ConfigError, match="another study"):
        suite_run.run_suite_stored(TINY, tmp_path, progress=False)


def test_the_cli_runs_a_stored_board_and_prints_the_tiers_cost(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(suite.TIERS, "full", TINY)
    assert main(["suite", "--full", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "core-hours" in out and f"total: {N} configurations" in out
    assert main(["suite", "--full", "--out", str(tmp_path), "--no-progress"]) == 0
    stored = sorted((tmp_path / "results").glob("*.parquet"))
    assert len(stored) == N and stored[0].name.startswith("dp-se_C2-K3_T=2e+04_eps=1--")
    assert main(["suite", "--quick", "--scheduler", "tcp://x:1", "--backend", "local",
                 "--out", str(tmp_path / "q")]) == 2


def test_run_costs_are_declared_and_o_t_engines_get_the_stated_runs():
    get = registry.get_algorithm
    lazy = get("lazy-dp-ts")
    # Lazy-DP-TS's event-driven engine (the default) is not charged the per-round cost
    assert suite.run_cost(lazy, 5, 10**8) < suite.run_cost(lazy, 5, 10**8,
                                                           dict(engine="per-round")) / 100
    assert not suite.horizon_linear(lazy) and suite.horizon_linear(get("dp-ts"))
    full = suite.plan("full")
    runs = {(j.algorithm, j.instance.key, j.horizon) for j in full.jobs if j.runs != 1000}
    assert runs and all(suite.horizon_linear(get(a)) and T == 10**8 for a, _, T in runs)
    assert {j.runs for j in full.jobs} == {1000, suite.TIERS["full"].step_runs}
    assert all(j.runs == 1000 for j in full.jobs if j.algorithm == "lazy-dp-ts")
    with pytest.raises(ConfigError, match="run_cost unit"):
        RunCost(1.0, "T²")
    with pytest.raises(ConfigError, match="run_cost ns"):
        RunCost(0.0)


def test_a_row_with_fewer_runs_is_ranked_only_when_precise():
    row = dict(runs=100, regret_mean=1000.0, regret_ci95=49.0)
    assert not suite.precision_columns(row, 1000)["imprecise"]
    row["regret_ci95"] = 50.0  # a 95 % CI of exactly 5 %: not below it
    wide = suite.precision_columns(row, 1000)
    assert wide["imprecise"] and "not ranked" in wide["precision_note"]
    assert not suite.precision_columns(dict(row, runs=1000), 1000)["imprecise"]


def test_the_html_provenance_reads_the_full_tiers_metadata():
    """The full tier has no per-configuration budget (None): its HTML board was a TypeError."""
    from bandsim.studies.board_render import provenance_rows

    full = dict(provenance_rows(dict(runs=1000, step_runs=100, long_horizon=10**8, budget=None)))
    assert full["runs"].startswith("1,000 per configuration; O(T) engines 100 at T ≥ 1e+08")
    assert "not run" not in full["runs"]
    quick = dict(provenance_rows(dict(runs=100, step_runs=10, long_horizon=10**6, budget=1.6)))
    assert "over ≈ 1.6 s by the declared run cost not run" in quick["runs"]
