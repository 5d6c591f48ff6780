"""Every writer fails closed: one line naming the path and the cause, a non-zero exit, before
the work where it can be known (a probe write), no partial file after.

Tests run as root, whom a read-only *directory* does not stop: a full disk is /dev/full
(stdout) or a probe made to raise ENOSPC/EROFS, "not a directory" a path under a regular file.
"""
import errno
import json
import subprocess
import sys

import pytest

import bandsim.atomic as atomic
from bandsim.cli import main

C1 = ["--instance", "C1", "--arms", "3", "--horizon", "1e4", "--runs", "4", "--seed", "1"]


@pytest.fixture
def study(tmp_path_factory):
    """A small stored sweep (two results) to plot and consolidate."""
    d = tmp_path_factory.mktemp("study")
    toml = d / "s.toml"
    toml.write_text('[study]\nname = "s"\nhorizon = 1e4\nruns = 4\nseed = 1\ninstance = "C1"\n'
                    'arms = 3\n[grid]\nalgorithm = ["batch-se", "dp-se"]\nepsilon = [1]\n')
    assert main(["sweep", str(toml), "--out", str(d / "out")]) == 0
    return d


def writers(tmp, study):
    """(command line, work function that must not run) of every command that writes."""
    csv = tmp.parent / "log.csv"
    csv.write_text(",timestamp,item_id,position,click,propensity_score\n"
                   + "".join(f"{i},t,{i % 3},1,{i % 2},0.1\n" for i in range(30)))
    return [
        (["run", "batch-se", *C1, "--out", f"{tmp}/r.parquet"], "bandsim.cli.run.run_jobs"),
        (["run", "batch-se,dp-se", "--epsilon", "1", *C1, "--out", f"{tmp}/d"],
         "bandsim.cli.run.run_jobs"),
        (["sweep", str(study / "s.toml"), "--out", f"{tmp}/sw"],
         "bandsim.studies.sweep.run_stored"),
        (["plot", str(study / "out"), "--out", f"{tmp}/p.png"], "bandsim.cli.results.plot_rows"),
        (["instances", "build", "obd", str(csv), "--out", f"{tmp}/o.parquet"],
         "bandsim.datasets.build_obd"),
        (["reproduce", "thesis-6.3", "--runs", "2", "--horizon", "1e4", "--out", f"{tmp}/rep"],
         "bandsim.studies.reproduce.run_stored"),
        (["suite", "--quick", "--runs", "2", "--algorithms", "batch-se", "--out", f"{tmp}/su",
          "--no-progress"], "bandsim.cli.suite.run_suite"),
    ]


def _no_work(name):
    def refuse(*a, **k):
        raise AssertionError(f"{name} ran: the write should have been refused before")
    return refuse


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS])
def test_a_full_or_read_only_disk_is_refused_before_any_work(code, tmp_path, study,
                                                             monkeypatch, capsys):
    def full(directory):
        raise OSError(code, "simulated", str(directory))

    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(atomic, "_write_probe", full)
    cases = writers(out, study) + [(["results", str(study / "out"), "--consolidate"],
                                    "bandsim.cli.results.consolidate")]
    for argv, work in cases:
        with monkeypatch.context() as m:
            m.setattr(work, _no_work(work))
            assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, (argv, err)
        assert errno.errorcode[code] in err and "Traceback" not in err, err
        assert ("no space left" if code == errno.ENOSPC else "read-only") in err
    assert list(out.iterdir()) == []  # nothing made, not even a directory
    assert not (study / "out" / "consolidated.parquet").exists()


