"""The results store: a changed study is never answered from old files, killed
writes leave nothing half-written, Ctrl-C says how to resume."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import bandsim
from bandsim import ConfigError, Result
from bandsim.studies.store import differences, identity, identity_of, key, result_files
from bandsim.studies.sweep import read_study, sweep

ROOT = Path(__file__).resolve().parent.parent

STUDY = """
[study]
name = "tiny"
horizon = {horizon}
runs = {runs}
{seed}

[grid]
algorithm = ["dp-se", "batch-se"]
instance = ["C1", "easy"]
arms = [3]
epsilon = [0.5, 1]
"""


def write_study(path, horizon=20_000, runs=16, seed="seed = 3"):
    path.write_text(STUDY.format(horizon=horizon, runs=runs, seed=seed))
    return path


def results_of(directory):
    """{slot: Result} of a study directory."""
    return {p.name.split("--")[0]: Result.from_parquet(p) for p in result_files(directory)}


def same_results(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k].pseudo_regret, b[k].pseudo_regret), k
        assert np.array_equal(a[k].pulls, b[k].pulls), k
        assert a[k].config["seed"] == b[k].config["seed"]


JOBS = [
    dict(algorithm="dp-se", instance="C2", arms=4, epsilon=0.5, horizon=5_000, runs=3, seed=1),
    dict(algorithm="dist-rdp-se", instance="easy", arms=3, epsilon=1, scale=10,
         rewards="gaussian", sigma=0.2, horizon=5_000, runs=3, seed=2, checkpoints=16),
    dict(algorithm="batch-se", means=[0.9, 0.5, 0.5], horizon=4_000, runs=2, seed=5,
         checkpoints=[10, 100]),
    dict(algorithm="sdp-ae", instance="C1", arms=3, epsilon=1.0, delta=1e-6, horizon=5_000,
         runs=2, seed=0),
]


@pytest.mark.parametrize("job", JOBS, ids=[j["algorithm"] for j in JOBS])
def test_identity_of_a_job_is_the_identity_its_result_records(job):
    res = bandsim.simulate(**job)
    assert identity(job) == identity_of(res.config, res.checkpoints, res.versions)


def test_keys_see_every_digit_and_not_the_spelling():
    base = dict(JOBS[0])
    assert key(identity({**base, "epsilon": 0.1})) != key(identity({**base, "epsilon": 0.1000001}))
    assert key(identity({**base, "epsilon": 1})) == key(identity({**base, "epsilon": 1.0}))
    assert key(identity({**base, "horizon": 5e3})) == key(identity(base))
    assert key(identity({**base, "beta": 1 / 5000})) == key(identity(base))  # default filled
    for change in ({"runs": 4}, {"seed": 2}, {"horizon": 6000}, {"checkpoints": 8},
                   {"arms": 5}, {"beta": 0.1}):
        assert key(identity({**base, **change})) != key(identity(base)), change
    diff = differences(identity(base), identity({**base, "horizon": 6000, "beta": 0.2}))
    assert [d[0] for d in diff] == ["checkpoints", "horizon", "params.beta"]


def test_a_changed_study_is_refused_and_recomputed_with_overwrite(tmp_path):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    sweep(study, out)
    for change, field in ((dict(horizon=10_000), "horizon"), (dict(runs=8), "runs"),
                          (dict(seed="seed = 4"), "seed")):
        write_study(study, **change)
        with pytest.raises(ConfigError, match=field) as e:
            sweep(study, out)
        assert "--overwrite" in str(e.value) and "\n" not in str(e.value)
    write_study(study, horizon=10_000)
    rows = sweep(study, out, overwrite=True)
    assert not any(r["resumed"] for r in rows) and {r["horizon"] for r in rows} == {10_000}
    fresh = tmp_path / "fresh"
    sweep(study, fresh)
    same_results(results_of(out), results_of(fresh))  # nothing of the old study is left


def test_a_new_version_is_a_different_configuration(tmp_path, monkeypatch):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    sweep(study, out)
    import bandsim.studies.store as store

    monkeypatch.setattr(store, "__version__", "99.0")  # the version a job is asked under
    with pytest.raises(ConfigError, match="version"):
        sweep(study, out)


def test_round_numbers_do_not_share_a_file(tmp_path):
    study = tmp_path / "s.toml"
    study.write_text('[study]\nhorizon = 5000\nruns = 4\nseed = 1\ninstance = "C1"\narms = 3\n'
                     '[grid]\nalgorithm = ["dp-se"]\nepsilon = [0.1, 0.1000001]\n')
    rows = sweep(study, tmp_path / "out")
    assert len({r["file"] for r in rows}) == 2 and not any(r["resumed"] for r in rows)


def test_unreadable_leftover_is_redone(tmp_path):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    sweep(study, out)
    good = results_of(out)
    victim = result_files(out)[0]
    victim.write_bytes(victim.read_bytes()[:300])  # a truncated file, as a non-atomic writer left
    rows = sweep(study, out)
    assert sum(not r["resumed"] for r in rows) == 1
    same_results(results_of(out), good)


KILLED_CHILD = """
import os, sys, time
import bandsim.atomic as atomic
real_replace = os.replace
count = 0
def slow_replace(src, dst):
    global count
    count += str(dst).startswith({out!r})  # the study's own writes (not the audit caches')
    if count == {kill_at} and str(dst).startswith({out!r}):  # the temp file is complete but not yet in place: be killed here
        open({marker!r}, "w").close()
        time.sleep(60)
    real_replace(src, dst)
