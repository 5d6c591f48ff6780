"""``bandsim reproduce FIGURE --out DIR``: simulate and draw one of the papers' figures.

Results go through :mod:`bandsim.store` (one Parquet file per curve, keyed by
its full configuration): an interrupted ``reproduce`` resumes, a repeated one
redraws from disk, and one with other settings (``--runs``, ``--horizon``,
``--seed``) into the same directory is refused unless ``overwrite``.
"""
from pathlib import Path

from .. import confidence, registry
from .._version import __version__
from ..atomic import write_text
from ..errors import ConfigError
from .figures import FIGURES
from .plots import (XSCALES, check_figure_options, check_out_dir, count_text, figure_grid,
                    plot_curve, plot_level, plot_points, provenance, round_axis, save,
                    shared_legend)
from .store import dumps, exact, slot_name
from .studydir import run_stored


def figure_jobs(figure, runs=None, horizon=None, seed=1, instance_file=None, threads=None):
    """The simulate() keyword sets of a figure, and what had to be left out.

    Parameters
    ----------
    figure : Figure
    runs, horizon : int, optional
        Overrides of the paper's runs and T.
    seed : int
    instance_file : path, optional
    threads : int, optional

    Returns
    -------
    jobs : list of (panel_index, Curve, dict)
        For a panel of final regret against a parameter (``Panel.x``), one
        job per curve and value (one only if the curve's algorithm does not
        take the parameter).
    skipped : list of str
        Curves whose algorithm is not in this bandsim, and instance-file
        panels when no ``instance_file`` was given.
    """
    jobs, skipped = [], []
    for p, panel in enumerate(figure.panels):
        if panel.needs_instance_file and instance_file is None:
            skipped.append(f"panel '{panel.title}': needs --instance-file "
                           "(bandsim instances build mslr ...)")
            continue
        for curve in panel.curves:
            if curve.algorithm not in registry.algorithms():
                skipped.append(f"{curve.label} in '{panel.title}': "
                               f"algorithm {curve.algorithm} is not available")
                continue
            takes = {p.name for p in registry.get_algorithm(curve.algorithm).params}
            opts = {k: v for k, v in {**panel.options, **curve.options}.items()
                    if k in takes or k not in registry.all_params()}
            job = dict(algorithm=curve.algorithm, **opts,
                       horizon=horizon or panel.horizon or figure.horizon,
                       runs=runs or figure.runs, seed=seed, threads=threads)
            if panel.needs_instance_file:
                job["instance_file"] = instance_file
            if panel.x is None or panel.x[0] not in takes:
                jobs.append((p, curve, job))
                continue
            param, values = panel.x
            jobs.extend((p, curve, {**job, param: v}) for v in values)
    return jobs, skipped




def slot(p, curve, job, panel):
    """The store slot of a figure job: panel, curve and (for versus panels) the x value.

    Parameters
    ----------
    p : int
        Panel index.
    curve : Curve
    job : dict
        The job's simulate() keywords.
    panel : Panel

    Returns
    -------
    str
    """
    name = f"panel{p + 1}_{_slug(curve.label)}"
    if panel.x is not None and panel.x[0] in job:
        name += f"_{panel.x[0]}={exact(job[panel.x[0]])}"
    return slot_name(name)