def test_a_path_under_a_regular_file_is_refused_before_any_work(tmp_path, study, monkeypatch,
                                                                 capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    for argv, work in writers(afile, study):
        with monkeypatch.context() as m:
            m.setattr(work, _no_work(work))
            assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error: ") and str(afile) in err and "Traceback" not in err
        assert "not a directory" in err.lower() or "ENOTDIR" in err, err
    assert afile.read_text() == "x"


def test_a_write_failing_midway_names_the_target_and_leaves_no_partial_file(tmp_path,
                                                                           monkeypatch,
                                                                           capsys):
    """The probe passed, then the disk filled: the Parquet write fails after the simulation."""
    import pyarrow.parquet as pq

    def fill(table, where, **kw):
        where.write(b"PAR1 half a file")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq, "write_table", fill)
    target = tmp_path / "r.parquet"
    assert main(["run", "batch-se", *C1, "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"error: cannot write {target}: no space left on the device (ENOSPC)" in err
    assert list(tmp_path.iterdir()) == []  # neither the target nor the temporary file
    # an existing target is left as it was
    target.write_bytes(b"old")
    with pytest.raises(OSError) as e:
        atomic.write_parquet(target, None)
    assert e.value.filename == str(target) and target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.parquet"]


def test_failure_text_names_path_and_cause():
    assert atomic.failure_text(OSError(errno.EROFS, "Read-only file system", "/x/y")) == \
        "cannot access /x/y: read-only file system (EROFS)"  # not known to be a write
    e = atomic._named(OSError(errno.EROFS, "Read-only file system", "/x/.y.1.tmp"), "/x/y")
    assert atomic.failure_text(e) == "cannot write /x/y: read-only file system (EROFS)"
    assert atomic.failure_text(OSError(errno.ENOSPC, "x"), "standard output") == \
        "cannot write standard output: no space left on the device (ENOSPC)"


def _bandsim(*argv):
    with open("/dev/full", "w") as full:
        return subprocess.run([sys.executable, "-m", "bandsim.cli", *argv], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=300)


@pytest.mark.parametrize("argv", [["list"], ["--version"], ["list", "--json"],
                                  ["run", "batch-se", *C1, "--json"]], ids=" ".join)
def test_every_printer_fails_closed_on_a_full_stdout(argv):
    p = _bandsim(*argv)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines()[-1] == \
        "error: cannot write standard output: no space left on the device (ENOSPC)", p.stderr
    assert "Traceback" not in p.stderr and "Exception ignored" not in p.stderr


def test_results_printers_fail_closed_on_a_full_stdout(study):
    for extra in ([], ["--json"], ["--csv"]):
        p = _bandsim("results", str(study / "out"), *extra)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        assert "cannot write standard output" in p.stderr
    ok = subprocess.run([sys.executable, "-m", "bandsim.cli", "results", str(study / "out"),
                         "--json"], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0 and len(json.loads(ok.stdout)) == 2  # a negative control


# ----------------------------------------------------------------- cost guards

def test_the_whole_run_audit_refuses_a_recording_beyond_the_memory_budget(monkeypatch,
                                                                        capsys):
    """It ran out of memory after 33 s (5.2 GiB) at T = 10⁸; now one line, before recording."""
    import bandsim.wholerun as wholerun
    from bandsim import resources

    monkeypatch.setattr(wholerun.checks, "_Audit", _no_work("the recording"))
    assert main(["audit", "dp-ucb", "--whole-run", "--horizon", "1e8"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: horizon=100000000") and "memory budget" in err
    monkeypatch.setenv(resources.ENV, "200M")
    with pytest.raises(bandsim_config_error(), match="memory budget 200 MiB"):
        wholerun.audit("dp-ucb", horizon=10**6)
    resources.check_recording("episodes", 10**9)  # O(batches): never refused
    resources.check_recording("horizon", 100_000)  # 98 MiB: fits (negative control)


def bandsim_config_error():
    from bandsim import ConfigError

    return ConfigError


def test_the_recorders_bytes_per_pull_bound_what_the_audit_allocates():
    """The guard's estimate (0.9 KB per pull of the reference run and its neighbours, and
    the many-run sample's pulls, the shorter-horizon top-up included) bounds the measured
    peak, within a factor 5 (the top-up is charged its whole work though a T-dependent
    scale, as DP-UCB's, keeps none of it): tracemalloc sees numpy's allocations."""
    import tracemalloc

    from bandsim import resources, wholerun
    from bandsim.wholerun.laws import sample_pulls

    wholerun.audit("dp-ucb", horizon=1000)  # compiled and cached outside the measurement
    tracemalloc.start()
    try:
        assert wholerun.audit("dp-ucb", horizon=50_000).verdict == "PASS"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    need = (resources.RECORD_BYTES_PER_PULL * 50_000
            + resources.SAMPLE_BYTES_PER_PULL * sample_pulls(50_000))
    assert peak <= need < 5 * peak


def test_runs_beyond_a_day_by_the_cost_model_need_yes(tmp_path, monkeypatch, capsys):
    """ucb1/dp-ucb runs of 10¹³ steps were accepted silently."""
    from bandsim.cli.run import check_cost

    monkeypatch.setattr("bandsim.cli.run.run_jobs", _no_work("the simulation"))
    for algo in ("ucb1", "dp-ucb --epsilon 1"):
        argv = ["run", *algo.split(), "--instance", "C2", "--arms", "5", "--horizon", "1e10",
                "--runs", "1000"]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: runs=1000") and "days" in err and "--yes" in err, err
    study = tmp_path / "long.toml"
    study.write_text('[study]\nname = "l"\nhorizon = 1e10\nruns = 1000\ninstance = "C2"\n'
                     'arms = 5\n[grid]\nalgorithm = ["ucb1", "dp-se"]\nepsilon = [1]\n')
    assert main(["sweep", str(study), "--out", str(tmp_path / "o")]) == 2
    assert "more than a day" in capsys.readouterr().err and not (tmp_path / "o").exists()
    monkeypatch.setattr("bandsim.cli.studies.reproduce", _no_work("the figure"))
    assert main(["reproduce", "thesis-6.3", "--runs", "1000", "--horizon", "1e10", "--out",
                 str(tmp_path / "r")]) == 2
    assert "more than a day" in capsys.readouterr().err
    job = dict(algorithm="ucb1", arms=5, horizon=10**10, runs=1000)
    check_cost([job], yes=True)  # --yes: accepted
    check_cost([dict(job, runs=1)])  # ≈ 12 min: accepted (negative control)
    check_cost([dict(job, algorithm="dp-se", epsilon=1.0)])  # O(batches): cheap
    with pytest.raises(bandsim_config_error(), match="horizon"):
        check_cost([dict(job, runs=1, horizon=10**10, arms=4000)])  # one run, K = 4000: ≈ 3.6 days
