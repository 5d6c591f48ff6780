"""The store under faults: corruption is detected and redone, one writer per directory,
any other study refused, keys that see the code and the environment, replicates,
failures of the disk in one line that resume bit-identically."""
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bandsim
from bandsim import ConfigError, Result
from bandsim.cli import main
from bandsim.studies.store import result_files
from bandsim.studies.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent

STUDY = """
[study]
horizon = 5000
runs = 8
seed = 3
{extra}
[grid]
algorithm = ["dp-se", "batch-se"]
instance = ["C1"]
arms = [3]
epsilon = {eps}
"""


def write_study(path, eps="[0.5, 1]", extra=""):
    path.write_text(STUDY.format(eps=eps, extra=extra))
    return path


def arrays(directory):
    """{file name: (pseudo_regret, pulls)} of a directory's results."""
    out = {}
    for p in result_files(directory):
        r = Result.from_parquet(p)
        out[p.name] = (r.pseudo_regret, r.pulls)
    return out


def same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert all(np.array_equal(x, y) for x, y in zip(a[k], b[k])), k


def flip_in_column(path, column="pseudo_regret"):
    """Flip one bit in the middle of a column's data pages (a realistic silent corruption)."""
    import pyarrow.parquet as pq

    md = pq.ParquetFile(path).metadata
    i = next(j for j in range(md.num_columns) if column in md.schema.column(j).path)
    c = md.row_group(0).column(i)
    start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
    off = start + c.total_compressed_size - 3  # inside the last page's values
    b = bytearray(path.read_bytes())
    b[off] ^= 0x04
    path.write_bytes(bytes(b))


# ----------------------------------------------------------------------------- integrity

def test_a_flipped_bit_is_detected_named_and_redone(tmp_path, capsys):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    sweep(study, out)
    good = arrays(out)
    victim = result_files(out)[0]
    flip_in_column(victim)
    with pytest.raises(ValueError, match="checksum|SHA-256|damaged"):
        Result.from_parquet(victim)
    capsys.readouterr()
    assert main(["results", str(out)]) == 2  # named, non-zero
    err = " ".join(capsys.readouterr().err.split())
    assert victim.name in err and "--allow-missing" in err
    assert main(["results", str(out), "--json", "--allow-missing"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)) == len(good) - 1 and victim.name in captured.err
    rows = sweep(study, out)
    assert [r["file"] for r in rows if not r["resumed"]] == [victim.name]
    same(arrays(out), good)
    st = victim.stat()  # damage that keeps size and mtime (bit rot): only a full read sees it
    flip_in_column(victim)
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert main(["results", str(out), "--csv"]) == 0  # the index answers for it
    assert main(["results", str(out), "--csv", "--verify"]) == 2
    assert victim.name in capsys.readouterr().err
    assert all(r["resumed"] for r in sweep(study, out))
    rows = sweep(study, out, verify=True)
    assert [r["file"] for r in rows if not r["resumed"]] == [victim.name]
    same(arrays(out), good)


def test_the_data_digest_catches_what_page_checksums_do_not_cover(tmp_path):
    from bandsim.results import CorruptResult

    res = bandsim.simulate("dp-se", instance="C1", arms=3, epsilon=1, horizon=3000, runs=4,
                           seed=1)
    p = tmp_path / "r.parquet"
    res.to_parquet(p)
    import pyarrow.parquet as pq

    t = pq.read_table(p)  # rewrite the same metadata over other numbers: no CRC can see it
    regret = t.column("pseudo_regret").combine_chunks()
    import pyarrow as pa

    flat = regret.flatten().to_numpy().copy()
    flat[0] += 1
    t = t.set_column(1, "pseudo_regret", pa.FixedSizeListArray.from_arrays(
        pa.array(flat), regret.type.list_size))
    pq.write_table(t, p, write_page_checksum=True)
    with pytest.raises(CorruptResult, match="SHA-256"):
        Result.from_parquet(p)


def test_a_file_whose_content_differs_from_its_name_is_refused(tmp_path, capsys):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    sweep(study, out)
    a, b = result_files(out)[:2]
    data = a.read_bytes()
    a.write_bytes(b.read_bytes())  # another job's (valid) file under this job's name
    assert main(["results", str(out)]) == 2
    assert "not the key in its name" in capsys.readouterr().err
    rows = sweep(study, out)
    assert [r["file"] for r in rows if not r["resumed"]] == [a.name]
    assert a.read_bytes() != b.read_bytes() and len(a.read_bytes()) == len(data)