def reproduce(name, out, *, runs=None, horizon=None, seed=1, instance_file=None,
              threads=None, console=None, backend="local", scheduler=None, overwrite=False,
              dpi=300, xscale="linear", formats=("png", "pdf"), width=None):
    """Simulate every curve of figure ``name``; write Parquet, the figure and JSON to ``out``.

    Parameters
    ----------
    name : str
        A key of :data:`bandsim.figures.FIGURES` (``bandsim list``).
    out : path
        Output directory (created). Writes ``out/NAME.png``, ``out/NAME.pdf``,
        ``out/NAME.json`` (summary rows) and ``out/NAME/*.parquet``.
    runs, horizon : int, optional
        Override the paper's runs and T of every panel (e.g. for a quick look).
    seed : int
        Root seed shared by every curve (common random instances).
    instance_file : path, optional
        Instance file for the real-data panels.
    threads : int, optional
        Worker threads per simulation.
    console : rich.console.Console, optional
        Where progress bars go.
    backend : {"local", "dask"}
    scheduler : str, optional
        Dask scheduler address.
    overwrite : bool
        Recompute stored curves of another configuration instead of refusing.
    dpi : int
        PNG resolution.
    xscale : {"linear", "log"}
        x axis of the regret-against-t panels.
    formats : sequence of str
        Figure files to write (``png``, ``pdf``, ``svg``).
    width : {"column", "page"}, optional
        Figure width preset (:data:`bandsim.studies.plots.WIDTHS`).

    Returns
    -------
    rows : list of dict
        One summary row per curve (panel, label, and ``Result.summary()``).
    skipped : list of str

    Raises
    ------
    ConfigError
        Unknown figure, invalid overrides (before any simulation), or stored
        results of another configuration without ``overwrite``.
    bandsim.store.Interrupted
        On Ctrl-C.
    """
    if name not in FIGURES:
        raise ConfigError("figure", name, f"must be one of {', '.join(FIGURES)}")
    if xscale not in XSCALES:
        raise ConfigError("xscale", xscale, f"must be one of {', '.join(XSCALES)}")
    check_figure_options(dpi, formats, width)
    check_out_dir(out)
    fig_spec = FIGURES[name]
    jobs, skipped = figure_jobs(fig_spec, runs, horizon, seed, instance_file, threads)
    out = Path(out)
    slots = [slot(p, c, j, fig_spec.panels[p]) for p, c, j in jobs]
    labels = [f"{fig_spec.panels[p].title}: {c.label}"
              + (f" {fig_spec.panels[p].x[0]}={j[fig_spec.panels[p].x[0]]:g}"
                 if fig_spec.panels[p].x and fig_spec.panels[p].x[0] in j else "")
              for p, c, j in jobs]
    entries, outcomes = run_stored([j for _, _, j in jobs], slots, out / name,
                                   overwrite=overwrite, console=console, backend=backend,
                                   scheduler=scheduler, labels=labels)
    rows = []
    for (p, curve, job), e, o in zip(jobs, entries, outcomes):
        panel = fig_spec.panels[p]
        row = dict(panel=panel.title, label=curve.label, file=f"{name}/{e.path.name}",
                   **{k: v for k, v in o.summary.items()})
        if panel.x is not None:
            row["x"] = panel.x[0]
        rows.append(row)
    files, highlights = [], []
    if jobs:
        files, highlights = draw(fig_spec, jobs, outcomes, out / name, seed=seed, dpi=dpi,
                                 xscale=xscale, formats=formats, width=width)
    else:
        skipped.append("no panel could be simulated: no figure drawn")
    write_text(out / f"{name}.json", dumps(
        dict(figure=name, title=fig_spec.title, source=fig_spec.source, seed=seed,
             rows=rows, skipped=skipped, files=[f.name for f in files],
             highlights=highlights), indent=2))
    return rows, skipped


def draw(fig_spec, jobs, outcomes, base, *, seed, dpi=300, xscale="linear",
         formats=("png", "pdf"), width=None):
    """Draw a figure from its jobs' outcomes; return (files written, highlighted points).

    Only panels with at least one curve are drawn (no empty panel). The title
    states the horizon(s) and runs that were simulated, the footer the source,
    seed and bandsim version (:func:`provenance_text`).

    Parameters
    ----------
    fig_spec : Figure
    jobs : list of (int, Curve, dict)
        From :func:`figure_jobs`.
    outcomes : list
        Stored outcomes (``checkpoints``, ``mean``, ``half95``, ``summary``), one per job.
    base : Path
        ``DIR/NAME``; files are ``DIR/NAME.png`` etc.
    seed : int
    dpi : int
    xscale : {"linear", "log"}
    formats : sequence of str
    width : {"column", "page"}, optional

    Returns
    -------
    files : list of Path
    highlights : list of dict
    """
    import numpy as np

    drawn = sorted({p for p, _, _ in jobs})
    rows = fig_spec.rows
    if rows is not None and len(drawn) != len(fig_spec.panels):
        rows = None  # panels were skipped: let the layout close the gaps
    fig, axes = figure_grid(len(drawn), rows=rows, width=width)
    title, footer = provenance_text(fig_spec, jobs, outcomes, seed)
    ax_of = dict(zip(drawn, axes))
    panel_t = panel_horizons(jobs, outcomes)
    highlights = []
    for p in drawn:
        ax, panel = ax_of[p], fig_spec.panels[p]
        items = [(c, j, o) for (q, c, j), o in zip(jobs, outcomes) if q == p]
        labels = list(dict.fromkeys(c.label for c, _, _ in items))
        if panel.x is None:
            ytop = 0.0
            for c, j, o in items:
                i = labels.index(c.label)
                plot_curve(ax, o.checkpoints, o.mean, o.half95, label=c.label, index=i,
                           time_average=fig_spec.time_average, xscale=xscale)
                if fig_spec.time_average:  # as the papers: the first 2 % of t off the scale
                    late = o.checkpoints >= o.checkpoints[-1] / 50
                    ytop = max(ytop, 1.15 * float((o.mean[late] / o.checkpoints[late]).max()))
            if ytop > 0:
                ax.set_ylim(0, ytop)
            round_axis(ax, xscale)
            ax.set_xlabel(fig_spec.xlabel)
        else:
            param = panel.x[0]
            points = {}
            for c, j, o in items:
                i = labels.index(c.label)
                final = (o.summary["regret_mean"], o.summary["regret_ci95"])
                if param in j:
                    points.setdefault(c.label, (i, []))[1].append((j[param], *final))
                else:
                    plot_level(ax, *final, label=f"{c.label} (no {_SYMBOL.get(param, param)})",
                               index=i)
            for label, (i, pts) in points.items():
                x, y, h = map(np.array, zip(*pts))
                plot_points(ax, x, y, h, label=label, index=i)
            if fig_spec.highlight and all(lab in points for lab in fig_spec.highlight):
                highlights += _mark_overtakes(ax, panel, points, fig_spec.highlight)
            ax.set_xscale("log")
            ax.set_yscale("log")
            _no_minor_labels(ax)
            ax.set_xlabel(_SYMBOL.get(param, param))
        small = fig.bandsim_small
        ax.set_title(panel.title + panel_t.get(p, ""), fontsize=7.5 if small else 10)
        ax.set_ylabel(fig_spec.ylabel, fontsize=7 if small else None)
        ax.xaxis.label.set_fontsize(7 if small else ax.xaxis.label.get_fontsize())
        ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
    shared_legend(fig, axes, fontsize=6.5 if fig.bandsim_small else 8)
    provenance(fig, title, footer)
    return save(fig, base.parent / f"{base.name}.png", dpi=dpi, formats=formats), highlights


