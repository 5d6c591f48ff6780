"""A study is complete or says it is not: a killed sweep's `results`, `plot`, `load` and the
suite board state "k of n jobs"; `load` never returns the runs of a deleted or changed file."""
import errno
import json
import os
import shutil
import warnings

import pytest

import bandsim
from bandsim import Result
from bandsim.cli import main
from bandsim.studies import leaderboard, plotdir
from bandsim.studies import suite as suite_mod
from bandsim.studies.store import result_files
from bandsim.studies.sweep import sweep

STUDY = """
[study]
horizon = 5000
runs = 8
seed = 3
[grid]
algorithm = ["dp-se", "batch-se"]
instance = ["C1"]
arms = [3]
epsilon = [0.5, 1]
"""


def killed_sweep(tmp_path, monkeypatch, after):
    """A sweep of 3 jobs stopped (the disk fills up) after ``after`` of them are stored."""
    study, out = tmp_path / "s.toml", tmp_path / "out"
    study.write_text(STUDY)
    real, calls = Result.to_parquet, []

    def failing(self, path, *a, **k):
        calls.append(path)
        if len(calls) > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, path, *a, **k)

    monkeypatch.setattr(Result, "to_parquet", failing)
    assert main(["sweep", str(study), "--out", str(out)]) == 1
    monkeypatch.setattr(Result, "to_parquet", real)
    assert len(result_files(out)) == after
    assert json.loads((out / "study.json").read_text())["jobs"] == 3
    return study, out


def test_results_of_a_killed_sweep_say_k_of_n_jobs_in_every_format(tmp_path, monkeypatch,
                                                                    capsys):
    study, out = killed_sweep(tmp_path, monkeypatch, 1)
    capsys.readouterr()
    assert main(["results", str(out), "--json"]) == 0
    cap = capsys.readouterr()
    rows = json.loads(cap.out)  # stdout stays a strict JSON list
    assert len(rows) == 1 and rows[0]["jobs_done"] == 1 and rows[0]["jobs_total"] == 3
    assert "partial study: 1 of 3 jobs done" in " ".join(cap.err.split())
    assert main(["results", str(out), "--csv"]) == 0
    cap = capsys.readouterr()
    header, line = cap.out.splitlines()[:2]
    cols = dict(zip(header.split(","), line.split(",")))
    assert (cols["jobs_done"], cols["jobs_total"]) == ("1", "3")
    assert "1 of 3 jobs" in " ".join(cap.err.split())
    assert main(["results", str(out)]) == 0
    cap = capsys.readouterr()
    assert "PARTIAL STUDY, 1 of 3 jobs done" in " ".join(cap.out.split())
    # resumed to the end: complete, no warning, no PARTIAL
    sweep(study, out)
    assert main(["results", str(out), "--json"]) == 0
    cap = capsys.readouterr()
    rows = json.loads(cap.out)
    assert len(rows) == 3 and all(r["jobs_done"] == r["jobs_total"] == 3 for r in rows)
    assert "partial" not in cap.err.lower()
    assert main(["results", str(out)]) == 0
    assert "PARTIAL" not in capsys.readouterr().out


def test_plot_of_a_killed_sweep_says_partial_in_its_title(tmp_path, monkeypatch, capsys):
    study, out = killed_sweep(tmp_path, monkeypatch, 2)
    titles = []
    real = plotdir.provenance
    monkeypatch.setattr(plotdir, "provenance",
                        lambda fig, title, footer: (titles.append(title),
                                                    real(fig, title, footer))[1])
    capsys.readouterr()
    assert main(["plot", str(out), "--format", "png", "--dpi", "30"]) == 0
    assert titles[-1].startswith("PARTIAL STUDY: 2 of 3 jobs done\n")
    assert "partial study: 2 of 3 jobs done" in " ".join(capsys.readouterr().err.split())
    sweep(study, out)
    assert main(["plot", str(out), "--format", "png", "--dpi", "30"]) == 0
    assert "PARTIAL" not in titles[-1]


def test_load_warns_and_never_returns_runs_of_a_deleted_or_changed_file(tmp_path, capsys):
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    (tmp_path / "s.toml").write_text(STUDY)
    sweep(tmp_path / "s.toml", out)
    assert main(["results", str(out), "--consolidate"]) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # complete: no warning
        runs = bandsim.load(out, level="run")
    assert runs.num_rows == 3 * 8
    assert json.loads(runs.schema.metadata[b"bandsim.jobs"]) == {
        "done": 3, "total": 3, "partial": False, "studies": {".": {"done": 3, "total": 3}}}
    files = result_files(out)
    gone = files[0]
    stamp = (out / "consolidated.parquet").stat()
    gone.unlink()
    os.utime(out / "consolidated.parquet", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    with pytest.warns(UserWarning, match="partial study: 2 of 3 jobs done"):
        runs = bandsim.load(out, level="run")
    assert runs.num_rows == 2 * 8  # not the consolidated file's 24
    assert gone.name not in set(runs.column("file").to_pylist())
    assert set(runs.column("jobs_done").to_pylist()) == {2}
    with pytest.warns(UserWarning, match="2 of 3 jobs"):
        jobs = bandsim.load(out)
    assert jobs.num_rows == 2 and set(jobs.column("jobs_total").to_pylist()) == {3}
    assert json.loads(jobs.schema.metadata[b"bandsim.jobs"])["partial"] is True

    # a result file replaced by another's content, its old time stamp kept (so the
    # consolidated file still looks newer): skipped as damaged, its old runs never returned
    assert main(["results", str(out), "--consolidate"]) == 0
    a, b = files[1], files[2]
    st = b.stat()
    shutil.copyfile(a, b)
    os.utime(b, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert pq.read_table(out / "consolidated.parquet").num_rows == 16
    with pytest.warns(UserWarning, match="1 of 3 jobs"):
        runs = bandsim.load(out, level="run", allow_missing=True)
    assert runs.num_rows == 8 and set(runs.column("file").to_pylist()) == {a.name}


def test_the_suite_board_says_partial_when_configurations_fail(monkeypatch):
    def broken(job, *a, **k):
        if job.algorithm != "ucb1":
            raise RuntimeError("a broken plug-in")
        raise suite_mod.ConfigError("runs", 0, "skipped for the test")

    monkeypatch.setattr(suite_mod, "run_job", broken)
    rows, meta = suite_mod.run_suite("quick", algorithms=["dp-se"], progress=False)
    assert rows == [] and meta["jobs_done"] == 0 and meta["jobs_total"] > 0
    line = leaderboard.header_lines(meta)[-1]
    assert line.startswith(f"PARTIAL BOARD: 0 of {meta['jobs_total']:,} jobs")
    meta.update(jobs_done=meta["jobs_total"])
    assert not any("PARTIAL" in ln for ln in leaderboard.header_lines(meta))


def test_a_study_killed_before_its_first_job_says_0_of_n(tmp_path, monkeypatch, capsys):
    _, out = killed_sweep(tmp_path, monkeypatch, 0)
    capsys.readouterr()
    assert main(["results", str(out)]) == 2  # bad input: one line, exit 2
    err = " ".join(capsys.readouterr().err.split())
    assert "holds no bandsim result file (a study of 3 jobs, 0 of 3 done: rerun it)" in err