atomic.os.replace = slow_replace
from bandsim.studies.sweep import sweep
sweep({study!r}, {out!r})
"""


def test_sweep_killed_mid_write_resumes_to_identical_results(tmp_path):
    study, out, marker = write_study(tmp_path / "s.toml"), tmp_path / "out", tmp_path / "mark"
    child = subprocess.Popen([sys.executable, "-c", KILLED_CHILD.format(
        kill_at=4, marker=str(marker), study=str(study), out=str(out))], cwd=ROOT)
    try:
        for _ in range(600):
            if marker.exists() or child.poll() is not None:
                break
            time.sleep(0.1)
        assert marker.exists(), "the child never reached its third write"
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        child.kill()
    # the manifest and two jobs stored, the third job was being written
    assert len(result_files(out)) == 2
    assert list(out.glob(".*.tmp"))  # the killed write's temp file is all that is left of it
    rows = sweep(study, out)
    assert sum(r["resumed"] for r in rows) == 2
    assert not list(out.glob(".*.tmp"))
    sweep(study, tmp_path / "clean")
    same_results(results_of(out), results_of(tmp_path / "clean"))


INTERRUPTED_CHILD = """
import sys, time
import bandsim.studies.jobs as jobs
real = jobs.save_result
def slow(*a, **k):
    out = real(*a, **k)
    time.sleep(0.5)
    return out
