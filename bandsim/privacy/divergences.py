"""Divergences between two log-pmfs on a common support (the audits' yardsticks).

- :func:`max_log_ratio` — sup log P/Q, the exact pure-DP ε of a pair;
- :func:`renyi` — D_α(P‖Q) in log space (α up to 64 and beyond);
- :func:`hockey_stick` — δ(ε) = Σ max(0, P − e^ε Q), summed in log space.

Every one works on log-probabilities throughout: a ratio of two finite
log-probabilities is finite however far both lie below the smallest float.

Supports are aligned by :func:`_aligned` (ℤ_m; the union of complete windows;
the intersection when a window is a truncation). Entries a truncated pmf
does not know (``LogPmf.log_missing``) enter at their upper bound, so the
results are then lower bounds.

References
----------
Mironov 2017 (Rényi DP); Balle et al. 2018 (hockey-stick divergence);
Chowdhury & Zhou (2023), Definitions 3 and 10.
"""
import math

import numpy as np

def _aligned(p, q):
    """(log P, log Q) on a common support; unknown Q entries at their upper bound."""
    a, b = _aligned_raw(p, q)
    if q.log_missing > -np.inf:
        b = np.where(b == -np.inf, q.log_missing, b)
    return a, b


def _aligned_raw(p, q):
    """Common support: ℤ_m; the union of two complete windows (outside = probability 0);
    the intersection when either window is a truncation (``dropped > 0``: outside unknown)."""
    if p.modulus is not None or q.modulus is not None:
        if p.modulus != q.modulus:
            raise ValueError("pmfs on different moduli")
        return p.logp, q.logp
    if p.truncated or q.truncated or p.dropped > 0 or q.dropped > 0:
        lo, hi = max(p.lo, q.lo), min(p.hi, q.hi)
        if hi < lo:
            raise ValueError("truncated windows do not overlap")
        return (p.logp[lo - p.lo:hi - p.lo + 1], q.logp[lo - q.lo:hi - q.lo + 1])
    lo, hi = min(p.lo, q.lo), max(p.hi, q.hi)
    a = np.full(hi - lo + 1, -np.inf)
    b = np.full(hi - lo + 1, -np.inf)
    a[p.lo - lo:p.lo - lo + len(p.logp)] = p.logp
    b[q.lo - lo:q.lo - lo + len(q.logp)] = q.logp
    return a, b


def max_log_ratio(p, q):
    """sup_y log P(y)/Q(y) over the support of P (inf if Q(y) = 0 < P(y)).

    The exact pure-DP ε of the pair (P, Q) in this direction (a lower
    bound if either pmf is not exact, see :attr:`LogPmf.log_missing`).
    """
    a, b = _aligned(p, q)
    live = a > -np.inf
    if np.any(live & (b == -np.inf)):
        return math.inf
    return float(np.max(a[live] - b[live]))


def renyi(p, q, alphas):
    """Rényi divergences D_α(P‖Q) = log Σ P^α Q^{1−α} / (α − 1), float64 (len(alphas),).

    Computed as log Σ P e^{(α−1) log(P/Q)} in log space (no overflow at
    α = 64 and divergences in the thousands). Lower bounds if either pmf is
    not exact.
    """
    a, b = _aligned(p, q)
    live = a > -np.inf
    if np.any(live & (b == -np.inf)):
        return np.full(len(alphas), math.inf)
    a, r = a[live], a[live] - b[live]
    from scipy import special  # scipy.special loads only when a divergence is computed

    return np.array([special.logsumexp(a + (al - 1.0) * r) / (al - 1.0) for al in alphas])


def hockey_stick(p, q, epsilon):
    """δ(ε) = Σ_y max(0, P(y) − e^ε Q(y)) = sup_F P(F) − e^ε Q(F), for each ε.

    Parameters
    ----------
    p, q : LogPmf
    epsilon : float or array_like
        ε ≥ 0.

    Returns
    -------
    float64 (len(epsilon),) or float
    """
    a, b = _aligned(p, q)
    live = a > -np.inf
    a, r = a[live], a[live] - b[live]
    eps = np.atleast_1d(np.asarray(epsilon, np.float64))
    out = np.zeros(len(eps))
    from scipy import special  # scipy.special loads only when a divergence is computed

    for i, e in enumerate(eps):  # in log space: log δ = logsumexp(log P + log(1 − e^{ε − r}))
        sel = r > e
        if sel.any():
            out[i] = float(np.exp(special.logsumexp(a[sel] + np.log(-np.expm1(e - r[sel])))))
    return out if np.ndim(epsilon) else float(out[0])



__all__ = ["hockey_stick", "max_log_ratio", "renyi"]
