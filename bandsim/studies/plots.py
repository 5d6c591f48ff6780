"""Regret curves with matplotlib (headless Agg backend), styled for a paper.

- Colours: the Okabe–Ito palette (Okabe & Ito 2008, "Color Universal
  Design"), safe for the common colour-vision deficiencies; every curve also
  has its own line style and marker, so curves stay apart in greyscale.
- Figures are saved as PNG (``dpi``), PDF and SVG (vector) through
  :mod:`bandsim.atomic`.
- Panels are laid out row by row (``rows=(3, 2)`` puts three panels on top
  and two centred below), so a figure never shows an empty panel. Matplotlib's
  constrained layout places titles, tick labels, axis labels, the legend (outside
  the panels, its entries sorted numerically) and the provenance footer, so no
  text is clipped whatever the tick labels' width.
- ``width="column"`` (3.5 in) and ``width="page"`` (7 in) give figures that fit
  one column or the full width of a two-column paper at 100 % scale.
- matplotlib is imported only when a figure is drawn.
"""
import re
import sys
import textwrap
from pathlib import Path

import numpy as np

from .._version import __version__
from ..atomic import probe, save_figure
from ..errors import ConfigError, check_int
from ..results import Z95

#: Okabe–Ito colours (black first, then orange, sky blue, bluish green,
#: vermillion, blue, reddish purple, yellow, which is kept last: pale on white), then
#: four of Paul Tol's "muted" scheme (wine, teal, olive, indigo) so that 12 curves
#: (a default sweep of 3–4 algorithms × 3 ε) never share a colour.
PALETTE = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#D55E00", "#0072B2", "#CC79A7",
           "#F0E442", "#882255", "#44AA99", "#999933", "#332288")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)),
              (0, (3, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
FORMATS = ("png", "pdf", "svg")
XSCALES = ("linear", "log")
YSCALES = ("linear", "log")
#: Figure widths in inches: one column or the full text width of a two-column paper.
WIDTHS = {"column": 3.5, "page": 7.0}
#: PNG resolutions accepted (below 10 nothing is legible; above 2400 a page-wide PNG
#: is beyond 16,000 pixels).
DPI_RANGE = (10, 2400)


def style(i):
    """Colour, line style and marker of the ``i``-th curve of a panel.

    The first 12 curves differ in colour (the first 8 also in line style and
    marker); beyond 12 the line styles shift against the colours, so 96 curves
    stay distinct.

    Parameters
    ----------
    i : int

    Returns
    -------
    dict
        Keyword arguments for ``Axes.plot``.
    """
    shift = i + i // len(PALETTE)  # curves 12-23 pair each colour with another style
    return dict(color=PALETTE[i % len(PALETTE)], linestyle=LINESTYLES[shift % len(LINESTYLES)],
                marker=MARKERS[shift % len(MARKERS)], markersize=4.5, linewidth=1.4,
                markerfacecolor="white" if i % 2 else PALETTE[i % len(PALETTE)])


def new_figure(figsize):
    """A constrained-layout Figure on an Agg canvas, without pyplot (faster, no global state).

    Parameters
    ----------
    figsize : (float, float)
        Inches.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def check_dpi(dpi):
    """``dpi`` as an int in :data:`DPI_RANGE`, else ConfigError (one line).

    Parameters
    ----------
    dpi : int

    Returns
    -------
    int

    Raises
    ------
    ConfigError
        Not an integer in the range.
    """
    return check_int("dpi", dpi, *DPI_RANGE)


def check_figure_options(dpi, formats, width=None):
    """Refuse a bad ``dpi``, format list or width preset before any work (ConfigError).

    Parameters
    ----------
    dpi : int
    formats : sequence of str
    width : {"column", "page"} or None

    Raises
    ------
    ConfigError
        The field and its allowed values, in one line.
    """
    check_dpi(dpi)
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise ConfigError("format", ",".join(map(str, formats)),
                          f"must be a comma list of {', '.join(FORMATS)}")
    if width is not None and width not in WIDTHS:
        raise ConfigError("width", width, f"must be one of {', '.join(WIDTHS)}")


def check_out_dir(out):
    """Refuse an output directory that exists as something else or cannot be created.

    Parameters
    ----------
    out : path

    Raises
    ------
    ConfigError
        ``out`` exists and is not a directory, or its nearest existing parent
        is not a directory or refuses a probe write (:func:`bandsim.atomic.probe`).
    """
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise ConfigError("out", str(out), "exists and is not a directory")
    probe(p, "out", str(out))  # a probe write: full, read-only, under a file (atomic.probe)


def check_out_file(out):
    """Refuse a figure file path whose directory is missing or not writable, or a directory.

    Parameters
    ----------
    out : path

    Raises
    ------
    ConfigError
    """
    p = Path(out)
    if p.is_dir() or str(out).endswith(("/", "\\")):
        raise ConfigError("out", str(out), "is a directory; give a file such as fig.png")
    if not p.parent.is_dir():
        probe(p.parent, "out", str(out))  # a regular file on the way: "… is not a directory"
        raise ConfigError("out", str(out), f"its directory {p.parent} does not exist")
    if p.exists() and not p.is_file():
        raise ConfigError("out", str(out), "exists and is not a regular file")
    probe(p.parent, "out", str(out))  # a probe write: full, read-only (atomic.probe)


def natural_key(label):
    """Sort key that orders numbers inside labels by value (ε=2 before ε=16).

    Parameters
    ----------
    label : str

    Returns
    -------
    tuple
    """
    parts = re.split(r"([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)", str(label))
    return tuple((0, float(p), "") if i % 2 else (1, 0.0, p.casefold())
                 for i, p in enumerate(parts))


def count_text(n):
    """An integer for a title: ``2,000``, ``10⁶``, ``5×10⁷``.

    Parameters
    ----------
    n : int

    Returns
    -------
    str
    """
    n = int(n)
    if n >= 100_000:
        e = len(str(n)) - 1
        while e > 0 and n % 10**e:
            e -= 1
        m = n // 10**e
        if e >= 5 and m < 1000:
            sup = str(e).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
            return f"10{sup}" if m == 1 else f"{m}×10{sup}"
    return f"{n:,}"


def _marks(t, xscale, n=8, index=0):
    """Indices of about ``n`` marker positions, evenly spaced on the drawn x axis.

    Curve ``index`` has its markers shifted by a quarter step per index, so
    markers of overlapping curves do not hide each other.
    """
    t = np.asarray(t, dtype=np.float64)
    if t.size <= n:
        return np.arange(t.size)
    u = np.log(t) if xscale == "log" else t
    step = (u[-1] - u[0]) / (n + 1)
    targets = u[0] + step * (np.arange(1, n + 1) - 0.5 + (index % 4) / 4)
    return np.unique(np.searchsorted(u, targets).clip(0, t.size - 1))


def plot_curve(ax, t, mean, half=None, *, label=None, index=0, time_average=False,
               xscale="linear", band=True):
    """Draw one mean regret curve with its 95 % band.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    t : int64 (C,)
        Checkpoints.
    mean, half : float64 (C,)
        Mean pseudo-regret and half-width of its 95 % interval (NaN: no band).
    label : str
    index : int
        Position of the curve in its panel (selects colour, style, marker).
    time_average : bool
        Plot Reg(t)/t (Chowdhury & Zhou's figures) instead of Reg(t).
    xscale : {"linear", "log"}
    band : bool
        Draw the 95 % band.

    Returns
    -------
    matplotlib.lines.Line2D
    """
    t = np.asarray(t, dtype=np.float64)
    y = np.asarray(mean, dtype=np.float64) / (t if time_average else 1.0)
    st = style(index)
    line, = ax.plot(t, y, label=label, markevery=list(_marks(t, xscale, index=index)), **st)
    if band and half is not None and np.all(np.isfinite(half)):
        h = np.asarray(half) / (t if time_average else 1.0)
        ax.fill_between(t, y - h, y + h, color=st["color"], alpha=0.15, linewidth=0)
    return line


def plot_regret(ax, result, label=None, time_average=False, band=True, **kw):
    """Draw the mean pseudo-regret of a :class:`bandsim.Result` with its 95 % band.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    result : Result
    label : str, optional
        Default: the algorithm's name.
    time_average : bool
        Plot Reg(t)/t.
    band : bool
        Draw the 95 % band.
    **kw
        Passed to :func:`plot_curve` (``index``, ``xscale``).

    Returns
    -------
    matplotlib.lines.Line2D
    """
    y = result.pseudo_regret
    half = Z95 * y.std(axis=0, ddof=1) / np.sqrt(y.shape[0]) if y.shape[0] > 1 else None
    return plot_curve(ax, result.checkpoints, y.mean(axis=0), half,
                      label=label or result.config["algorithm"], time_average=time_average,
                      band=band, **kw)


def plot_points(ax, x, y, half=None, *, label=None, index=0):
    """Final regret against a parameter (one point per value, 95 % error bars).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x, y : float64 (n,)
        Parameter values and mean final regret.
    half : float64 (n,), optional
        Half-widths of the 95 % intervals (NaN: no bar).
    label : str, optional
    index : int
        Style of the series (:func:`style`).

    Returns
    -------
    matplotlib.lines.Line2D
    """
    st = style(index)
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    order = np.argsort(x)
    line, = ax.plot(x[order], y[order], label=label, **st)
    if half is not None:
        h = np.asarray(half, dtype=np.float64)[order]
        ok = np.isfinite(h)
        ax.errorbar(x[order][ok], y[order][ok], yerr=h[ok], fmt="none", ecolor=st["color"],
                    elinewidth=0.8, capsize=2)
    return line


def plot_level(ax, y, half=None, *, label=None, index=0):
    """A result that does not depend on the panel's x parameter: a horizontal line.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    y : float
        Mean final regret.
    half : float, optional
        Half-width of its 95 % interval (drawn as a band).
    label : str, optional
    index : int
        Style (:func:`style`).

    Returns
    -------
    matplotlib.lines.Line2D
    """
    st = style(index)
    st.pop("marker"), st.pop("markersize"), st.pop("markerfacecolor")
    line = ax.axhline(y, label=label, **st)
    if half is not None and np.isfinite(half):
        ax.axhspan(y - half, y + half, color=st["color"], alpha=0.12, linewidth=0)
    return line


def layout_rows(n_panels, rows=None):
    """Panels per row: ``rows`` if it fits ``n_panels``, else a layout with no holes.

    Parameters
    ----------
    n_panels : int
    rows : sequence of int, optional

    Returns
    -------
    tuple of int
    """
    if rows is not None and sum(rows) == n_panels:
        return tuple(rows)
    if n_panels <= 3:
        return (n_panels,)
    for ncols in (4, 3, 2):  # an exact rectangle if there is one
        if n_panels % ncols == 0 and n_panels // ncols <= ncols:
            return (ncols,) * (n_panels // ncols)
    ncols = 3
    full, rest = divmod(n_panels, ncols)
    return (ncols,) * full + ((rest,) if rest else ())


def figure_grid(n_panels, ncols=None, panel_size=(4.0, 3.0), rows=None, width=None):
    """A constrained-layout figure with ``n_panels`` axes laid out in ``rows`` (no empty panel).

    Parameters
    ----------
    n_panels : int
    ncols : int, optional
        Panels per row (then rows are filled in order; a short last row is centred).
    panel_size : (float, float)
        Inches per panel, labels included (when ``width`` is None).
    rows : sequence of int, optional
        Panels in each row, e.g. ``(3, 2)``; shorter rows are centred.
    width : {"column", "page"} or float, optional
        Total figure width in inches (:data:`WIDTHS`); panels keep a 4:3 aspect
        and fonts shrink to a paper's sizes.

    Returns
    -------
    fig : matplotlib.figure.Figure
    axes : list of matplotlib.axes.Axes
    """
    if ncols is not None and rows is None:
        full, rest = divmod(n_panels, ncols)
        rows = (ncols,) * full + ((rest,) if rest else ())
    rows = layout_rows(n_panels, rows)
    ncol = max(rows)
    if width is not None:
        W = WIDTHS[width] if isinstance(width, str) else float(width)
        pw = W / ncol
        ph = max(1.6, 0.8 * pw)
    else:
        pw, ph = panel_size
        W = pw * ncol
    H = ph * len(rows) + 0.35
    fig = new_figure((W, H))
    fig.get_layout_engine().set(w_pad=0.03, h_pad=0.03, wspace=0.02, hspace=0.04)
    # the panels with their title and legend, and below them a strip for the footer
    # (its height is set by provenance() once the footer's lines are known)
    fig.bandsim_strips = fig.add_gridspec(2, 1, height_ratios=(H, 1e-3), hspace=0)
    main = fig.add_subfigure(fig.bandsim_strips[0])
    fig.bandsim_foot = fig.add_subfigure(fig.bandsim_strips[1])
    fig.bandsim_main = main
    gs = main.add_gridspec(len(rows), 2 * ncol)
    axes = []
    for r, n in enumerate(rows):
        x0 = ncol - n  # a short row is centred: half a panel per missing panel
        for j in range(n):
            axes.append(main.add_subplot(gs[r, x0 + 2 * j:x0 + 2 * j + 2]))
    fig.bandsim_small = width is not None and W / ncol < 3.0
    fig.bandsim_preset = width is not None  # a fixed width: the legend must fit inside it
    fig.bandsim_narrow = fig.bandsim_preset and W < 5.0  # legend below the panels
    if fig.bandsim_small:
        for ax in axes:
            ax.tick_params(which="both", labelsize=6.5)
            ax.xaxis.get_offset_text().set_fontsize(6.5)
            ax.yaxis.get_offset_text().set_fontsize(6.5)
    return fig, axes


def shared_legend(fig, axes, fontsize=7, title=None):
    """One legend for the figure, outside the panels (right of them), entries sorted numerically.

    Curves with the same label in several panels appear once.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    axes : list of matplotlib.axes.Axes
    fontsize : float
    title : str, optional

    Returns
    -------
    matplotlib.legend.Legend or None
    """
    handles = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab and not lab.startswith("_"):
                handles.setdefault(lab, h)
    if not handles:
        return None
    labels = sorted(handles, key=natural_key)
    target = getattr(fig, "bandsim_main", fig)
    longest = max(len(lab) for lab in labels)
    beside = (0.55 * longest + 4) * fontsize / 72  # inches of a legend column
    preset = getattr(fig, "bandsim_preset", False)
    if getattr(fig, "bandsim_narrow", False) or (preset and beside > 0.3 * fig.get_figwidth()):
        # a column-wide figure, or labels too long to sit beside: below the panels
        # an entry: its text, the handle (2 em), the pad and the column spacing (2.8 em)
        ncols = max(1, min(len(labels), int(fig.get_figwidth() * 72
                                            / (fontsize * (0.6 * longest + 5.5)))))
        loc = "outside lower center"
        rows = -(-len(labels) // ncols)  # the figure grows by the legend's rows
        fig.set_figheight(fig.get_figheight() + rows * fontsize * 1.45 / 72 + 0.1)
    else:  # beside the panels: as many entries per column as fit their height
        per_col = max(1, int((fig.get_figheight() - 0.9) * 72 / (fontsize * 1.9)))
        ncols = -(-len(labels) // per_col)
        loc = "outside right center"
        if not preset:  # no width asked for: the figure grows by the legend, panels keep theirs
            fig.set_figwidth(fig.get_figwidth() + ncols * beside)
    return target.legend([handles[lab] for lab in labels], labels, loc=loc, ncols=ncols,
                         fontsize=fontsize, frameon=False, title=title,
                         title_fontsize=fontsize)


def provenance(fig, title, footer, fontsize=9):
    """The figure's title (what was simulated) on top and a provenance footer below.

    The title is the panels' ``suptitle`` (placed by the constrained layout);
    the footer sits in its own strip below the panels and their legend, as
    tall as its wrapped lines, so neither can be clipped or overlap.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    title : str
        E.g. ``"Under C1 with K = 5 — T = 2,000, 3 runs per curve"``.
    footer : str
        E.g. the paper, the seed and the bandsim version.
    fontsize : float
    """
    small = getattr(fig, "bandsim_small", False)
    fs = 7 if small else fontsize
    W, H = fig.get_size_inches()
    chars = max(20, int(W * 72 / (0.55 * fs)))
    main = getattr(fig, "bandsim_main", fig)
    fig.bandsim_title = main.suptitle("\n".join(
        textwrap.fill(line, chars, break_on_hyphens=False) for line in title.split("\n")),
        fontsize=fs)
    ffs = fs - 2
    text = textwrap.fill(footer, max(20, int(W * 72 / (0.6 * ffs))), break_on_hyphens=False)
    foot = getattr(fig, "bandsim_foot", None)
    if foot is None:
        fig.bandsim_footer = fig.supxlabel(text, fontsize=ffs, color="0.35")
        return
    strip = (text.count("\n") + 1) * ffs * 1.35 / 72 + 0.06  # inches for the footer lines
    fig.set_figheight(H + strip)
    fig.bandsim_strips.set_height_ratios((H, strip))
    fig.bandsim_footer = foot.text(0.5, 0.5, text, ha="center", va="center", fontsize=ffs,
                                   color="0.35", transform=foot.transSubfigure)


def round_axis(ax, xscale):
    """x axis of a regret curve: log, or linear with a common ×10ⁿ factor (as in the papers).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    xscale : {"linear", "log"}
    """
    ax.set_xscale(xscale)
    if xscale == "linear":
        ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0), useMathText=True)


def save(fig, path, dpi=300, formats=None):
    """Write ``fig`` atomically and close it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : path
        Target; with ``formats`` its suffix is replaced by each format's.
    dpi : int
        Resolution of raster formats (PNG).
    formats : sequence of str, optional
        E.g. ``("png", "pdf")``; default: the suffix of ``path``.

    Returns
    -------
    list of Path
    """
    path = Path(path)
    stem = path.name
    if path.suffix.lower().lstrip(".") in ("png", "pdf", "svg"):
        stem = path.name[:-len(path.suffix)]  # "thesis-6.1.png" → "thesis-6.1"
    formats = formats or (path.suffix.lstrip(".") or "png",)
    out = []
    try:
        for fmt in formats:
            p = path.parent / f"{stem}.{fmt}"
            save_figure(fig, p, dpi=dpi, metadata=_metadata(fmt))
            out.append(p)
    finally:
        if "matplotlib.pyplot" in sys.modules:  # a figure made with pyplot: release it
            sys.modules["matplotlib.pyplot"].close(fig)
    return out


def _metadata(fmt):
    if fmt == "pdf":
        return {"Creator": f"bandsim {__version__}", "CreationDate": None}
    if fmt == "png":
        return {"Software": f"bandsim {__version__}"}
    if fmt == "svg":
        return {"Creator": f"bandsim {__version__}", "Date": None}
    return None
