"""``bandsim plot DIR``: figures of every stored result in a directory.

Two kinds of figure, both with the legend outside the panels (entries sorted
numerically: ε = 2 before ε = 16), a title stating the horizon(s) and runs
that were simulated, and a footer with the seed(s) and bandsim version:

regret curves (default)
    mean pseudo-regret Reg(t) (or Reg(t)/t with ``time_average``) against t,
    with 95 % bands; one panel per value of the ``facet`` columns (default:
    instance, K, reward model and horizon, and the algorithm too when a panel
    would hold more than :data:`MAX_CURVES` curves).
regret against a parameter (``x="epsilon"`` or any swept setting)
    final Reg(T) (or Reg(T)/T) against the parameter, with 95 % error bars;
    one series per value of the ``by`` columns (default: the algorithm and
    every other setting that varies), one panel per ``facet`` value. A
    result whose algorithm does not take the parameter is drawn as a
    horizontal line.

Optional theory overlays for Bernoulli instances with fixed means (C1–C4,
explicit means):

``lai-robbins``
    Σ_a Δ_a ln t / kl(μ_a, μ*), the asymptotic lower bound of any uniformly
    good policy (Lai & Robbins, Advances in Applied Mathematics 6, 1985,
    Theorem 2).
``dp-lower``
    Σ_a Δ_a ln t / min(kl(μ_a, μ*), 6 ε Δ_a), the asymptotic lower bound under
    ε-global DP (Azize & Basu, NeurIPS 2022, Theorem 3; TV = Δ_a for Bernoulli).

Both are lim inf statements (Reg(T)/ln T as T → ∞); they are drawn as
c · ln t and labelled "asymptotic".
"""
import json
import textwrap
from pathlib import Path

import numpy as np

from .. import confidence
from .._version import __version__
from ..errors import ConfigError
from .bounds import dp_lower_constant, lai_robbins_constant
from .plots import (YSCALES, count_text, figure_grid, natural_key, plot_curve, plot_level,
                    plot_points, provenance, save, shared_legend)
from .store import load_outcome

OVERLAYS = ("lai-robbins", "dp-lower")
#: Default panel grouping of ``bandsim plot``.
FACET = ("instance", "arms", "rewards", "horizon")
#: Curves per panel beyond which the default grouping adds one panel per algorithm.
MAX_CURVES = 12
_SHORT = {"epsilon": "ε", "delta": "δ", "scale": "s", "beta": "β", "growth": "η",
          "arms": "K", "horizon": "T", "sigma": "σ"}
#: Row keys that are not settings (never grouped on, never in a label).
NOT_SETTINGS = {"regret_mean", "regret_ci95", "regret_median", "time_avg_regret_mean",
                "time_avg_regret_ci95", "version", "file", "key", "job", "panel", "label",
                "runs", "seed", "jobs_done", "jobs_total"}


def _fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _columns(text, rows, field):
    """A comma list of row columns, each checked to exist."""
    if text is None:
        return None
    cols = [c.strip() for c in text.split(",") if c.strip()] if isinstance(text, str) \
        else list(text)
    known = [c for c in rows[0] if c not in NOT_SETTINGS]
    bad = [c for c in cols if c not in rows[0]]
    if bad or not cols:
        raise ConfigError(field, text, f"must name columns of the results: {', '.join(known)}")
    return cols


def _varying(rows, cols):
    return [c for c in cols if len({json.dumps(r.get(c)) for r in rows}) > 1]


def check_plot_options(rows, *, x=None, by=None, facet=None, overlay=(), yscale="linear"):
    """Validate ``bandsim plot`` options against the rows of a directory (ConfigError).

    Parameters
    ----------
    rows : list of dict
        ``bandsim results`` rows (:func:`bandsim.cli.results.collect`).
    x : str, optional
        A numeric column (``epsilon``, ``scale``, …).
    by, facet : str or sequence of str, optional
        Comma lists of columns.
    overlay : sequence of str
        Names among :data:`OVERLAYS`.
    yscale : {"linear", "log"}

    Returns
    -------
    x, by, facet
        Normalised (lists of columns).

    Raises
    ------
    ConfigError
        Unknown column, non-numeric ``x``, unknown overlay or scale.
    """
    if yscale not in YSCALES:
        raise ConfigError("yscale", yscale, f"must be one of {', '.join(YSCALES)}")
    bad = [o for o in overlay if o not in OVERLAYS]
    if bad:
        raise ConfigError("overlay", ",".join(overlay), f"must be among {', '.join(OVERLAYS)}")
    if x is not None:
        x = _columns(x, rows, "x")
        if len(x) != 1:
            raise ConfigError("x", ",".join(x), "give one parameter")
        x = x[0]
        vals = [r.get(x) for r in rows if r.get(x) is not None]
        if not vals or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                               for v in vals):
            raise ConfigError("x", x, "must be a numeric setting that the results take "
                                      "(e.g. epsilon, scale, arms, horizon)")
    by = _columns(by, rows, "by")
    if x is not None and by and x in by:  # one series per x value would be one point each
        raise ConfigError("by", ",".join(by), f"must not include --x {x}: each series is drawn "
                                              f"against {x} (e.g. --by algorithm)")
    return x, by, _columns(facet, rows, "facet")


