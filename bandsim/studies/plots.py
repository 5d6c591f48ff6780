"""Regret curves with matplotlib (headless Agg backend)."""
import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def plot_regret(ax, result, label=None, time_average=False, band=True, **style):
    """Draw the mean pseudo-regret of ``result`` against t, with a 95 % band.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    result : bandsim.Result
    label : str, optional
        Legend label (default: the algorithm name).
    time_average : bool
        Plot Reg(t)/t instead of Reg(t) (seed 003, Figures 1–5).
    band : bool
        Shade mean ± 1.96 × standard error over runs.
    """
    t = result.checkpoints.astype(np.float64)
    y = result.pseudo_regret
    if time_average:
        y = y / t
    mean = y.mean(axis=0)
    line, = ax.plot(t, mean, label=label or result.config["algorithm"], **style)
    if band and y.shape[0] > 1:
        half = 1.959963984540054 * y.std(axis=0, ddof=1) / np.sqrt(y.shape[0])
        ax.fill_between(t, mean - half, mean + half, color=line.get_color(), alpha=0.2,
                        linewidth=0)
    return line


def figure_grid(n_panels, ncols=2, panel_size=(4.6, 3.4)):
    """A figure with ``n_panels`` axes laid out in rows of ``ncols``."""
    plt = _pyplot()
    ncols = min(ncols, n_panels)
    nrows = -(-n_panels // ncols)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(panel_size[0] * ncols, panel_size[1] * nrows))
    for ax in axes.ravel()[n_panels:]:
        ax.set_visible(False)
    return fig, axes.ravel()[:n_panels]


def save(fig, path):
    """Write ``fig`` to ``path`` (PNG or PDF by suffix) and close it."""
    plt = _pyplot()
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