jobs.save_result = slow  # where the study saves each result
from bandsim.cli import main
sys.exit(main(["sweep", {study!r}, "--out", {out!r}]))
"""


def test_ctrl_c_prints_one_line_with_what_is_done_and_how_to_resume(tmp_path):
    study, out = write_study(tmp_path / "s.toml"), tmp_path / "out"
    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED_CHILD.format(
        study=str(study), out=str(out))], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "200"})
    try:
        for _ in range(600):
            if len(result_files(out)) >= 1 if out.exists() else False:
                break
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    line = [ln for ln in err.splitlines() if "interrupted" in ln]
    assert len(line) == 1 and "jobs done" in line[0] and "left" in line[0]
    assert f"resume with: bandsim sweep {study} --out {out}" in " ".join(err.split())
    rows = sweep(study, out)
    assert any(r["resumed"] for r in rows)


def test_a_grid_without_seed_shares_one_seed_and_keeps_it_on_resume(tmp_path):
    study, out = write_study(tmp_path / "s.toml", seed=""), tmp_path / "out"
    rows = sweep(study, out)
    seeds = {r["seed"] for r in rows}
    assert len(seeds) == 1
    assert json.loads((out / "study.json").read_text())["seed"] == seeds.pop()
    assert all(r["resumed"] for r in sweep(study, out))
    res = results_of(out)  # easy instances are common to dp-se and batch-se
    easy = [r for k, r in res.items() if "instance=easy" in k]
    assert all(np.array_equal(easy[0].means, r.means) for r in easy)


def test_independent_seeds_on_request(tmp_path):
    study = write_study(tmp_path / "s.toml", seed='seed = 3\nseeds = "independent"')
    rows = sweep(study, tmp_path / "out")
    assert len({r["seed"] for r in rows}) == len(rows)
    _, jobs, settings = read_study(study)
    assert settings["seeds"] == "independent"


def test_swept_parameters_are_columns(tmp_path):
    import pyarrow.parquet as pq

    study = tmp_path / "s.toml"
    study.write_text('[study]\nhorizon = 5000\nruns = 4\nseed = 1\ninstance = "C1"\narms = 3\n'
                     '[grid]\nalgorithm = ["dist-rdp-se"]\nepsilon = [0.5]\nscale = [1.0, 10.0]\n'
                     'rewards = ["bernoulli", "gaussian"]\n')
    rows = sweep(study, tmp_path / "out")
    table = pq.read_table(tmp_path / "out" / "summary.parquet").to_pylist()
    assert {(r["scale"], r["rewards"]) for r in table} == {
        (1.0, "bernoulli"), (1.0, "gaussian"), (10.0, "bernoulli"), (10.0, "gaussian")}
    assert {(r["scale"], r["rewards"]) for r in rows} == {(r["scale"], r["rewards"])
                                                          for r in table}
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["swept"] == [
        "epsilon", "scale", "rewards"]


def test_plans_are_computed_once_per_parameters(monkeypatch):
    from bandsim.registry import get_algorithm
    from bandsim.studies.jobs import run_jobs

    calls = []
    algo = get_algorithm("dp-se")
    real = algo.plan
    monkeypatch.setattr(type(algo), "plan", property(lambda self: (
        lambda *a: (calls.append(a), real(*a))[1]) if self.name == "dp-se" else
        self.__dict__["plan"]), raising=False)
    jobs = [dict(algorithm="dp-se", instance=i, arms=3, epsilon=0.5, horizon=3000, runs=2,
                 seed=1) for i in ("C1", "C2", "C3")]
    list(run_jobs(jobs))
    assert len(calls) == 1


def test_berry_esseen_closed_form_matches_quadrature():
    from scipy import integrate
    from scipy.stats import norm

    from bandsim.instances import clipped_gaussian_abs_third_moment, clipped_gaussian_moments

    for sigma in (0.05, 0.1, 0.5):
        for mu in (0.0, 0.03, 0.3, 0.5, 0.72, 1.0):
            mean, _ = clipped_gaussian_moments(mu, sigma)
            f = lambda y: abs(min(max(y, 0.0), 1.0) - mean) ** 3 * norm.pdf(y, mu, sigma)  # noqa
            q = integrate.quad(f, mu - 12 * sigma, mu + 12 * sigma, limit=200,
                               points=[0.0, 1.0, float(mean)])[0]
            assert clipped_gaussian_abs_third_moment(mu, sigma) == pytest.approx(q, rel=1e-9)


def test_run_grid_shares_one_seed(tmp_path, capsys):
    from bandsim.cli import main

    assert main(["run", "dp-se,batch-se", "--instance", "easy", "--arms", "3", "--epsilon", "1",
                 "--horizon", "2000", "--runs", "4", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 2 and rows[0]["seed"] == rows[1]["seed"]


def test_atomic_write_keeps_the_old_file_on_error(tmp_path):
    from bandsim.atomic import atomic_open, write_text

    p = tmp_path / "a.json"
    write_text(p, "old")
    with pytest.raises(RuntimeError):
        with atomic_open(p) as f:
            f.write(b"new, half")
            raise RuntimeError
    assert p.read_text() == "old" and sorted(x.name for x in tmp_path.iterdir()) == ["a.json"]
    assert oct(p.stat().st_mode & 0o777) != oct(0o600)




def test_identity_of_an_instance_file_job_is_its_sha256(tmp_path):
    from bandsim.datasets import write_instance

    f = tmp_path / "inst.parquet"
    write_instance(f, [[0.0, 1.0], [0.0, 0.5, 1.0]], [[0.4, 0.6], [0.3, 0.3, 0.4]], name="toy",
                   kind="test", provenance={})
    job = dict(algorithm="dp-se", instance_file=str(f), epsilon=1.0, horizon=3000, runs=2, seed=1)
    res = bandsim.simulate(**job)
    ident = identity(job)
    assert ident == identity_of(res.config, res.checkpoints, res.versions)
    write_instance(f, [[0.0, 1.0], [0.0, 0.5, 1.0]], [[0.5, 0.5], [0.3, 0.3, 0.4]], name="toy",
                   kind="test", provenance={})
    assert identity(job)["instance_file"] != ident["instance_file"]  # new data, new key