def plot_rows(rows, files, out, *, x=None, by=None, facet=None, time_average=False,
              xscale=None, yscale="linear", overlay=(), dpi=300, formats=("png", "pdf"),
              width=None, load=None, partial=None, warn=None):
    """Draw the results of a directory (module docstring).

    Parameters
    ----------
    rows : list of dict
        ``bandsim results`` rows.
    files : dict of str -> Path
        Row ``file`` → its path (curves are read from it).
    out : Path
        Target figure path (its suffix is replaced by each format's).
    x, by, facet : see :func:`check_plot_options`
    time_average : bool
        Reg(t)/t instead of Reg(t).
    xscale : {"linear", "log"}, optional
        Default: linear for curves; log for ``x`` when its values are positive
        and span a factor of 10 or more.
    yscale : {"linear", "log"}
    overlay : sequence of str
    dpi : int
    formats : sequence of str
    width : {"column", "page"}, optional
    load : callable (Path) -> Outcome, optional
        Reader of a stored result (default :func:`bandsim.studies.store.load_outcome`).
    partial : str, optional
        "k of n jobs" of a partial study: the title's first line says
        "PARTIAL STUDY: k of n jobs".
    warn : callable(str), optional
        Told (one line each) what the figure cannot show: overlays that no
        panel can draw, values ≤ 0 on a log y scale (also noted in the footer).

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    ConfigError
        Bad options (:func:`check_plot_options`).
    """
    load = load or load_outcome
    x, by, facet = check_plot_options(rows, x=x, by=by, facet=facet, overlay=overlay,
                                      yscale=yscale)
    settings = [c for c in rows[0] if c not in NOT_SETTINGS]
    if overlay and x is not None:  # the bounds need each result's instance
        rows = [{**r, "_config": load(files[r["file"]]).config} for r in rows]
    if facet is None:
        facet = [c for c in FACET if c != x]
        crowded = max(_count_by(rows, facet).values()) > MAX_CURVES
        if x is None and crowded and len({r["algorithm"] for r in rows}) > 1:
            facet.append("algorithm")  # e.g. a 54-job sweep: one panel per algorithm
    panels = {}
    for r in rows:
        panels.setdefault(tuple(r.get(c) for c in facet), []).append(r)
    keys = sorted(panels, key=lambda k: natural_key(" ".join(map(_fmt, k))))
    fig, axes = figure_grid(len(keys), width=width)
    rest = [c for c in settings if c not in facet and c != x]
    if by is None:  # a setting that varies within one algorithm's results (not between
        # algorithms that simply do not take it) names the series
        per_algo = {}
        for r in rows:
            per_algo.setdefault(r["algorithm"], []).append(r)
        inner = {c for group in per_algo.values() for c in _varying(group, rest)}
        by = ["algorithm"] + [c for c in rest if c in inner and c != "algorithm"]
        if "algorithm" in facet and len(by) > 1:  # the panel names it: ε=… alone, one style
            by = by[1:]                           # per value across panels
    if "algorithm" not in by and "algorithm" not in facet and \
            len({r["algorithm"] for r in rows}) > 1:  # never merge algorithms into one series
        by = ["algorithm"] + list(by)
    series_cols = by
    labels = sorted({_label(r, series_cols) for r in rows}, key=natural_key)
    index = {lab: i for i, lab in enumerate(labels)}
    small = fig.bandsim_small
    # panel titles name only the facet values that differ between panels (T, the same
    # everywhere, is in the figure title)
    shown = [i for i, c in enumerate(facet) if len({k[i] for k in keys}) > 1
             or c in ("instance", "arms")] or [0]  # the instance and K are always named
    drawn, hidden = [], 0
    for ax, k in zip(axes, keys):
        members = panels[k]
        if x is None:
            drawn.append(_curves(ax, members, files, load, series_cols, index, time_average,
                                 overlay))
        else:
            drawn.append(_versus(ax, members, x, series_cols, index, time_average, overlay))
        if yscale == "log":
            hidden += _mask_nonpositive(ax, 6.5 if small else 8)
        ax.set_title(_panel_title(facet, k, shown, ax, 7 if small else 9),
                     fontsize=7 if small else 9)
        xs = xscale or ("linear" if x is None else _auto_scale([r.get(x) for r in members]))
        ax.set_xscale(xs)
        if x is None and xs == "linear":
            ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0), useMathText=True)
        ax.set_yscale(yscale)
        what = "Reg(t)/t" if time_average else "pseudo-regret Reg(t)"
        if x is not None:
            what = "Reg(T)/T" if time_average else "final pseudo-regret Reg(T)"
        if small:
            what = what.split()[-1]  # a column-wide panel: the symbol only
        if yscale == "log" or (x is not None and xs == "log"):
            _decade_labels(ax)
        ax.set_ylabel(what, fontsize=7 if small else None)
        ax.set_xlabel("t" if x is None else _SHORT.get(x, x), fontsize=7 if small else None)
        ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
    shared_legend(fig, axes, fontsize=6.5 if small else 8)
    horizons = sorted({int(r["horizon"]) for r in rows})
    runs = sorted({int(r["runs"]) for r in rows})
    seeds = sorted({r["seed"] for r in rows if r.get("seed") is not None})
    what = "mean final pseudo-regret ± 95 % CI" if x else "mean pseudo-regret ± 95 % band"
    title = (f"{what}{' against ' + _SHORT.get(x, x) if x else ''}\n"
             f"T = {' / '.join(count_text(h) for h in horizons)}, "
             f"{runs[0]:,}{'–' + format(runs[-1], ',') if len(runs) > 1 else ''} runs per "
             f"{'point' if x else 'curve'}")
    if partial:
        title = f"PARTIAL STUDY: {partial} done\n{title}"
    seed_text = (f"seed {seeds[0]}" if len(seeds) == 1 else f"{len(seeds)} seeds")
    footer = (f"{len(rows)} results; simulated with bandsim "
              f"{', '.join(sorted({str(r.get('version')) for r in rows}))}, {seed_text}"
              f" (drawn by bandsim {__version__})")
    notes = []
    if overlay and not any(drawn):
        notes.append(f"overlay {','.join(overlay)} not drawn: the bounds need one fixed "
                     "Bernoulli instance per panel (C1-C4 or --means), and these results have none")
    if hidden:
        notes.append(f"{hidden} value(s) ≤ 0 (zero regret) not drawn on the log y scale")
    for n in notes:
        footer += f"\nNote: {n}."
        if warn is not None:
            warn(n)
    mixed = confidence.differing(rows)
    if mixed:  # the curves ran at different confidences: the figure says which
        footer += f"\nConfidences differ between curves: {mixed}."
    provenance(fig, title, footer)
    return save(fig, out, dpi=dpi, formats=formats)


