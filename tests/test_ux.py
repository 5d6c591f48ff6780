"""The Python API's ergonomics, tidy data, output for logs, and the last bad inputs."""
import inspect
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import bandsim
from bandsim import ConfigError, Result
from bandsim.cli import main

pytestmark = pytest.mark.fast

SMALL = dict(instance="C2", arms=3, epsilon=1.0, horizon=2000, runs=6, seed=3)


@pytest.fixture(scope="module")
def res():
    return bandsim.simulate("dp-se", **SMALL)


def cli(*argv, env=None):
    return subprocess.run([sys.executable, "-m", "bandsim.cli", *argv], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=600)


# ----------------------------------------------------------------------------- API

def test_simulate_signature_lists_its_keywords_with_defaults():
    sig = inspect.signature(bandsim.simulate)
    want = {"instance": None, "arms": None, "horizon": None, "runs": 1000, "seed": None,
            "rewards": "bernoulli", "sigma": 0.1, "checkpoints": None, "memory": None}
    assert {k: sig.parameters[k].default for k in want} == want
    doc = bandsim.simulate.__doc__
    assert "runs : int, default 1000" in doc and "122–125" in doc
    assert "sigma : float, default 0.1" in doc


@pytest.mark.parametrize("kwargs, field", [
    ({}, "horizon"), (dict(horizon=1000, arms=3, epsilon=1.0), "instance"),
    (dict(SMALL, runs=True), "runs"), (dict(SMALL, runs=np.bool_(True)), "runs"),
    (dict(SMALL, arms=True), "arms"), (dict(SMALL, seed=False), "seed")])
def test_missing_or_boolean_arguments_are_config_errors(kwargs, field):
    with pytest.raises(ConfigError) as e:
        bandsim.simulate("dp-se", **kwargs)
    assert e.value.field == field


def test_result_equality_is_exact_and_repr_is_short(res, tmp_path):
    again = bandsim.simulate("dp-se", **SMALL)
    assert res == again and not (res != again)
    res.to_parquet(tmp_path / "r.parquet")
    assert Result.from_parquet(tmp_path / "r.parquet") == res
    other = bandsim.simulate("dp-se", **dict(SMALL, seed=4))
    assert res != other
    nudged = Result.from_parquet(tmp_path / "r.parquet")
    nudged.pseudo_regret[0, -1] = np.nextafter(nudged.pseudo_regret[0, -1], np.inf)  # 1 ulp
    assert nudged != res
    assert res != "not a result"
    text = repr(res)
    assert len(text) < 200 and "\n" not in text and "array" not in text
    assert "dp-se" in text and "T=2,000" in text and "runs=6" in text and "seed=3" in text


def test_memory_keyword_sets_the_budget_for_one_call(res):
    from bandsim import resources

    before = resources.set_budget("3G")  # a fixed budget: free memory moves under load
    try:
        with pytest.raises(ConfigError, match="runs"):
            bandsim.simulate("dp-se", **dict(SMALL, runs=10**6), memory="10M")
        assert resources.budget() == 3 << 30  # restored, also after an error
    finally:
        resources.restore_budget(before)
    with pytest.raises(ConfigError, match="memory"):
        bandsim.simulate("dp-se", **SMALL, memory="lots")


# ----------------------------------------------------------------------------- tidy data

def test_to_pandas_long_regret_and_per_run_pulls(res):
    df = res.to_pandas()
    runs, C = res.pseudo_regret.shape
    assert list(df.columns) == ["run", "t", "regret"] and len(df) == runs * C
    assert (df["t"].to_numpy()[:C] == res.checkpoints).all()
    wide = df.pivot(index="run", columns="t", values="regret").to_numpy()
    assert np.array_equal(wide, res.pseudo_regret)
    assert df.attrs["config"]["seed"] == 3
    pulls = res.to_pandas("pulls")
    assert list(pulls.columns) == ["run", "arm", "pulls", "mean", "elimination_time"]
    assert (pulls.groupby("run")["pulls"].sum() == res.horizon).all()
    with pytest.raises(ConfigError, match="kind"):
        res.to_pandas("curves")


