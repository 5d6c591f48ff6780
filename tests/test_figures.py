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


def text_outside(fig):
    """Every visible text of ``fig`` whose rendered extent leaves the canvas (1 px slack)."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    bad = []
    # tick labels exist beyond the view limits too, undrawn: they are judged by the tight
    # bounding box of what is drawn; every other text one by one
    ticks = {id(lab) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
             for tick in axis.get_major_ticks() + axis.get_minor_ticks()
             for lab in (tick.label1, tick.label2)}
    tight = fig.get_tightbbox(renderer)
    w_in, h_in = fig.get_size_inches()
    slack = 1 / fig.dpi
    if (tight.x0 < -slack or tight.y0 < -slack or tight.x1 > w_in + slack
            or tight.y1 > h_in + slack):
        bad.append(f"drawn artists span {tight.bounds} inches, canvas {w_in} x {h_in}")
    for t in fig.findobj(Text):
        if id(t) in ticks or not t.get_visible() or not t.get_text().strip():
            continue
        bb = t.get_window_extent(renderer)
        if bb.x0 < -1 or bb.y0 < -1 or bb.x1 > W + 1 or bb.y1 > H + 1:
            bad.append(f"{t.get_text()[:40]!r} at {bb.bounds}")
    return bad


@pytest.fixture
def drawn(monkeypatch):
    """Figures handed to plots.save, each checked before it is written."""
    from bandsim.studies import plotdir, plots, reproduce

    seen = []
    original = plots.save

    def save(fig, *a, **kw):
        seen.append(dict(outside=text_outside(fig), title=fig.bandsim_title.get_text(),
                         footer=fig.bandsim_footer.get_text(),
                         size=tuple(fig.get_size_inches()),
                         panels=len(getattr(fig, "bandsim_main", fig).axes)))
        return original(fig, *a, **kw)

    for module in (plots, plotdir, reproduce):  # each imports save at module level
        monkeypatch.setattr(module, "save", save)
    return seen


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_figure_at_a_tiny_scale_writes_readable_files(name, tmp_path, request, drawn):
    """Every built-in figure: no text leaves the canvas, the title states the T and runs
    simulated (not the paper's), the footer the seed and version; files are readable."""
    import matplotlib.image

    import bandsim

    fig = FIGURES[name]
    inst = (request.getfixturevalue("mslr_file")
            if any(p.needs_instance_file for p in fig.panels) else None)
    formats = ("png",) if name in SAME_AS_PREVIOUS else ("png", "pdf")
    rows, skipped = reproduce(name, tmp_path, runs=2, horizon=2000, dpi=20, formats=formats,
                              instance_file=inst, seed=7)
    assert not skipped and rows
    (d,) = drawn
    assert d["outside"] == []
    assert "T = 2,000" in d["title"] and "2 runs per curve" in d["title"]
    assert "10⁷" not in d["title"] and "10⁶" not in d["title"]  # never the paper's scale
    assert "seed 7" in d["footer"] and bandsim.__version__ in d["footer"]
    w, h = d["size"]
    assert h <= 1.6 * w  # no tall single column of panels
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
    full = {(style(i)["color"], str(style(i)["linestyle"])) for i in range(64)}
    assert len(full) == 64  # 64 curves: no two share colour and line style


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
    assert out.stat().st_size > 5000 and not (tmp_path / "curves.pdf").exists()  # PNG only
    assert main(["plot", str(study_dir), "--out", str(out), "--format", "png,pdf"]) == 0
    assert (tmp_path / "curves.pdf").read_bytes().startswith(b"%PDF")


def test_reproduce_resumes_and_redraws_without_simulating(tmp_path):
    first, _ = reproduce("thesis-6.2", tmp_path, runs=3, horizon=2000, formats=("png",), dpi=30)
    again, _ = reproduce("thesis-6.2", tmp_path, runs=3, horizon=2000, formats=("png",), dpi=30,
                         xscale="log")
    assert all(r["resumed"] for r in again) and not any(r["resumed"] for r in first)
    assert [r["regret_mean"] for r in again] == [r["regret_mean"] for r in first]
    from bandsim import ConfigError

    with pytest.raises(ConfigError, match="runs"):
        reproduce("thesis-6.2", tmp_path, runs=4, horizon=2000, formats=("png",))


def test_the_canvas_check_catches_a_clipped_label():
    """Negative control: the old fixed margins clip six-digit tick labels' y label."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(3, 2))
    ax = fig.add_axes((0.02, 0.2, 0.9, 0.7))  # no room on the left
    ax.plot([0, 1], [0, 250_000])
    ax.set_ylabel("Pseudo-regret")
    assert any("Pseudo-regret" in b for b in text_outside(fig))
    plt.close(fig)


def test_versus_plot_one_panel_per_instance_log_y_sorted_legend(tmp_path, drawn):
    """``plot DIR --x epsilon --by algorithm --yscale log``: a panel per instance, legend
    sorted numerically and outside the panels, nothing clipped."""
    d = tmp_path / "s"
    d.mkdir()
    (d / "s.toml").write_text('[study]\nhorizon = 3000\nruns = 3\nseed = 2\narms = 3\n'
                              '[grid]\nalgorithm = ["dp-se", "dist-dp-se"]\n'
                              'instance = ["C1", "C2"]\nepsilon = [0.5, 2.0, 16.0]\n')
    assert main(["sweep", str(d / "s.toml"), "--out", str(d / "out")]) == 0
    out = tmp_path / "v.png"
    assert main(["plot", str(d / "out"), "--x", "epsilon", "--by", "algorithm", "--yscale",
                 "log", "--out", str(out), "--dpi", "30", "--format", "png,svg",
                 "--overlay", "lai-robbins,dp-lower", "--width", "page"]) == 0
    assert main(["plot", str(d / "out"), "--facet", "algorithm", "--by", "instance,epsilon",
                 "--yscale", "log", "--width", "column", "--out", str(tmp_path / "f.png"),
                 "--dpi", "30", "--format", "png"]) == 0
    from bandsim.studies import plotdir

    plotdir.MAX_CURVES = 4  # a crowded panel (6 curves) splits by algorithm by itself
    try:
        assert main(["plot", str(d / "out"), "--out", str(tmp_path / "auto.png"),
                     "--dpi", "30"]) == 0
    finally:
        plotdir.MAX_CURVES = 12
    fig, facet, auto = drawn
    assert fig["panels"] == 2 and auto["panels"] == 4 and auto["outside"] == []
    assert fig["outside"] == [] and "T = 3,000" in fig["title"] and "3 runs" in fig["title"]
    assert facet["outside"] == [] and facet["size"][0] == 3.5  # column width kept
    assert out.stat().st_size > 3000 and (tmp_path / "v.svg").read_text().startswith("<?xml")


def test_legend_entries_sort_numerically():
    from bandsim.studies.plots import natural_key

    labels = ["dist-rdp-se η=16", "dist-rdp-se η=2", "dist-rdp-se η=0.5", "batch-se"]
    assert sorted(labels, key=natural_key) == ["batch-se", "dist-rdp-se η=0.5",
                                               "dist-rdp-se η=2", "dist-rdp-se η=16"]


def test_lower_bound_constants():
    """Lai–Robbins: Σ Δ/kl; the ε-DP bound equals it for large ε and is 1/(6ε) per arm for
    small ε (Azize & Basu 2022, Theorem 3, Bernoulli: TV = Δ)."""
    import math

    from bandsim.studies.bounds import dp_lower_constant, lai_robbins_constant

    kl = 0.5 * math.log(0.5 / 0.75) + 0.5 * math.log(0.5 / 0.25)
    assert lai_robbins_constant([0.75, 0.5]) == pytest.approx(0.25 / kl, rel=1e-12)
    assert dp_lower_constant([0.75, 0.5], 100.0) == pytest.approx(0.25 / kl, rel=1e-12)
    assert dp_lower_constant([0.75, 0.5, 0.5], 0.01) == pytest.approx(2 / 0.06, rel=1e-12)


@pytest.mark.parametrize("argv, field", [
    (["--dpi", "0"], "dpi"), (["--dpi", "100000"], "dpi"), (["--format", "gif"], "format"),
    (["--x", "nonsense"], "x"), (["--overlay", "bogus"], "overlay"),
    (["--out", "/nonexistent-dir/x.png"], "out")])
def test_plot_bad_options_are_one_line(study_dir, argv, field, capsys):
    assert main(["plot", str(study_dir), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {field}=") and err.count("\n") == 1


def test_reproduce_refuses_bad_dpi_and_out_before_simulating(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    for argv, field in ((["--dpi", "0"], "dpi"), (["--out", str(tmp_path / "file")], "out")):
        full = ["reproduce", "thesis-6.1", "--runs", "2", "--horizon", "1e3",
                "--out", str(tmp_path / "o"), *argv]
        assert main(full) == 2
        assert capsys.readouterr().err.startswith(f"error: {field}=")
    assert not (tmp_path / "o").exists()