def provenance_text(fig_spec, jobs, outcomes, seed):
    """The title and footer of a drawn figure, from what was simulated.

    The title is the figure's own (without the paper's scale) followed by
    the horizon T and the runs per curve of the stored results; when panels
    differ in T, each panel title states its own (``panel_horizons``).

    Parameters
    ----------
    fig_spec : Figure
    jobs : list of (int, Curve, dict)
    outcomes : list
        One stored outcome per job (its ``summary`` gives T and runs).
    seed : int

    Returns
    -------
    title : str
    footer : str
    """
    horizons = sorted({int(o.summary["horizon"]) for o in outcomes})
    runs = sorted({int(o.summary["runs"]) for o in outcomes})
    t_text = ("T = " + count_text(horizons[0]) if len(horizons) == 1 else
              "T = " + " / ".join(count_text(h) for h in horizons) + " (per panel)")
    r_text = (f"{runs[0]:,} run{'s' if runs[0] != 1 else ''} per curve" if len(runs) == 1
              else f"{runs[0]:,}–{runs[-1]:,} runs per curve")
    title = f"{fig_spec.title}\n{t_text}, {r_text}"
    footer = f"{fig_spec.source}. Simulated with bandsim {__version__}, seed {seed}."
    mixed = confidence.differing([o.summary for o in outcomes])
    if mixed:  # the curves ran at different confidences: the figure says which
        footer += f"\nConfidences differ between curves: {mixed}."
    return title, footer


def panel_horizons(jobs, outcomes):
    """Panel index → ``", T = …"`` for figures whose panels ran different horizons.

    Parameters
    ----------
    jobs : list of (int, Curve, dict)
    outcomes : list

    Returns
    -------
    dict of int -> str
        Empty when every panel ran the same T.
    """
    per = {}
    for (p, _, _), o in zip(jobs, outcomes):
        per.setdefault(p, set()).add(int(o.summary["horizon"]))
    if len({h for hs in per.values() for h in hs}) <= 1:
        return {}
    return {p: ", T = " + "/".join(count_text(h) for h in sorted(hs)) for p, hs in per.items()}


_SYMBOL = {"epsilon": "ε", "delta": "δ"}


def _no_minor_labels(ax):
    """Label only the decades of a log axis (readable, and much faster to draw)."""
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())


def _mark_overtakes(ax, panel, points, pair):
    """Mark the x values where curve ``pair[1]`` has lower mean regret than ``pair[0]``."""
    a = {x: (y, h) for x, y, h in points[pair[0]][1]}
    b = {x: (y, h) for x, y, h in points[pair[1]][1]}
    out = []
    first = True
    for x in sorted(set(a) & set(b)):
        (ya, ha), (yb, hb) = a[x], b[x]
        if yb < ya:
            ax.axvline(x, color="0.6", linewidth=6, alpha=0.25, zorder=0,
                       label=f"{pair[1]} below {pair[0]}" if first else None)
            first = False
            out.append(dict(panel=panel.title, parameter=panel.x[0], value=x,
                            **{pair[0]: ya, pair[1]: yb},
                            separated_at_95=bool(yb + hb < ya - ha)))
    return out


def _slug(text):
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()
