"""The statistics of the sampled audit: a G-test of draws against an exact law,
and a Clopper–Pearson lower bound on ε from draws under two neighbouring inputs.

:mod:`bandsim.privacy.sampled` runs the kernels that draw and hands their
histograms here.

References
----------
Clopper & Pearson, "The use of confidence or fiducial limits illustrated in
the case of the binomial", Biometrika 1934; Jagielski, Ullman & Oprea,
"Auditing Differentially Private Machine Learning: How Private is Private
SGD?", NeurIPS 2020 (ε lower bounds from Clopper–Pearson limits of one event).
"""
import math

import numpy as np

#: Significance level of every goodness-of-fit test.
ALPHA = 1e-6
#: 1 − confidence of the ε lower bound.
BETA = 1e-6
#: Smallest expected count of a cell of its own (smaller ones are pooled).
MIN_EXPECTED = 5.0


# --- statistics ----------------------------------------------------------------

def g_test(counts, probs, outside=0):
    """G-test of observed ``counts`` (int (C,)) against ``probs`` (float (C,)).

    ``outside`` draws fell outside the C cells (their expected mass is
    1 − Σ probs). Cells of expected count < :data:`MIN_EXPECTED` are pooled
    into one tail cell (a partition fixed by the law alone, before the data).

    Returns
    -------
    statistic, p_value, cells
    """
    from scipy import stats

    counts = np.asarray(counts, np.float64)
    n = counts.sum() + outside
    exp = n * np.asarray(probs, np.float64)
    big = exp >= MIN_EXPECTED
    obs = np.append(counts[big], counts[~big].sum() + outside)
    ex = np.append(exp[big], max(n - exp[big].sum(), 0.0))
    if ex[-1] < MIN_EXPECTED and len(ex) > 1:  # the tail cell joins the largest cell
        j = int(np.argmax(ex[:-1]))
        obs[j] += obs[-1]
        ex[j] += ex[-1]
        obs, ex = obs[:-1], ex[:-1]
    if len(ex) < 2:
        return 0.0, 1.0, len(ex)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(obs > 0, obs * np.log(obs / ex), 0.0)
    g = float(2 * terms.sum())
    if not math.isfinite(g):
        return math.inf, 0.0, len(ex)
    return g, float(stats.chi2.sf(g, len(ex) - 1)), len(ex)


def _cp_lower(k, n, a):
    from scipy import stats

    k = np.asarray(k, np.float64)
    with np.errstate(invalid="ignore"):
        out = stats.beta.ppf(a, k, n - k + 1)
    return np.where(k > 0, out, 0.0)


def _cp_upper(k, n, a):
    from scipy import stats

    k = np.asarray(k, np.float64)
    with np.errstate(invalid="ignore"):
        out = stats.beta.ppf(1 - a, k + 1, n - k)
    return np.where(k < n, out, 1.0)


def _directed_bounds(c0, c1, n0, n1, delta, a, up):
    """ε lower bounds of events in one direction: log((P̲₁ − δ)/P̄₀) if ``up``, else with
    the inputs swapped; each Clopper–Pearson limit at level ``a``."""
    if not up:
        c0, c1, n0, n1 = c1, c0, n1, n0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.maximum(_cp_lower(c1, n1, a) - delta, 0.0)) - np.log(_cp_upper(c0, n0, a))
    return np.nan_to_num(out, nan=-np.inf)


def epsilon_lower_bound(cells0, cells1, n_cells, delta=0.0, beta=BETA, labels=None):
    """Empirical lower bound on ε from draws on an ordered line of cells.

    The draws of each input are split in halves; the event (a threshold set
    {cell ≥ t} or {cell ≤ t}) **and the direction** (which input is the
    numerator) with the best bound on the first halves are bounded on the
    second halves by two Clopper–Pearson limits, each at confidence 1 − β/2:
    the bound holds with probability ≥ 1 − β (evaluating both directions on
    the second halves, and keeping the larger, would only hold with 1 − 2β).

    Parameters
    ----------
    cells0, cells1 : int64 (N,)
        Cell indices in [0, n_cells) of the draws under the two inputs.
    delta : float
        δ of an (ε, δ) claim (subtracted from the larger probability).

    Returns
    -------
    (epsilon_lb, estimate, event, counts)
        ``epsilon_lb`` is at least 0: ε is never negative, so a smaller bound says nothing
        and is reported as 0.
    """
    h0, h1 = len(cells0) // 2, len(cells1) // 2
    sel0 = np.bincount(cells0[:h0], minlength=n_cells)
    sel1 = np.bincount(cells1[:h1], minlength=n_cells)
    ev0 = np.bincount(cells0[h0:], minlength=n_cells)
    ev1 = np.bincount(cells1[h1:], minlength=n_cells)
    m0, m1 = len(cells0) - h0, len(cells1) - h1
    a = beta / 2
    # events {cell ≥ t} (suffix sums) and {cell ≤ t} (prefix sums)
    cand = []
    for name, f in (("≥", lambda h: np.cumsum(h[::-1])[::-1]), ("≤", np.cumsum)):
        s0, s1 = f(sel0), f(sel1)
        cand.append((name, s0, s1, f(ev0), f(ev1)))
    best, pick = -np.inf, None
    for name, s0, s1, e0, e1 in cand:
        for up in (True, False):  # the direction is chosen here, on the selection half
            score = _directed_bounds(s0, s1, h0, h1, delta, a, up)
            j = int(np.argmax(score))
            if score[j] > best:
                best, pick = score[j], (name, j, e0[j], e1[j], up)
    if pick is None:  # every selection bound is −∞: any event will do
        pick = ("≥", 0, m0, m1, True)
    name, j, k0, k1, up = pick
    lb = float(_directed_bounds(np.array([k0]), np.array([k1]), m0, m1, delta, a, up)[0])
    with np.errstate(divide="ignore"):
        est = abs(math.log(max(k1, 0.5) / m1) - math.log(max(k0, 0.5) / m0))
    t = labels[j] if labels is not None else j
    return max(lb, 0.0), est, f"y {name} {t}", (int(k0), int(k1))


__all__ = ["ALPHA", "BETA", "MIN_EXPECTED", "epsilon_lower_bound", "g_test"]