def test_to_xarray(res):
    pytest.importorskip("xarray")
    ds = res.to_xarray()
    assert ds["regret"].dims == ("run", "t") and ds["pulls"].dims == ("run", "arm")
    assert np.array_equal(ds["regret"].sel(t=res.horizon).values, res.pseudo_regret[:, -1])
    assert json.loads(ds.attrs["config"])["algorithm"] == "dp-se"


def test_one_statistics_vocabulary_in_run_results_and_summary(tmp_path, capsys):
    from bandsim.cli.results import STATISTICS

    assert main(["run", "dp-se", "--instance", "C2", "--arms", "3", "--epsilon", "1",
                 "--horizon", "2000", "--runs", "6", "--seed", "3", "--json",
                 "--out", str(tmp_path / "r.parquet")]) == 0
    run_rows = json.loads(capsys.readouterr().out)
    assert isinstance(run_rows, list) and len(run_rows) == 1  # a list, also for one row
    assert main(["results", str(tmp_path), "--json"]) == 0
    res_rows = json.loads(capsys.readouterr().out)
    assert set(STATISTICS) <= set(run_rows[0]) and set(STATISTICS) <= set(res_rows[0])
    assert all(run_rows[0][k] == res_rows[0][k] for k in STATISTICS)
    doc = open(os.path.join(os.path.dirname(__file__), "..", "docs", "results.md")).read()
    assert all(f"`{k}`" in doc for k in STATISTICS)


# ----------------------------------------------------------------------------- logs

def test_list_in_a_pipe_never_truncates_and_json_is_a_list():
    out = cli("list")
    assert out.returncode == 0 and "dp-se2-modified" in out.stdout and "…" not in out.stdout
    rows = json.loads(cli("list", "--json").stdout)
    assert isinstance(rows, list)
    kinds = {r["kind"] for r in rows}
    assert kinds == {"algorithm", "mechanism", "instance", "figure"}
    assert any(r["name"] == "dp-se2-modified" for r in rows)


def test_user_text_is_not_eaten_as_markup(capsys):
    assert main(["run", "dp-se", "--instance", "[grid]", "--arms", "3", "--epsilon", "1",
                 "--horizon", "1000"]) == 2
    err = capsys.readouterr().err
    assert "'[grid]'" in err and err.count("\n") == 1


def test_every_command_help_describes_it():
    from bandsim.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    short = {name: p.description for name, p in sub.choices.items()
             if not p.description or len(p.description) < 80}
    assert not short, short
    assert "--sampled" in sub.choices["audit"].format_help()


def test_run_table_shows_the_seed_and_compile_time_is_apart(capsys):
    assert main(["run", "dp-se", "--instance", "C2", "--arms", "3", "--epsilon", "1",
                 "--horizon", "2000", "--runs", "6", "--seed", "424242"]) == 0
    assert "424242" in capsys.readouterr().out
    assert main(["run", "dp-se", "--instance", "C2", "--arms", "3", "--epsilon", "1",
                 "--horizon", "2000", "--runs", "6", "--seed", "3", "--json"]) == 0
    row, = json.loads(capsys.readouterr().out)
    assert row["compile_seconds"] >= 0 and row["seed"] == 3


# ----------------------------------------------------------------------------- bad input

def _instance_file(path, values, probs, meta=b'{"format": 1, "name": "x"}', mean=None):
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"arm": pa.array(np.arange(len(values), dtype=np.int64)),
            "values": pa.array(values, pa.list_(pa.float64())),
            "probs": pa.array(probs, pa.list_(pa.float64()))}
    if mean is not None:
        cols["mean"] = pa.array(mean, pa.float64())
    pq.write_table(pa.table(cols).replace_schema_metadata({b"bandsim.instance": meta}), path)
    return str(path)


def test_an_instance_file_with_a_million_arms_is_refused_quickly(tmp_path, capsys):
    import time

    K = 10**6
    path = _instance_file(tmp_path / "big.parquet", [[0.0, 1.0]] * K, [[0.5, 0.5]] * K)
    t0 = time.perf_counter()
    assert main(["run", "dp-se", "--instance-file", path, "--epsilon", "1",
                 "--horizon", "1e7", "--runs", "2"]) == 2
    assert time.perf_counter() - t0 < 30
    err = capsys.readouterr().err
    assert "1,000,000 arms" in err and "10,000" in err and err.count("\n") == 1


