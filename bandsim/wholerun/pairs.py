"""Are the noises of different releases independent? Check (h) of the whole-run audit.

Each release's noise has its declared law given its true statistic
(check (g), :mod:`bandsim.wholerun.laws`); a privacy proof also needs the
noises of different releases to be *independent*: one Laplace draw shared by
every arm of a stage leaves each release Lap(b) on its own and their
difference noise-free (ε = ∞). Check (g) hands over, per release, the
probability-integral transform u of its noise under the declared law
(randomized for discrete laws): under the hypothesis, the u of all releases
are iid Uniform(0, 1). The pairs the declared structure names are formed in
every recorded run and pooled over runs, one **pair class** per (kind, law):

* *across arms*: releases of different arms at one time (a stage, a step)
  of one run, consecutive in arm order;
* *across arms, one tag*: the k-th release of one tag of each arm of a run,
  consecutive in arm order, where they fall at different times (each arm's
  first release; the r-th chunk of each arm in an epoch-structured engine),
  one pair class per tag (tested; the stated power covers the other kinds);
* *consecutive*: one arm's consecutive releases of one law (arm −1: the
  SVT's thresholds, one per instance, and its queries);
* *same tag*: one arm's consecutive releases of one law and tag (the nodes
  of one tree level, the chunks of one epoch), when tags vary;
* *threshold–query*: an SVT instance's threshold and its first query;

(a plug-in mechanism's batches are ``batch`` releases: one batch against
the next is the *consecutive* class). Each pair class is tested two ways:
Spearman's rank correlation (``scipy.stats.spearmanr``) and the G-test of
independence of the 4 × 4 contingency table of the quartiles of u
(``scipy.stats.chi2_contingency``, log-likelihood), a joint-law test that
sees dependence a correlation misses. Chained pairs (r₀, r₁), (r₁, r₂) of an
iid sequence keep both null laws asymptotically (Anderson & Goodman 1957).
Power: |ρ| ≥ tanh((z_{1−a/2} + z_{0.99})/√(n − 3)) is detected with
probability 0.99 from n pairs at level a (Fisher's z).

References
----------
Anderson & Goodman, "Statistical inference about Markov chains" (Ann. Math.
Statist. 1957); Fisher, "On the probable error of a coefficient of
correlation" (Metron 1921); Cebere et al., "Privacy in Theory, Bugs in
Practice" (PETS 2026).
"""
import math

import numpy as np

from ..kernels import codes
from ..kernels import record as R
from .laws import LAW_NAMES, rho_power

#: Fewest pairs a pair class is tested on.
MIN_PAIRS = 50
#: Pair kinds named by the failure lines (and :func:`bandsim.wholerun.laws.many_run`).
CONSECUTIVE = "consecutive releases of one arm"
THRESHOLDS = "the thresholds of consecutive SVT instances of a run"
#: Pair kind of the k-th releases of one tag across arms: one pair class per (law, tag), so
#: that a thin tag (each arm's first release) is not pooled away among the tree levels; its
#: classes are tested but not counted in the stated power (thin by design).
BY_TAG = "across arms, the k-th release of one tag"
#: Bins per axis of the contingency table (quartiles of u).
BINS = 4


def _chained(keys, order):
    """Index pairs (i, j) of consecutive releases in ``order`` with equal ``keys`` rows."""
    k = keys[order]
    same = np.all(k[1:] == k[:-1], axis=1)
    return order[:-1][same], order[1:][same]


