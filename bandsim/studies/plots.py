"""Regret curves with matplotlib (headless Agg backend), styled for a paper.

- Colours: the Okabe–Ito palette (Okabe & Ito 2008, "Color Universal
  Design"), safe for the common colour-vision deficiencies; every curve also
  has its own line style and marker, so curves stay apart in greyscale.
- Figures are saved as PNG (``dpi``) and PDF (vector) through
  :mod:`bandsim.atomic`.
- Panels are laid out row by row (``rows=(3, 2)`` puts three panels on top
  and two centred below), so a figure never shows an empty panel; margins
  are fixed in inches, so drawing needs no layout pass.
"""
import numpy as np
from .._version import __version__
from ..atomic import save_figure
from ..results import Z95

#: Okabe–Ito colours (black first, then orange, sky blue, bluish green,
#: vermillion, blue, reddish purple, yellow, which is kept last: pale on white).
PALETTE = ("#000000", "#E69F00", "#56B4E9", "#009E73", "#D55E00", "#0072B2", "#CC79A7",
           "#F0E442")
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (8, 2)),
              (0, (3, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
FORMATS = ("png", "pdf")
XSCALES = ("linear", "log")


def style(i):
    """Colour, line style and marker of the ``i``-th curve of a panel (dict for ``plot``)."""
    return dict(color=PALETTE[i % len(PALETTE)], linestyle=LINESTYLES[i % len(LINESTYLES)],
                marker=MARKERS[i % len(MARKERS)], markersize=4.5, linewidth=1.4,
                markerfacecolor="white" if i % 2 else PALETTE[i % len(PALETTE)])


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


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
    """Draw the mean pseudo-regret of a :class:`bandsim.Result` with its 95 % band."""

    y = result.pseudo_regret
    half = Z95 * y.std(axis=0, ddof=1) / np.sqrt(y.shape[0]) if y.shape[0] > 1 else None
    return plot_curve(ax, result.checkpoints, y.mean(axis=0), half,
                      label=label or result.config["algorithm"], time_average=time_average,
                      band=band, **kw)


def plot_points(ax, x, y, half=None, *, label=None, index=0):
    """Final regret against a parameter (one point per value, 95 % error bars)."""
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
    """A result that does not depend on the panel's x parameter: a horizontal line."""
    st = style(index)
    st.pop("marker"), st.pop("markersize"), st.pop("markerfacecolor")
    line = ax.axhline(y, label=label, **st)
    if half is not None and np.isfinite(half):
        ax.axhspan(y - half, y + half, color=st["color"], alpha=0.12, linewidth=0)
    return line


def layout_rows(n_panels, rows=None):
    """Panels per row: ``rows`` if it fits ``n_panels``, else a layout with no holes."""
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


#: Space around each panel's axes, inches: left (y label and ticks), right,
#: bottom (x label, ticks, ×10ⁿ factor), top (panel title).
MARGINS = dict(left=0.72, right=0.18, bottom=0.62, top=0.34)


def figure_grid(n_panels, ncols=None, panel_size=(4.0, 3.0), rows=None, title_lines=0):
    """A figure with ``n_panels`` axes laid out in ``rows`` (no empty panel).

    Every panel is a cell of ``panel_size`` inches whose axes sit inside
    fixed :data:`MARGINS`, so no layout pass (``tight_layout``) is needed.

    Parameters
    ----------
    n_panels : int
    ncols : int, optional
        Panels per row (then rows are filled in order; a short last row is centred).
    panel_size : (float, float)
        Inches per panel, labels included.
    rows : sequence of int, optional
        Panels in each row, e.g. ``(3, 2)``; shorter rows are centred.
    title_lines : int
        Lines of figure title (``suptitle``) to leave room for.

    Returns
    -------
    fig, list of Axes
    """
    plt = _pyplot()
    if ncols is not None and rows is None:
        full, rest = divmod(n_panels, ncols)
        rows = (ncols,) * full + ((rest,) if rest else ())
    rows = layout_rows(n_panels, rows)
    pw, ph = panel_size
    width = max(rows)
    head = 0.1 + 0.17 * title_lines if title_lines else 0.0
    W, H = pw * width, ph * len(rows) + head
    fig = plt.figure(figsize=(W, H))
    m = MARGINS
    axes = []
    for r, n in enumerate(rows):
        x0 = (width - n) * pw / 2  # centre a short row
        y0 = H - head - (r + 1) * ph
        for j in range(n):
            rect = (x0 + j * pw + m["left"], y0 + m["bottom"],
                    pw - m["left"] - m["right"], ph - m["bottom"] - m["top"])
            axes.append(fig.add_axes((rect[0] / W, rect[1] / H, rect[2] / W, rect[3] / H)))
    fig.bandsim_fixed_layout = True
    return fig, axes


def round_axis(ax, xscale):
    """x axis of a regret curve: log, or linear with a common ×10ⁿ factor (as in the papers)."""
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
    from pathlib import Path

    plt = _pyplot()
    path = Path(path)
    stem = path.name
    if path.suffix.lower().lstrip(".") in ("png", "pdf", "svg"):
        stem = path.name[:-len(path.suffix)]  # "thesis-6.1.png" → "thesis-6.1"
    formats = formats or (path.suffix.lstrip(".") or "png",)
    out = []
    try:
        if not getattr(fig, "bandsim_fixed_layout", False):
            fig.tight_layout()
        for fmt in formats:
            p = path.parent / f"{stem}.{fmt}"
            save_figure(fig, p, dpi=dpi, metadata=_metadata(fmt))
            out.append(p)
    finally:
        plt.close(fig)
    return out


def _metadata(fmt):
    if fmt == "pdf":
        return {"Creator": f"bandsim {__version__}", "CreationDate": None}
    if fmt == "png":
        return {"Software": f"bandsim {__version__}"}
    return None