def test_wide_plan_tables_are_guarded_at_every_stage():
    """10⁴ arms: the plan tables grow by ~10 MB per stage; a 40 MB budget refuses them
    (naming arms) after a few stages instead of filling memory."""
    means = [0.5] * 9_999 + [0.6]
    with pytest.raises(ConfigError) as e:
        bandsim.simulate("dp-se", means=means, horizon=10**8, runs=1, epsilon=1.0, seed=1,
                         memory="40M")
    assert e.value.field == "arms" and "plan's tables" in str(e.value)
    with pytest.raises(ConfigError, match="at most 10,000 arms"):
        bandsim.simulate("dp-se", means=[0.5] * 10_001, horizon=10**6, epsilon=1.0)


@pytest.mark.parametrize("meta, why", [(b"not json{", "not a JSON object"),
                                       (b"[1, 2]", "not a JSON object"),
                                       (b'{"format": "one"}', "format")])
def test_non_json_instance_metadata_is_one_line(tmp_path, capsys, meta, why):
    path = _instance_file(tmp_path / "m.parquet", [[0.0, 1.0]] * 2, [[0.5, 0.5], [0.2, 0.8]],
                          meta=meta)
    assert main(["run", "dp-se", "--instance-file", path, "--epsilon", "1",
                 "--horizon", "1e4"]) == 2
    err = capsys.readouterr().err
    assert why in err and err.count("\n") == 1


def test_a_mean_column_contradicting_the_distribution_is_refused(tmp_path, capsys):
    values, probs = [[0.0, 1.0]] * 2, [[0.5, 0.5], [0.2, 0.8]]
    good = _instance_file(tmp_path / "g.parquet", values, probs, mean=[0.5, 0.8])
    assert bandsim.datasets.load_instance(good).arms == 2
    bad = _instance_file(tmp_path / "b.parquet", values, probs, mean=[0.5, 0.7])  # 0.8 → 0.7
    assert main(["run", "dp-se", "--instance-file", bad, "--epsilon", "1",
                 "--horizon", "1e4"]) == 2
    err = capsys.readouterr().err
    assert "arm 1" in err and "0.7" in err and "0.8" in err


def test_sampled_audit_with_zero_draws_is_refused(capsys):
    assert main(["audit", "dp-se", "--epsilon", "1", "--sampled", "--draws", "0"]) == 2
    assert "draws=0" in capsys.readouterr().err


def test_numba_environment_is_checked_or_works():
    bad = cli("run", "batch-se", "--instance", "C1", "--arms", "3", "--horizon", "1000",
              "--runs", "2", env={"NUMBA_NUM_THREADS": "0"})
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("error: NUMBA_NUM_THREADS='0'")
    # `import bandsim` loads numba (the built-ins register at import): the API refuses too
    api = subprocess.run([sys.executable, "-c", "import bandsim\ntry:\n"
                          "    bandsim.simulate('batch-se', instance='C1', arms=3, horizon=1000)\n"
                          "except bandsim.ConfigError as e:\n    print(e)"],
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "NUMBA_NUM_THREADS": "0"})
    assert api.returncode == 0 and api.stdout.startswith("NUMBA_NUM_THREADS='0' is invalid")
    nojit = cli("run", "batch-se", "--instance", "C1", "--arms", "3", "--horizon", "1000",
                "--runs", "2", "--seed", "1", "--json", env={"NUMBA_DISABLE_JIT": "1"})
    assert nojit.returncode == 0, nojit.stderr[-2000:]
    jit = bandsim.simulate("batch-se", instance="C1", arms=3, horizon=1000, runs=2, seed=1)
    assert json.loads(nojit.stdout)[0]["regret_mean"] == jit.summary()["regret_mean"]