def pair_classes(rel, u):
    """The pair classes of a recorded sample (module docstring).

    Parameters
    ----------
    rel : int64 (N, 9)
        Releases (:class:`bandsim.wholerun.laws.Sample`).
    u : float64 (N,)
        PIT of each release's noise (nan: no law, not paired).

    Returns
    -------
    list of (str, int64 (P,), int64 (P,))
        Label and the two releases of every pair.
    """
    ok = np.flatnonzero(np.isfinite(u))
    if ok.size < 2:
        return []
    run, t, arm = rel[ok, R.REL_RUN], rel[ok, R.REL_T], rel[ok, R.REL_ARM]
    law, tag = rel[ok, R.REL_LAW], rel[ok, R.REL_TAG]
    out = []

    def add(name, i, j, by_tag=False):
        for lw in np.unique(law[i]):
            for g in (np.unique(tag[i]) if by_tag else [None]):
                m = (law[i] == lw) & ((tag[i] == g) if by_tag else True)
                if m.any():
                    what = (THRESHOLDS if lw == codes.LAW_SVT_THRESHOLD and name == CONSECUTIVE
                            else f"{name} ({LAW_NAMES.get(int(lw), '?')}"
                            + (f", tag {int(g)})" if by_tag else ")"))
                    out.append((what, ok[i[m]], ok[j[m]]))

    # across arms at one time
    sel = np.flatnonzero(arm >= 0)
    order = sel[np.lexsort((arm[sel], tag[sel], law[sel], t[sel], run[sel]))]
    i, j = _chained(np.column_stack([run, t, law, tag]), order)
    add("across arms at one time", i, j[:len(i)])
    # across arms, one tag: the k-th release of tag g of each arm, where they fall at
    # different times (each arm's first release, one epoch's chunks: shared noise there
    # leaves every release of its law)
    o = sel[np.lexsort((t[sel], tag[sel], law[sel], arm[sel], run[sel]))]
    key = np.column_stack([run[o], arm[o], law[o], tag[o]])
    first = np.r_[True, np.any(key[1:] != key[:-1], axis=1)]
    kth = np.zeros(len(ok), np.int64)
    kth[o] = np.arange(len(o)) - np.maximum.accumulate(np.where(first, np.arange(len(o)), 0))
    order = sel[np.lexsort((arm[sel], kth[sel], tag[sel], law[sel], run[sel]))]
    i, j = _chained(np.column_stack([run, law, tag, kth]), order)
    apart = t[i] != t[j]
    add(BY_TAG, i[apart], j[apart], by_tag=True)
    # consecutive releases of one arm (arm −1: the SVT's thresholds, its queries)
    order = np.lexsort((np.arange(len(ok)), law, arm, run))
    i, j = _chained(np.column_stack([run, arm, law]), order)
    add(CONSECUTIVE, i, j)
    # same tag: the nodes of one tree level, the chunks of one epoch
    for lw in np.unique(law):
        m = (law == lw) & (arm >= 0)
        if len(np.unique(tag[m])) < 2:
            continue
        sel = np.flatnonzero(m)
        order = sel[np.lexsort((sel, tag[sel], arm[sel], run[sel]))]
        i, j = _chained(np.column_stack([run, arm, tag]), order)
        add("consecutive releases of one arm and tag", i, j)
    # an SVT instance's threshold and its first query
    thr = np.flatnonzero(law == codes.LAW_SVT_THRESHOLD)
    qry = np.flatnonzero(law == codes.LAW_SVT_QUERY)
    if thr.size and qry.size:
        key_q = run[qry] * (1 << 24) + tag[qry]
        first_k, first_at = np.unique(key_q, return_index=True)
        key_t = run[thr] * (1 << 24) + tag[thr]
        pos = np.clip(np.searchsorted(first_k, key_t), 0, len(first_k) - 1)
        hit = first_k[pos] == key_t
        out.append(("an SVT instance's threshold and its first query", ok[thr[hit]],
                    ok[qry[first_at[pos[hit]]]]))
    return [o for o in out if len(o[1])]


def independence(tests, sample, u):
    """Check (h): add the pair classes' tests to ``tests`` (a
    :class:`bandsim.wholerun.laws.Tests`, judged with check (g)'s).

    Parameters
    ----------
    tests : bandsim.wholerun.laws.Tests
    sample : bandsim.wholerun.laws.Sample
    u : float64 (N,)
        From :func:`bandsim.wholerun.laws.law_tests`.

    Returns
    -------
    list of str
        The labels of the pair classes formed.
    """
    from scipy import stats

    names = []
    for name, i, j in pair_classes(sample.rel, u):
        n = len(i)
        names.append(name)
        if n < MIN_PAIRS:
            tests.untested.append(f"{name}: {n} pairs")
            continue
        x, y = u[i], u[j]
        runs = len(np.unique(sample.rel[i, R.REL_RUN]))
        where = f"{n:,} pairs from {runs:,} runs, first releases #{int(i[0])}, #{int(j[0])}"
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            tests.hard.append(f"(h) independence: pair class {name} — {where}: every noise "
                              "is the same value")
            continue
        rho, p_rho = stats.spearmanr(x, y)
        tab = np.zeros((BINS, BINS))
        np.add.at(tab, (np.minimum((x * BINS).astype(int), BINS - 1),
                        np.minimum((y * BINS).astype(int), BINS - 1)), 1)
        tab = tab[tab.sum(1) > 0][:, tab.sum(0) > 0]
        if min(tab.shape) > 1:
            g, p_g, _, _ = stats.chi2_contingency(tab, lambda_="log-likelihood")
        else:
            g, p_g = math.inf, 0.0  # the quartiles of u never vary: one draw repeated

        def line(p, a, what, name=name, where=where):
            return (f"(h) independence: pair class {name} — {where}: {what} (p = {p:.3g} < "
                    f"{a:.3g}): the noises of different releases are not independent")
        tests.items += [(float(p_rho), lambda p, a, rho=rho, line=line: line(
                            p, a, f"Spearman ρ = {rho:.4g}")),
                        (float(p_g), lambda p, a, g=g, line=line: line(
                            p, a, f"joint law of the quartiles, G = {g:.4g}"))]
        if not name.startswith(BY_TAG):
            tests.pairs.append((name, n))
    return names


__all__ = ["BINS", "BY_TAG", "CONSECUTIVE", "MIN_PAIRS", "THRESHOLDS", "independence", "pair_classes", "rho_power"]
