"""Every figure at a tiny scale; ``bandsim results`` and ``bandsim plot``."""
import json

import pytest

from bandsim.cli import main
from bandsim.studies.figures import FIGURES
from bandsim.studies.plots import figure_grid, layout_rows
from bandsim.studies.reproduce import reproduce


def strict_json(text):
    def refuse(token):
        raise ValueError(f"non-strict JSON token {token}")
    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def mslr_file(tmp_path_factory):
    """A small categorical instance file standing in for MSLR-WEB10K clusters."""
    from bandsim.datasets import write_instance

    path = tmp_path_factory.mktemp("mslr") / "mslr.parquet"
    values = [[0.0, 0.25, 0.5, 0.75, 1.0]] * 4
    probs = [[0.5, 0.2, 0.15, 0.1, 0.05], [0.4, 0.2, 0.2, 0.1, 0.1], [0.3, 0.3, 0.2, 0.1, 0.1],
             [0.2, 0.2, 0.2, 0.2, 0.2]]
    write_instance(path, values, probs, name="mslr-toy", kind="mslr", provenance={})
    return str(path)


#: Figures that differ from the one before only in their instance: PNG alone is
#: checked for them (drawing dominates the cost; the PDF path is the same).
SAME_AS_PREVIOUS = {f"thesis-{p}.{i}" for p in ("6", "A") for i in (2, 3, 4, 6, 7, 8)} | {
    "cz-fig3"}


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_figure_at_a_tiny_scale_writes_readable_files(name, tmp_path, request):
    import matplotlib.image

    fig = FIGURES[name]
    inst = (request.getfixturevalue("mslr_file")
            if any(p.needs_instance_file for p in fig.panels) else None)
    formats = ("png",) if name in SAME_AS_PREVIOUS else ("png", "pdf")
    rows, skipped = reproduce(name, tmp_path, runs=2, horizon=2000, dpi=20, formats=formats,
                              instance_file=inst)
    assert not skipped and rows
    png = matplotlib.image.imread(tmp_path / f"{name}.png")
    assert png.ndim == 3 and png.shape[0] > 50 and png.std() > 0  # not a blank canvas
    if "pdf" in formats:
        pdf = (tmp_path / f"{name}.pdf").read_bytes()
        assert pdf.startswith(b"%PDF") and pdf.rstrip().endswith(b"%%EOF") and len(pdf) > 5000
    meta = strict_json((tmp_path / f"{name}.json").read_text())
    assert meta["files"] == [f"{name}.{f}" for f in formats] and len(meta["rows"]) == len(rows)
    assert len(list((tmp_path / name).glob("*.parquet"))) == len(rows)


def test_skipped_panels_leave_no_empty_panel(tmp_path):
    rows, skipped = reproduce("cz-fig1", tmp_path, runs=2, horizon=2000, dpi=30,
                              formats=("png",))
    assert len(skipped) == 2 and {r["panel"][:3] for r in rows} == {"(a)", "(b)", "(c)"}


@pytest.mark.parametrize("n", range(1, 17))
def test_layouts_have_no_holes(n):
    rows = layout_rows(n)
    assert sum(rows) == n and max(rows) - min(rows) <= max(rows) - 1
    fig, axes = figure_grid(n)
    assert len(fig.axes) == len(axes) == n
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_styles_differ_without_colour():
    from bandsim.studies.plots import LINESTYLES, MARKERS, style

    seen = {(str(style(i)["linestyle"]), style(i)["marker"]) for i in range(8)}
    assert len(seen) == 8 == len(set(LINESTYLES)) == len(set(MARKERS))


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("study")
    (d / "s.toml").write_text('[study]\nhorizon = 3000\nruns = 4\nseed = 2\narms = 3\n'
                              'instance = "C2"\n[grid]\nalgorithm = ["dist-rdp-se", "batch-se"]\n'
                              'epsilon = [0.5, 1.0]\nscale = [1.0, 10.0]\n')
    assert main(["sweep", str(d / "s.toml"), "--out", str(d / "out")]) == 0
    return d / "out"


def test_results_json_is_a_strict_list_with_every_swept_setting(study_dir, capsys):
    capsys.readouterr()
    assert main(["results", str(study_dir), "--json"]) == 0
    rows = strict_json(capsys.readouterr().out)
    assert isinstance(rows, list) and len(rows) == 5  # 2 × 2 dist-rdp-se + batch-se
    need = {"algorithm", "instance", "arms", "epsilon", "horizon", "runs", "seed",
            "regret_mean", "regret_ci95", "scale"}
    assert all(need <= set(r) for r in rows)
    assert {(r["epsilon"], r["scale"]) for r in rows if r["algorithm"] == "dist-rdp-se"} == {
        (0.5, 1.0), (0.5, 10.0), (1.0, 1.0), (1.0, 10.0)}
    assert all(r["job"] for r in rows)


def test_results_csv_and_table(study_dir, capsys):
    capsys.readouterr()
    assert main(["results", str(study_dir), "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6 and "regret_mean" in lines[0] and "scale" in lines[0]
    assert main(["results", str(study_dir)]) == 0
    out = capsys.readouterr().out
    assert "scale" in out and "epsilon" in out and "dist-rdp-se" in out


def test_results_of_one_run_are_null_not_nan(tmp_path, capsys):
    assert main(["run", "dp-se", "--instance", "C1", "--arms", "3", "--epsilon", "1",
                 "--horizon", "1000", "--runs", "1", "--seed", "1", "--out",
                 str(tmp_path / "r.parquet")]) == 0
    capsys.readouterr()
    assert main(["results", str(tmp_path), "--json"]) == 0
    rows = strict_json(capsys.readouterr().out)
    assert rows[0]["regret_ci95"] is None and rows[0]["runs"] == 1


def test_results_of_a_figure_directory(tmp_path, capsys):
    reproduce("thesis-6.1", tmp_path, runs=3, horizon=2000, formats=("png",), dpi=30)
    capsys.readouterr()
    assert main(["results", str(tmp_path), "--json"]) == 0
    rows = strict_json(capsys.readouterr().out)
    assert {r["label"] for r in rows} == {"DP-SE", "DP-UCB"} and len(rows) == 8


def test_results_of_nothing_is_an_error(tmp_path, capsys):
    assert main(["results", str(tmp_path)]) == 2
    assert "no bandsim result" in capsys.readouterr().err


def test_plot_directory(study_dir, tmp_path, capsys):
    out = tmp_path / "curves.png"
    assert main(["plot", str(study_dir), "--out", str(out), "--xscale", "log", "--dpi", "40"]) == 0
    assert out.stat().st_size > 5000 and (tmp_path / "curves.pdf").stat().st_size > 5000


def test_reproduce_resumes_and_redraws_without_simulating(tmp_path):
    first, _ = reproduce("thesis-6.2", tmp_path, runs=3, horizon=2000, formats=("png",), dpi=30)
    again, _ = reproduce("thesis-6.2", tmp_path, runs=3, horizon=2000, formats=("png",), dpi=30,
                         xscale="log")
    assert all(r["resumed"] for r in again) and not any(r["resumed"] for r in first)
    assert [r["regret_mean"] for r in again] == [r["regret_mean"] for r in first]
    from bandsim import ConfigError

    with pytest.raises(ConfigError, match="runs"):
        reproduce("thesis-6.2", tmp_path, runs=4, horizon=2000, formats=("png",))