# ----------------------------------------------------------------------------- one writer, one study

def test_a_second_writer_is_refused_in_one_line_while_the_first_holds_the_lock(tmp_path):
    from bandsim.studies.studydir import StudyDir

    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    with StudyDir(out):
        p = subprocess.run([sys.executable, "-m", "bandsim.cli", "sweep", str(study), "--out",
                            str(out)], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": "300"})
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
    assert f"pid {os.getpid()}" in p.stderr and "another bandsim study" in p.stderr
    assert not result_files(out)


RACE = """
import sys
from bandsim.cli import main
sys.exit(main(["sweep", {study!r}, "--out", {out!r}]))
"""


def test_two_concurrent_writers_never_lose_or_mix_results(tmp_path):
    a = write_study(tmp_path / "a.toml")
    b = write_study(tmp_path / "b.toml", eps="[0.25, 1]")  # another study, same slots in part
    out = tmp_path / "out"
    procs = [subprocess.Popen([sys.executable, "-c", RACE.format(study=str(s), out=str(out))],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True) for s in (a, a, b)]
    codes, errs = zip(*[(p.wait(120), p.stderr.read()) for p in procs])
    assert all("Traceback" not in e for e in errs), errs
    assert set(codes) <= {0, 2} and 0 in codes
    winner = [a, a, b][codes.index(0)]
    sweep(winner, tmp_path / "fresh")
    same(arrays(out), arrays(tmp_path / "fresh"))  # exactly one study, complete
    assert not list(out.glob(".*.tmp"))


@pytest.mark.parametrize("change,field", [
    (dict(eps="[0.5, 2]"), "grid.epsilon"),
    (dict(extra='checkpoints = 8'), "study.checkpoints"),
    (dict(extra='rewards = "gaussian"'), "study.rewards"),
])
def test_any_changed_study_is_refused_and_overwrite_removes_what_no_longer_belongs(
        tmp_path, change, field):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    sweep(study, out)
    write_study(study, **change)
    with pytest.raises(ConfigError, match=field) as e:
        sweep(study, out)
    assert "--overwrite" in str(e.value) and "\n" not in str(e.value)
    sweep(study, out, overwrite=True)
    sweep(study, tmp_path / "fresh")
    same(arrays(out), arrays(tmp_path / "fresh"))


def test_changed_algorithm_list_or_instance_is_refused(tmp_path):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    sweep(study, out)
    study.write_text(STUDY.format(eps="[0.5, 1]", extra="").replace('"batch-se"', '"dp-se2"'))
    with pytest.raises(ConfigError, match="grid.algorithm"):
        sweep(study, out)
    study.write_text(STUDY.format(eps="[0.5, 1]", extra="").replace('["C1"]', '["C2"]'))
    with pytest.raises(ConfigError, match="grid.instance"):
        sweep(study, out)


# ----------------------------------------------------------------------------- keys

def test_keys_see_the_kernel_sources_and_library_versions(monkeypatch):
    import bandsim.kernels._jit as jit
    from bandsim.studies.store import identity, key

    job = dict(algorithm="dp-se", instance="C1", arms=3, epsilon=1, horizon=3000, runs=2,
               seed=1)
    k = key(identity(job))
    monkeypatch.setattr(jit, "SOURCE_DIGEST", "0" * 16)
    assert key(identity(job)) != k
    monkeypatch.undo()
    monkeypatch.setattr(np, "__version__", "0.0")
    assert key(identity(job)) != k and identity(job)["numpy"] == "0.0"


def test_plugin_code_is_part_of_the_key(tmp_path, monkeypatch):
    """One provenance (``config["plugins"]``) for the asked and the stored key: a plug-in's
    stored result answers its job, a re-registered unchanged plug-in keeps its key, an
    edited one gets another."""
    import importlib

    from bandsim.registry import register, unregister
    from bandsim.studies.store import identity, identity_of, key

    mod = tmp_path / "myplug.py"
    src = ("import dataclasses\nfrom bandsim.registry import get_algorithm\n"
           "base = get_algorithm('dp-se')\n"
           "def plan(*a):\n    return base.plan(*a)\n"
           "ALGO = dataclasses.replace(base, name='my-se', plan=plan)\n")
    mod.write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("myplug")
    job = dict(algorithm="my-se", instance="C1", arms=3, epsilon=1, horizon=3000, runs=2,
               seed=1)
    try:
        register(m.ALGO)
        ident = identity(job)
        (prov,) = ident["plugins"]
        assert prov["modules"] == ["myplug"] and len(prov["sha256"]) == 64
        res = bandsim.simulate(**job, threads=1)
        res.to_parquet(tmp_path / "r.parquet")
        back = Result.from_parquet(tmp_path / "r.parquet")
        assert back.config["plugins"] == ident["plugins"]
        assert key(identity_of(back.config, back.checkpoints, back.versions)) == key(ident)
        unregister("my-se")
        register(importlib.reload(m).ALGO)  # the same code again: the same key
        assert key(identity(job)) == key(ident)
        unregister("my-se")
        mod.write_text(src + "# edited\n")
        register(importlib.reload(m).ALGO)  # a new process loading the edited plug-in
        assert identity(job)["plugins"][0]["sha256"] != prov["sha256"]
        assert key(identity(job)) != key(ident)
    finally:
        unregister("my-se")
        sys.modules.pop("myplug", None)


class FakeClient:
    def __init__(self, env):
        self.env = env

    def run(self, fn):
        return {"tcp://10.0.0.1:1": fn(), "tcp://10.0.0.2:1": self.env}


def test_a_dask_worker_with_another_environment_is_refused_before_any_job(monkeypatch):
    from bandsim.studies import jobs
    from bandsim.studies.store import environment

    env = environment()
    jobs.check_workers(FakeClient(env))  # the same environment: accepted
    with pytest.raises(ConfigError, match=r"tcp://10\.0\.0\.2:1.*version 0\.0\.1 there"):
        jobs.check_workers(FakeClient({**env, "version": "0.0.1"}))
    ran = []
    monkeypatch.setattr(jobs, "prepare", lambda **k: ran.append(k))
    with pytest.raises(jobs.EnvironmentMismatch, match="numba"):  # a worker joining later
        jobs._run_one(dict(algorithm="dp-se"), None, {**env, "numba": "0.1"})
    assert ran == []


# ----------------------------------------------------------------------------- replicates

def test_seeds_horizons_and_runs_sweep_and_replicates_aggregate(tmp_path, capsys):
    study = tmp_path / "s.toml"
    study.write_text('[study]\nalgorithm = "dp-se"\ninstance = "C1"\narms = 3\nepsilon = 1\n'
                     '[grid]\nseed = [1, 2, 3]\nhorizon = [3000, 6000]\nruns = [4, 8]\n')
    rows = sweep(study, tmp_path / "out")
    assert len({r["file"] for r in rows}) == 12
    assert {(r["seed"], r["horizon"], r["runs"]) for r in rows} == {
        (s, h, n) for s in (1, 2, 3) for h in (3000, 6000) for n in (4, 8)}
    assert main(["results", str(tmp_path / "out"), "--json"]) == 0
    agg = json.loads(capsys.readouterr().out)
    assert len(agg) == 4 and all(r["replicates"] == 3 for r in agg)
    one = next(r for r in agg if r["horizon"] == 3000 and r["runs"] == 4)
    means = [r["regret_mean"] for r in rows if r["horizon"] == 3000 and r["runs"] == 4]
    assert one["regret_mean"] == pytest.approx(np.mean(means), rel=1e-12)
    assert one["replicate_sd"] == pytest.approx(np.std(means, ddof=1), rel=1e-12)
    assert main(["results", str(tmp_path / "out"), "--json", "--per-file"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 12


def test_replicates_n_share_seeds_across_configurations(tmp_path):
    study = write_study(tmp_path / "s.toml", extra="replicates = 3")
    rows = sweep(study, tmp_path / "out")
    assert len(rows) == 9 and {r["replicate"] for r in rows} == {0, 1, 2}
    by_rep = {}
    for r in rows:
        by_rep.setdefault(r["replicate"], set()).add(r["seed"])
    assert all(len(s) == 1 for s in by_rep.values()) and len(
        {s.pop() for s in by_rep.values()}) == 3
    assert all(r["resumed"] for r in sweep(study, tmp_path / "out"))


# ----------------------------------------------------------------------------- failures

@pytest.mark.parametrize("code,after,said", [
    (errno.ENOSPC, 1, "no space left on device: 1 of 3 jobs done, 2 left"),
    (errno.EROFS, 2, "the file system is read-only: 2 of 3 jobs done, 1 left"),
])
def test_full_or_read_only_disk_ends_in_one_line_and_resumes_bit_identically(
        tmp_path, monkeypatch, capsys, code, after, said):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    real, calls = Result.to_parquet, []

    def failing(self, path, *a, **k):
        calls.append(path)
        if len(calls) > after:
            raise OSError(code, os.strerror(code))
        return real(self, path, *a, **k)

    monkeypatch.setattr(Result, "to_parquet", failing)
    assert main(["sweep", str(study), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "error" in ln]
    assert len(lines) == 1 and "Traceback" not in err
    text = " ".join(err.split())
    assert said in text and f"resume with: bandsim sweep {study} --out {out}" in text
    assert not list(out.glob(".*.tmp"))
    monkeypatch.setattr(Result, "to_parquet", real)
    rows = sweep(study, out)
    assert sum(r["resumed"] for r in rows) == after
    sweep(study, tmp_path / "fresh")
    same(arrays(out), arrays(tmp_path / "fresh"))


def test_read_only_output_is_refused_before_planning(tmp_path, monkeypatch, capsys):
    from bandsim.studies import jobs

    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    real = Path.write_bytes

    def ro(self, data):
        if ".bandsim" in str(self):
            raise OSError(errno.EROFS, "Read-only file system")
        return real(self, data)

    planned = []
    monkeypatch.setattr(Path, "write_bytes", ro)
    monkeypatch.setattr(jobs, "prepare", lambda **k: planned.append(k))
    assert main(["sweep", str(study), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Read-only file system" in err and len(err.strip().splitlines()) == 1
    assert planned == []


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("text,field", [
    ('[grid]\nalgorithm = ["dp-se"]\nepsilon = [true]\n', "epsilon"),
    ('[grid]\nalgorithm = ["dp-se"]\nepsilon = [1]\n[grid2]\nx = [1]\n', "grid2"),
    ('[study]\nseed = 9223372036854775808\n[grid]\nalgorithm = ["dp-se"]\n', "seed"),
    ('[study]\nwhen = 2024-01-01\n[grid]\nalgorithm = ["dp-se"]\n', "study"),
    ('[study]\nhorizon = 1000\n[grid]\nalgorithm = ["dp-se"]\nepsilon = ' +
     str(list(range(1, 1001))) + '\nseed = ' + str(list(range(1000))) + '\n', "grid"),
])
def test_bad_study_files_are_one_line(tmp_path, capsys, text, field):
    import time

    study = tmp_path / "s.toml"
    study.write_text(text)
    t0 = time.perf_counter()
    assert main(["sweep", str(study), "--out", str(tmp_path / "out")]) == 2
    assert time.perf_counter() - t0 < 5  # a 10⁶-job grid is refused before it is expanded
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {field}") \
        and "Traceback" not in err


def test_non_utf8_study_and_out_file_are_one_line(tmp_path, capsys):
    study = tmp_path / "s.toml"
    study.write_bytes(b'[grid]\nalgorithm = ["dp-se\xff"]\n')
    assert main(["sweep", str(study), "--out", str(tmp_path / "out")]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    good, f = write_study(tmp_path / "g.toml"), tmp_path / "file"
    f.write_text("x")
    assert main(["sweep", str(good), "--out", str(f)]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err and f.read_text() == "x"


def test_atomic_writes_never_replace_a_device_and_write_through_symlinks(tmp_path,
                                                                         monkeypatch):
    from bandsim.atomic import write_text

    with pytest.raises(ConfigError, match="not a regular file"):
        write_text("/dev/null", "x")
    assert Path("/dev/null").is_char_device()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        write_text(fifo, "x")
    from bandsim.studies import jobs

    monkeypatch.setattr(jobs, "prepare", lambda **k: pytest.fail("planned before refusing"))
    assert main(["run", "dp-se", "--instance", "C1", "--arms", "3", "--epsilon", "1",
                 "--horizon", "2000", "--runs", "2", "--out", str(fifo)]) == 2
    target, link = tmp_path / "target.txt", tmp_path / "link.txt"
    target.write_text("old")
    link.symlink_to(target)
    write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


# ----------------------------------------------------------------------------- Python API

def test_python_sweep_is_the_toml_route_and_load_gives_one_table(tmp_path):
    toml = sweep(write_study(tmp_path / "s.toml"), tmp_path / "toml")
    api = bandsim.sweep({"algorithm": ["dp-se", "batch-se"], "instance": ["C1"], "arms": [3],
                         "epsilon": [0.5, 1]}, tmp_path / "api",
                        study=dict(horizon=5000, runs=8, seed=3))
    assert [r["key"] for r in api] == [r["key"] for r in toml]
    same(arrays(tmp_path / "api"), arrays(tmp_path / "toml"))
    assert all(r["resumed"] for r in bandsim.sweep(
        {"algorithm": ["dp-se", "batch-se"], "instance": ["C1"], "arms": [3],
         "epsilon": [0.5, 1]}, tmp_path / "api", study=dict(horizon=5000, runs=8, seed=3)))
    table = bandsim.load(tmp_path / "api")
    assert table.num_rows == 3 and {"algorithm", "epsilon", "regret_mean", "file"} <= set(
        table.column_names)
    runs = bandsim.load(tmp_path / "api", level="run")
    assert runs.num_rows == 3 * 8
    pd = pytest.importorskip("pandas")
    frame = table.to_pandas()
    assert isinstance(frame, pd.DataFrame) and sorted(frame["file"]) == sorted(
        r["file"] for r in api)
    jobs = pd.DataFrame([dict(algorithm="dp-se", instance="C1", arms=3, epsilon=e)
                         for e in (0.5, 1)] + [dict(algorithm="batch-se", instance="C1",
                                                    arms=3, epsilon=None)])
    rows = bandsim.sweep(jobs, tmp_path / "frame", study=dict(horizon=5000, runs=8, seed=3))
    assert sorted(r["key"] for r in rows) == sorted(r["key"] for r in toml)


def test_consolidated_dataset_holds_every_run(tmp_path, capsys):
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    sweep(write_study(tmp_path / "s.toml"), out)
    assert main(["results", str(out), "--consolidate"]) == 0
    t = pq.read_table(out / "consolidated.parquet")
    assert t.num_rows == 3 * 8
    direct = {p.name: Result.from_parquet(p) for p in result_files(out)}
    for f, r in direct.items():
        sel = [i for i, x in enumerate(t.column("file").to_pylist()) if x == f]
        final = [t.column("final_regret")[i].as_py() for i in sel]
        assert final == r.pseudo_regret[:, -1].tolist()
    duckdb = pytest.importorskip("duckdb")
    n = duckdb.sql(f"select count(*) from '{out / 'consolidated.parquet'}'").fetchall()[0][0]
    assert n == 24


# ----------------------------------------------------------------------------- overhead

AUDITED = """
import json
import bandsim
res = bandsim.simulate("dist-dp-se", instance="C1", arms=3, epsilon=1, horizon=20000, runs=2,
                       seed=1)
print(json.dumps(res.config["privacy"]["audit"]))
"""


def test_audits_are_cached_across_processes_by_their_parameters(tmp_path):
    env = {**os.environ, "BANDSIM_CACHE_DIR": str(tmp_path / "cache")}
    run = lambda: subprocess.run([sys.executable, "-c", AUDITED], cwd=ROOT, env=env,  # noqa
                                 capture_output=True, text=True, check=True).stdout
    first = json.loads(run())
    files = list((tmp_path / "cache" / "audits").glob("*.json"))
    assert first["verdict"] and len(files) == 1
    files[0].write_text(json.dumps({**first, "verdict": "FROM-CACHE"}))
    assert json.loads(run())["verdict"] == "FROM-CACHE"  # the second process did not audit
    env["BANDSIM_CACHE_DIR"] = "off"
    assert json.loads(run())["verdict"] == first["verdict"]


def test_a_lost_scheduler_ends_in_one_line_with_what_is_done(tmp_path, monkeypatch, capsys):
    pytest.importorskip("dask.distributed")
    import dask.distributed as dd
    from distributed.comm.core import CommClosedError

    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    real = dd.as_completed

    def dies(futures):
        it = real(futures)
        yield next(it)
        raise CommClosedError("scheduler gone")

    monkeypatch.setattr(dd, "as_completed", dies)
    assert main(["sweep", str(study), "--out", str(out), "--backend", "dask"]) == 1
    text = " ".join(capsys.readouterr().err.split())
    assert "Dask scheduler or its workers were lost" in text and "1 of 3 jobs done, 2 left" \
        in text and "Traceback" not in text
    monkeypatch.setattr(dd, "as_completed", real)
    assert sum(r["resumed"] for r in sweep(study, out)) >= 1  # workers may have finished more
    sweep(study, tmp_path / "fresh")
    same(arrays(out), arrays(tmp_path / "fresh"))