def test_run_out_is_checked_before_work(tmp_path, capsys):
    assert main(["run", "dp-se", "--instance", "C1", "--arms", "3", "--epsilon", "1",
                 "--horizon", "1e4", "--out", str(tmp_path / "no" / "such" / "r.parquet")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["run", "dp-se", "--instance", "C1", "--arms", "3", "--epsilon", "1",
                 "--horizon", "1e4", "--out", os.devnull]) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and "planning" not in err  # refused before any work


def _plot(monkeypatch, tmp_path, rows, curves=None, **kw):
    """plot_rows on synthetic rows (no simulation); the figure and the warnings."""
    from types import SimpleNamespace

    from bandsim.studies import plotdir

    drawn, said = {}, []
    monkeypatch.setattr(plotdir, "save", lambda fig, out, **k: drawn.setdefault("fig", fig))
    t = np.array([10, 100, 1000], np.int64)

    def load(path):
        r = next(r for r in rows if r["file"] == path)
        mean = (curves or {}).get(r["file"], np.array([1.0, 5.0, 9.0]))
        cfg = {"rewards": "bernoulli", "location": r.get("_means")}
        return SimpleNamespace(checkpoints=t, mean=mean, half95=np.zeros(3), config=cfg)

    full = [dict(dict(instance="easy", arms=10, rewards="bernoulli", horizon=1000, runs=3,
                      seed=1, epsilon=None, regret_ci95=0.0, time_avg_regret_mean=0.0,
                      time_avg_regret_ci95=0.0, version="t", regret_mean=1.0), **r)
            for r in rows]
    plotdir.plot_rows(full, {r["file"]: r["file"] for r in full}, tmp_path / "p.png",
                      load=load, warn=said.append, **kw)
    return drawn["fig"], said


def test_an_overlay_that_no_panel_can_draw_says_so(monkeypatch, tmp_path):
    """A random instance (easy) has no fixed means: one line says the overlay is not drawn
    (before, the figure silently had none); a fixed Bernoulli instance draws it."""
    rows = [dict(algorithm="dp-se", epsilon=e, file=f"{e}") for e in (0.5, 1.0)]
    fig, said = _plot(monkeypatch, tmp_path, rows, overlay=("lai-robbins",))
    assert said == ["overlay lai-robbins not drawn: the bounds need one fixed Bernoulli "
                    "instance per panel (C1-C4 or --means), and these results have none"]
    fixed = [dict(r, instance="C2", _means=[0.75, 0.625, 0.625]) for r in rows]
    fig, said = _plot(monkeypatch, tmp_path, fixed, overlay=("lai-robbins",))
    assert said == []
    labels = [ln.get_label() for ax in fig.axes for ln in ax.get_lines()]
    assert any("Lai–Robbins" in lab for lab in labels)


def test_log_y_with_a_zero_regret_masks_it_and_says_so(monkeypatch, tmp_path):
    """A zero regret cannot sit on a log axis: it is masked (NaN), the panel and a warning
    say how many, and an all-zero panel says it has nothing to draw (not an empty frame)."""
    rows = [dict(algorithm="dp-se", file="a"), dict(algorithm="ucb1", file="b")]
    curves = {"a": np.array([0.0, 5.0, 9.0]), "b": np.array([0.0, 0.0, 0.0])}
    fig, said = _plot(monkeypatch, tmp_path, rows, curves, yscale="log")
    assert said == ["4 value(s) ≤ 0 (zero regret) not drawn on the log y scale"]
    ax = fig.axes[0]
    ys = np.concatenate([np.asarray(ln.get_ydata(), float) for ln in ax.get_lines()])
    assert not (ys <= 0).any() and np.isnan(ys).sum() == 4
    assert any("not shown (log scale)" in t.get_text() for t in ax.texts)
    rows = [dict(algorithm="ucb1", file="b")]
    fig, _ = _plot(monkeypatch, tmp_path, rows, curves, yscale="log")
    assert any("every value is 0" in t.get_text() for t in fig.axes[0].texts)
    assert fig.axes[0].get_ylim() == pytest.approx((0.1, 10.0))


def test_x_in_by_is_refused_and_algorithms_are_never_merged(monkeypatch, tmp_path):
    """``--x epsilon --by epsilon`` used to draw one series per ε mixing algorithms."""
    rows = [dict(algorithm=a, epsilon=e, file=f"{a}{e}", regret_mean=r)
            for a, r in (("dp-se", 1.0), ("cdp-se", 2.0)) for e in (0.5, 1.0)]
    with pytest.raises(ConfigError, match="must not include --x epsilon"):
        _plot(monkeypatch, tmp_path, rows, x="epsilon", by="epsilon")
    fig, _ = _plot(monkeypatch, tmp_path, rows, x="epsilon", by="instance")
    labels = {ln.get_label() for ax in fig.axes for ln in ax.get_lines()}
    assert {"dp-se instance=easy", "cdp-se instance=easy"} <= labels  # one per algorithm


def test_twelve_default_curves_have_twelve_colours_and_panels_name_k(monkeypatch, tmp_path):
    """A default plot of 4 algorithms × 3 ε (12 curves): no colour repeats, and every panel
    title names the instance and K even when they are the same in every panel."""
    from bandsim.studies.plots import style

    assert len({style(i)["color"] for i in range(12)}) == 12
    algos = ("dp-se", "cdp-se", "ldp-se", "dist-dp-se")
    rows = [dict(algorithm=a, epsilon=e, file=f"{a}{e}") for a in algos for e in (0.1, 0.5, 1)]
    fig, _ = _plot(monkeypatch, tmp_path, rows)
    ax = fig.axes[0]
    colours = [ln.get_color() for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert len(colours) == 12 and len(set(colours)) == 12
    assert "easy" in ax.get_title() and "K = 10" in ax.get_title()


def test_list_fits_120_columns_and_names_stay_whole():
    """``bandsim list`` was about 330 characters wide in a pipe; now every line fits 120
    columns (text wraps inside cells) and every algorithm's name appears whole."""
    from rich.cells import cell_len

    out = cli("list")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert max(map(cell_len, lines)) <= 120, max(lines, key=cell_len)
    names = [r["name"] for r in json.loads(cli("list", "--json").stdout)
             if r["kind"] == "algorithm"]
    assert all(f"│ {n} " in out.stdout for n in names)


def test_a_job_redirected_to_a_file_prints_plain_progress_lines(tmp_path):
    """stderr to a file (not a terminal): a first line at once, one every PLAIN_EVERY
    seconds, one at the end (rich's bar showed nothing until the work ended)."""
    from rich.console import Console

    from bandsim.studies import suite
    from bandsim.studies.jobs import PlainProgress, progress_bar

    log = tmp_path / "err.log"
    with open(log, "w") as f:
        assert isinstance(progress_bar(Console(file=f, stderr=True)), PlainProgress)
        # the suite's board too (its bar is rich's on a terminal, and off with progress=False)
        assert isinstance(suite._progress(Console(file=f, stderr=True), True), PlainProgress)
        off = suite._progress(Console(file=f, stderr=True), False)
        assert not isinstance(off, PlainProgress)
        for bar in (off, PlainProgress(Console(file=f))):  # `with … as bar` gives the display
            with bar as entered:
                assert entered is bar and entered.add_task("x", total=1) is not None
    now = [0.0]
    with open(log, "w") as f:
        bar = PlainProgress(Console(file=f, width=200), every=10.0, clock=lambda: now[0])
        with bar:
            task = bar.add_task("24 jobs", total=24)
            for k in range(1, 25):
                now[0] += 2.5  # a job every 2.5 s: a line every 4 jobs, and the last
                bar.update(task, completed=k)
            bar.update(task, completed=24)  # the end is said once
    lines = log.read_text().splitlines()
    assert lines[0] == "progress: 24 jobs 0/24 (0 %), 0 s elapsed"
    assert lines[1] == "progress: 24 jobs 4/24 (17 %), 10 s elapsed, eta 50 s"
    assert lines[-1] == "progress: 24 jobs 24/24 (100 %), 60 s elapsed"
    assert len(lines) == 1 + 6 and sum("24/24" in line for line in lines) == 1


def test_a_redirected_run_prints_its_progress_before_the_table():
    out = cli("run", "dp-se", "--instance", "C2", "--arms", "3", "--epsilon", "1",
              "--horizon", "1e4", "--runs", "4", "--seed", "1")
    assert out.returncode == 0
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("progress:")]
    assert [re.sub(r", \d+ s elapsed$", "", ln) for ln in lines] == [  # seconds vary with load
        "progress: 1 jobs 0/1 (0 %)", "progress: 1 jobs 1/1 (100 %)"]
    assert all(re.search(r", \d+ s elapsed$", ln) for ln in lines)
