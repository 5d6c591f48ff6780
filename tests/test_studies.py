"""Sweeps (local and Dask) and figure reproduction."""
import json

import numpy as np
import pytest

from bandsim import ConfigError, Result
from bandsim.studies.figures import FIGURES
from bandsim.studies.reproduce import figure_jobs, reproduce
from bandsim.studies.sweep import load_study, sweep

STUDY = """
[study]
name = "tiny"
horizon = 2e5
runs = 100
seed = 3

[grid]
algorithm = ["dp-se", "batch-se"]
instance = ["C1", "easy"]
arms = [4]
epsilon = [0.5, 1]
"""


@pytest.fixture
def study(tmp_path):
    p = tmp_path / "study.toml"
    p.write_text(STUDY)
    return p


def test_study_grid_drops_parameters_an_algorithm_does_not_take(study):
    name, jobs = load_study(study)
    assert name == "tiny"
    assert len(jobs) == 2 * 2 + 2  # batch-se has no epsilon: its 4 combos collapse to 2
    assert all("epsilon" not in j for j in jobs if j["algorithm"] == "batch-se")


@pytest.mark.parametrize("text, field", [
    ("[study]\nruns = 5\n", "grid"),
    ("[grid]\nalgorithm = ['dp-se']\ninstance = 'C1'\n", "grid.instance"),
    ("[grid]\nalgorithm = ['dp-se']\ncolour = ['red']\n", "colour"),
    ("[grid]\nalgorithm = ['dp-zz']\n", "algorithm"),
    ("[grid\n", "study"),
])
def test_bad_studies_are_rejected_with_the_field_named(tmp_path, text, field):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_study(p)
    assert e.value.field == field


def test_sweep_writes_results_and_resumes(study, tmp_path):
    out = tmp_path / "out"
    rows = sweep(study, out)
    assert len(rows) == 6 and not any(r["resumed"] for r in rows)
    files = sorted(p.name for p in out.glob("*.parquet"))
    assert "summary.parquet" in files and len(files) == 7
    again = sweep(study, out)
    assert all(r["resumed"] for r in again)
    assert [r["regret_mean"] for r in again] == [r["regret_mean"] for r in rows]


def test_sweep_on_dask_is_bit_identical_to_local(study, tmp_path):
    pytest.importorskip("dask.distributed")
    sweep(study, tmp_path / "local")
    sweep(study, tmp_path / "dask", backend="dask")
    for f in (tmp_path / "local").glob("*.parquet"):
        if f.name == "summary.parquet":
            continue
        a, b = Result.from_parquet(f), Result.from_parquet(tmp_path / "dask" / f.name)
        assert np.array_equal(a.pseudo_regret, b.pseudo_regret)
        assert np.array_equal(a.pulls, b.pulls)


def test_every_figure_has_jobs_or_says_why_not():
    for fig in FIGURES.values():
        jobs, skipped = figure_jobs(fig)
        n_curves = sum(len(p.curves) for p in fig.panels)
        per_panel_skips = sum(len(p.curves) for p in fig.panels if p.needs_instance_file)
        assert len(jobs) + len(skipped) >= n_curves - per_panel_skips
        for p, _, job in jobs:
            assert job["horizon"] == (fig.panels[p].horizon or fig.horizon)
            assert job["runs"] == fig.runs
            if fig.name.startswith("cz-"):  # the papers' T: easy 10⁶, hard 10⁷
                assert job["horizon"] == (10**7 if job.get("instance") == "hard" else 10**6)


def test_reproduce_writes_png_json_and_parquet(tmp_path):
    rows, skipped = reproduce("thesis-6.1", tmp_path, runs=20, horizon=20_000)
    assert (tmp_path / "thesis-6.1.png").stat().st_size > 10_000
    meta = json.loads((tmp_path / "thesis-6.1.json").read_text())
    assert len(meta["rows"]) == len(rows) >= 4  # at least DP-SE in each of the 4 panels
    assert {r["epsilon"] for r in rows} == {0.1, 0.25, 0.5, 1.0}
    assert len(list((tmp_path / "thesis-6.1").glob("*.parquet"))) == len(rows)


def test_reproduce_unknown_figure():
    with pytest.raises(ConfigError, match="figure"):
        reproduce("fig-99", "/tmp/never")


def test_reproduce_mslr_figure_from_an_instance_file(tmp_path):
    # Chowdhury & Zhou Figure 5 (and Figure 1 d, e) from an MSLR-style file
    pytest.importorskip("sklearn")
    from bandsim.datasets import build_mslr
    from tests.test_datasets import write_letor

    letor = tmp_path / "train.txt"
    write_letor(letor, n=600, seed=1)
    inst_file = tmp_path / "mslr.parquet"
    build_mslr([letor], inst_file, clusters=6, seed=0)
    rows, skipped = reproduce("cz-fig5", tmp_path / "figs", runs=8, horizon=50_000,
                              instance_file=str(inst_file))
    assert not skipped
    assert {r["epsilon"] for r in rows} == {1.0, 5.0, 10.0}
    assert {r["label"] for r in rows} == {"DP-SE", "Dist-DP-SE", "Dist-RDP-SE(s=10)",
                                          "Dist-RDP-SE(s=100)"}
    assert all(r["arms"] == 6 for r in rows)
    assert (tmp_path / "figs" / "cz-fig5.png").exists()