def _mask_nonpositive(ax, fontsize):
    """Hide the values ≤ 0 of a log-y panel (NaN) and say so in it; the number hidden.

    A zero regret has no place on a log scale: matplotlib drops it silently
    and, when every value is zero, leaves an empty panel.
    """
    hidden, positive = 0, False
    for line in ax.get_lines():
        y = np.asarray(line.get_ydata(), dtype=np.float64)
        bad = np.isfinite(y) & (y <= 0)
        hidden += int(bad.sum())
        positive |= bool((y > 0).any())
        if bad.any():
            line.set_ydata(np.where(bad, np.nan, y))
    for coll in ax.collections:  # bands and error bars: clipped by matplotlib, never counted
        coll.set_clip_on(True)
    if hidden:
        text = (f"{hidden} value(s) ≤ 0 not shown (log scale)" if positive else
                "every value is 0: nothing to draw on a log scale")
        width_in = ax.get_position().width * ax.figure.figure.get_figwidth()  # as the title
        ax.text(0.02, 0.02, textwrap.fill(text, max(12, int(width_in * 72 / (0.6 * fontsize)))),
                transform=ax.transAxes, fontsize=fontsize, color="0.35", va="bottom",
                clip_on=True)
        if not positive:
            ax.set_ylim(0.1, 10.0)
    return hidden


def _count_by(rows, cols):
    out = {}
    for r in rows:
        k = tuple(r.get(c) for c in cols)
        out[k] = out.get(k, 0) + 1
    return out


def _label(r, cols):
    return " ".join(_fmt(r.get(c)) if c == "algorithm" else f"{_SHORT.get(c, c)}={_fmt(r.get(c))}"
                    for c in cols if r.get(c) is not None)


def _panel_title(facet, key, shown, ax, fontsize):
    """``C1, K = 5``: the facet values that differ between panels, wrapped to the panel."""
    parts = []
    for i in shown:
        c, v = facet[i], key[i]
        if c in ("instance", "rewards", "algorithm"):
            parts.append(_fmt(v))
        else:
            parts.append(f"{_SHORT.get(c, c)} = {count_text(v) if c == 'horizon' else _fmt(v)}")
    width_in = ax.get_position().width * ax.figure.figure.get_figwidth()  # the root figure
    return textwrap.fill(", ".join(parts), max(12, int(width_in * 72 / (0.6 * fontsize))))


