"""Two-sample and goodness-of-fit helpers with a stated significance."""
import numpy as np
from scipy import stats


def chi2_two_sample(x, y, min_expected=5):
    """Chi-square test that two samples come from one distribution.

    Adjacent values of the pooled sample are merged into cells until each
    cell's expected count in the smaller sample is at least ``min_expected``.
    Returns the p-value (1.0 when there is only one cell).
    """
    # values are rounded to 1e-6 so that float sums accumulated in a
    # different order (per pull vs per stage) fall in the same cell
    x = np.round(np.asarray(x, dtype=float), 6)
    y = np.round(np.asarray(y, dtype=float), 6)
    support, pooled = np.unique(np.concatenate([x, y]), return_counts=True)
    need = min_expected * (x.size + y.size) / min(x.size, y.size)
    cells = np.empty(support.size, dtype=np.int64)
    cell, acc = 0, 0
    for i, c in enumerate(pooled):
        cells[i] = cell
        acc += c
        if acc >= need:
            cell, acc = cell + 1, 0
    if acc:  # last, too-small cell joins its neighbour
        cells[cells == cell] = max(cell - 1, 0)
    n_cells = cells.max() + 1
    if n_cells < 2:
        return 1.0
    cx = np.bincount(cells[np.searchsorted(support, x)], minlength=n_cells)
    cy = np.bincount(cells[np.searchsorted(support, y)], minlength=n_cells)
    return stats.chi2_contingency(np.vstack([cx, cy]))[1]


def chi2_gof(samples, support, pmf, min_expected=5):
    """Chi-square goodness of fit of integer ``samples`` to ``pmf`` on ``support``.

    Cells with expected count below ``min_expected`` are pooled into one.
    Returns the p-value.
    """
    samples = np.asarray(samples)
    n = samples.size
    expected = n * np.asarray(pmf, dtype=float)
    idx = np.searchsorted(support, samples)
    inside = (idx < support.size) & (support[np.minimum(idx, support.size - 1)] == samples)
    observed = np.bincount(idx[inside], minlength=support.size).astype(float)
    big = expected >= min_expected
    obs = list(observed[big]) + [observed[~big].sum() + (~inside).sum()]
    exp = list(expected[big]) + [expected[~big].sum() + max(n - expected.sum(), 0.0)]
    if exp[-1] < min_expected:  # fold the tail cell into the largest cell
        j = int(np.argmax(exp[:-1]))
        obs[j] += obs.pop()
        exp[j] += exp.pop()
    obs, exp = np.array(obs), np.array(exp)
    exp *= obs.sum() / exp.sum()
    return stats.chisquare(obs, exp).pvalue
