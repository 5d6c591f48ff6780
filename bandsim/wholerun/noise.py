"""Do the recorded Laplace releases carry the noise their recorded scale says?

The whole-run checks (:mod:`bandsim.wholerun.checks`) read the scale each
release *records*; an engine that draws its noise with one scale and records
another (``laplace_draw(rng, b / L)`` next to ``release(..., b, ...)``) would
pass them. The noise itself is in the record: for every Laplace release,
z = (value − true)/scale must be a draw of the standard Laplace law Lap(0, 1),
independently across releases. :func:`laplace_noise` tests all of them at
once, three ways, each at level α/3 (exact p-values, no approximation):

* **scale**: |z| ~ Exp(1), so Σ|z| over n releases is exactly Gamma(n, 1);
  the two-sided p-value of the observed sum. A scale off by a factor
  1 ± f moves the mean |z| by f with standard error 1/√n: 10 % is resolved
  from about 3 000 releases (DP-TS records one per round);
* **too little noise on some releases**: u = 1 − e^(−|z|) is uniform, so
  −2 Σ ln u is exactly χ²(2n) (Fisher's method); its upper tail sees noise
  that collapses on part of the run — a scale divided by an episode length
  is caught from the ~30 episodes of a run of 3 000 pulls, where the sum of
  |z| is dominated by the short episodes and the scale test is blind;
* **shape**: the two-sided Kolmogorov–Smirnov test of z against Lap(0, 1)
  (``scipy.stats.kstest``), for noise of another law.

What it cannot see: a scale error on too few releases (a run's first
episodes only), and anything that does not change the law of z.
"""
import numpy as np

from ..kernels import codes
from ..kernels import record as R

#: Significance of the test: a false FAIL once in a million honest runs.
ALPHA = 1e-6
#: Fewest releases the test is run on (below it, no verdict).
MIN_RELEASES = 20


def laplace_noise(run, alpha=ALPHA):
    """Failure lines (empty: passed) of the test that the noise of ``run``'s Laplace
    releases, divided by its recorded scale, is Lap(0, 1).

    Parameters
    ----------
    run : bandsim.wholerun.driver.Run
        A recorded run (``RECORD`` mode: its values are the fresh noisy ones).
    alpha : float
        Significance level of the Kolmogorov–Smirnov test (default 10⁻⁶).

    Returns
    -------
    list of str
        One line, naming the check, the releases and the statistic, when the
        test rejects; none when it accepts or fewer than :data:`MIN_RELEASES`
        releases have a positive scale (a zero scale is check (c)'s business).

    References
    ----------
    Massey, "The Kolmogorov–Smirnov test for goodness of fit", JASA 46 (1951);
    Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in
    Practice: Grey-Box Auditing of Differential Privacy Libraries" (PETS 2026).
    """
    law = run.rel[:, R.REL_LAW]
    scale = run.val[:, R.VAL_SCALE]
    mask = (law == codes.LAW_LAPLACE) & (scale > 0)
    if mask.sum() < MIN_RELEASES:
        return []
    n = int(mask.sum())
    z = (run.val[mask, R.VAL_VALUE] - run.val[mask, R.VAL_TRUE]) / scale[mask]
    p_scale, p_small, ks = laplace_pvalues(z)
    total = float(np.sum(np.abs(z)))
    if min(p_scale, p_small, ks.pvalue) >= alpha / 3:
        return []
    first = int(np.flatnonzero(mask)[0])
    return [f"(e) noise: the {n} Laplace releases from release #{first} on carry noise / "
            f"recorded scale that is not Lap(0, 1): mean |z| = {total / n:.4g} (1 expected, "
            f"p = {p_scale:.3g}), too little noise on some (Fisher p = {p_small:.3g}), "
            f"Kolmogorov–Smirnov D = {ks.statistic:.4g} (p = {ks.pvalue:.3g}); level "
            f"{alpha:g}: the engine draws another scale than it records"]


def laplace_pvalues(z):
    """The three exact tests of z ~ Lap(0, 1) iid (module docstring).

    Parameters
    ----------
    z : float64 (n,)
        Noise divided by its scale, n ≥ 1.

    Returns
    -------
    p_scale : float
        Two-sided p-value of Σ|z| against Gamma(n, 1).
    p_small : float
        Fisher's χ²(2n) upper tail of −2 Σ log(1 − e^(−|z|)) (too little noise on some).
    ks : scipy.stats KstestResult
        Kolmogorov–Smirnov test of z against Lap(0, 1).
    """
    from scipy import stats

    n = len(z)
    a = np.abs(z)
    total = float(np.sum(a))
    p_scale = min(1.0, 2 * min(stats.gamma.cdf(total, n), stats.gamma.sf(total, n)))
    fisher = float(-2.0 * np.sum(np.log(-np.expm1(-np.maximum(a, 1e-300)))))
    return p_scale, float(stats.chi2.sf(fisher, 2 * n)), stats.kstest(z, stats.laplace.cdf)


__all__ = ["ALPHA", "MIN_RELEASES", "laplace_noise", "laplace_pvalues"]