def _decade_labels(ax):
    """Label only the decades of log axes (minor labels crowd small panels)."""
    from matplotlib.ticker import NullFormatter

    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_minor_formatter(NullFormatter())


def _auto_scale(values):
    v = np.array([x for x in values if x is not None], dtype=np.float64)
    return "log" if v.size and (v > 0).all() and v.max() >= 10 * v.min() else "linear"


def _curves(ax, members, files, load, series_cols, index, time_average, overlay):
    seen = {}
    for r in sorted(members, key=lambda r: index[_label(r, series_cols)]):
        o = load(files[r["file"]])
        lab = _label(r, series_cols)
        plot_curve(ax, o.checkpoints, o.mean, o.half95, label=lab, index=index[lab],
                   time_average=time_average, xscale="linear")
        seen.setdefault("t", o.checkpoints)
        seen.setdefault("cfg", []).append((r, o.config))
    if overlay and "t" in seen:
        return _overlay_curves(ax, seen["t"], seen["cfg"], overlay, time_average)
    return False


def _bernoulli_means(config):
    """The fixed arm means of a Bernoulli result, or None (random or non-Bernoulli)."""
    loc = config.get("location")
    if config.get("rewards") != "bernoulli" or loc is None:
        return None
    loc = np.asarray(loc, dtype=np.float64)
    return loc if loc.ndim == 1 else None


def _overlay_curves(ax, t, members, overlay, time_average):
    t = np.asarray(t, dtype=np.float64)
    means = {tuple(m) for _, c in members if (m := _bernoulli_means(c)) is not None}
    if len(means) != 1:
        return False  # no single fixed Bernoulli instance in this panel: no bound to draw
    mu = np.array(next(iter(means)))
    lnt = np.log(np.maximum(t, 1.0)) / (t if time_average else 1.0)
    if "lai-robbins" in overlay:
        ax.plot(t, lai_robbins_constant(mu) * lnt, color="0.45", linewidth=1.0,
                linestyle=(0, (2, 2)), label="Lai–Robbins bound (asymptotic)")
    if "dp-lower" in overlay:
        eps = sorted({r["epsilon"] for r, _ in members if r.get("epsilon") is not None})
        for e in eps:
            ax.plot(t, dp_lower_constant(mu, e) * lnt, color="0.2", linewidth=1.0,
                    linestyle=(0, (6, 2)),
                    label=f"ε-DP lower bound, ε={e:g} (Azize & Basu 2022, asymptotic)")
    return True


def _versus(ax, members, x, series_cols, index, time_average, overlay):
    stat = ("time_avg_regret_mean", "time_avg_regret_ci95") if time_average else \
        ("regret_mean", "regret_ci95")
    series = {}
    for r in members:
        lab = _label(r, series_cols)
        y, h = r[stat[0]], r[stat[1]]
        if r.get(x) is None:
            plot_level(ax, y, h, label=f"{lab} (no {_SHORT.get(x, x)})", index=index[lab])
        else:
            series.setdefault(lab, []).append((float(r[x]), y, np.nan if h is None else h))
    for lab, pts in sorted(series.items(), key=lambda kv: index[kv[0]]):
        xs, ys, hs = map(np.array, zip(*sorted(pts)))
        plot_points(ax, xs, ys, hs, label=lab, index=index[lab])
    if overlay and x == "epsilon":
        return _overlay_versus_epsilon(ax, members, overlay, time_average)
    return False


def _overlay_versus_epsilon(ax, members, overlay, time_average):
    means = {tuple(m) for r in members if (m := _bernoulli_means(r.get("_config", {})))
             is not None}
    if len(means) != 1:
        return False
    mu = np.array(next(iter(means)))
    T = float(members[0]["horizon"])
    scale = np.log(T) / (T if time_average else 1.0)
    eps = np.array(sorted({float(r["epsilon"]) for r in members if r.get("epsilon")}))
    if eps.size == 0:
        return False
    grid = np.geomspace(eps.min(), eps.max(), 64) if eps.max() > eps.min() else eps
    if "lai-robbins" in overlay:
        ax.axhline(lai_robbins_constant(mu) * scale, color="0.45", linewidth=1.0,
                   linestyle=(0, (2, 2)), label="Lai–Robbins bound (asymptotic)")
    if "dp-lower" in overlay:
        ax.plot(grid, [dp_lower_constant(mu, e) * scale for e in grid], color="0.2",
                linewidth=1.0, linestyle=(0, (6, 2)),
                label="ε-DP lower bound (Azize & Basu 2022, asymptotic)")
    return True
