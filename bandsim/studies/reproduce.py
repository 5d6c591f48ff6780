"""``bandsim reproduce FIGURE --out DIR``: simulate and draw one of the seeds' figures."""
import json
from pathlib import Path

from .. import registry
from ..errors import ConfigError
from .figures import FIGURES


def figure_jobs(figure, runs=None, horizon=None, seed=1, instance_file=None, threads=None):
    """The simulate() keyword sets of a figure, and what had to be left out.

    Returns
    -------
    jobs : list of (panel_index, Curve, dict)
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
            job = dict(algorithm=curve.algorithm, **panel.options, **curve.options,
                       horizon=horizon or figure.horizon, runs=runs or figure.runs,
                       seed=seed, threads=threads)
            if panel.needs_instance_file:
                job["instance_file"] = instance_file
            jobs.append((p, curve, job))
    return jobs, skipped


def reproduce(name, out, *, runs=None, horizon=None, seed=1, instance_file=None,
              threads=None, console=None, backend="local", scheduler=None):
    """Simulate every curve of figure ``name``; write Parquet, PNG and JSON to ``out``.

    Parameters
    ----------
    name : str
        A key of :data:`bandsim.figures.FIGURES` (``bandsim list``).
    out : path
        Output directory (created). Writes ``out/NAME.png``,
        ``out/NAME.json`` (summary rows) and ``out/NAME/*.parquet``.
    runs, horizon : int, optional
        Override the paper's runs and T (e.g. for a quick look).
    seed : int
        Root seed shared by every curve (common random instances).
    instance_file : path, optional
        Instance file for the real-data panels.

    Returns
    -------
    rows : list of dict
        One summary row per curve (panel, label, and ``Result.summary()``).
    skipped : list of str

    Raises
    ------
    ConfigError
        Unknown figure, or invalid overrides (before any simulation).
    """
    from .jobs import run_jobs
    from .plots import figure_grid, plot_regret, save

    if name not in FIGURES:
        raise ConfigError("figure", name, f"must be one of {', '.join(FIGURES)}")
    fig_spec = FIGURES[name]
    jobs, skipped = figure_jobs(fig_spec, runs, horizon, seed, instance_file, threads)
    out = Path(out)
    (out / name).mkdir(parents=True, exist_ok=True)
    results = {}
    labels = [f"{fig_spec.panels[p].title}: {c.label}" for p, c, _ in jobs]
    for i, res, seconds in run_jobs([j for _, _, j in jobs], console=console,
                                    backend=backend, scheduler=scheduler, labels=labels):
        p, curve, _ = jobs[i]
        res.to_parquet(out / name / f"panel{p + 1}_{_slug(curve.label)}.parquet")
        results[i] = (res, seconds)

    fig, axes = figure_grid(len(fig_spec.panels))
    rows = []
    ytop = [0.0] * len(fig_spec.panels)
    for i, (p, curve, _) in enumerate(jobs):
        res, seconds = results[i]
        plot_regret(axes[p], res, label=curve.label, time_average=fig_spec.time_average)
        if fig_spec.time_average:  # like the papers: the first 2 % of t off the scale
            late = res.checkpoints >= res.horizon / 50
            curve_y = res.mean_regret_curve()[late] / res.checkpoints[late]
            ytop[p] = max(ytop[p], 1.15 * float(curve_y.max()))
        rows.append(dict(panel=fig_spec.panels[p].title, label=curve.label,
                         seconds=seconds, **res.summary()))
    for ax, panel, top in zip(axes, fig_spec.panels, ytop):
        if top > 0:
            ax.set_ylim(0, top)
        ax.set_title(panel.title, fontsize=10)
        ax.set_xlabel("t (pulls)")
        ax.set_ylabel("Reg(t)/t" if fig_spec.time_average else "pseudo-regret")
        if ax.lines:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "not simulated", ha="center", va="center",
                    transform=ax.transAxes)
    fig.suptitle(f"{fig_spec.title}\n({fig_spec.source}; bandsim, seed {seed})", fontsize=11)
    save(fig, out / f"{name}.png")
    (out / f"{name}.json").write_text(json.dumps(
        dict(figure=name, source=fig_spec.source, seed=seed, rows=rows, skipped=skipped),
        indent=2))
    return rows, skipped


def _slug(text):
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()
