"""Audits of the data-dependent release family (randomized response and the like).

A release mechanism declares a Numba ``release(rng, n, k, fpar)`` that draws
the analyzer's estimate of a batch sum from the true count k of ones among n
binary rewards, and its exact law ``release_law(n, k, fpar) -> (values,
probs)``. Neighbouring batches differ in one user's bit: counts k and k + 1.

- The **exact audit** computes, from the declared law, ε = max over
  k ∈ [0, n − 1] and outputs y of |log P(y | k) − log P(y | k + 1)| and
  compares it with the claim. It certifies the law, not the sampler.
- The **sampled audit** runs the release hook itself — through
  :func:`bandsim.kernels.protocols.sample_releases`, the dispatch the engines
  use — on counts k₀ and k₀ + 1 (k₀ = the pair where the exact law is most
  revealing) and tests the draws against the declared law (a sampler that
  flips with the wrong probability FAILs even when its law's audit passes).

References
----------
Warner, "Randomized response" (JASA 1965); Kasiviswanathan, Lee, Nissim,
Raskhodnikova & Smith, "What can we learn privately?" (SIAM J. Comput. 2011).
"""
import math
import time

import numpy as np

from ..engines import protocol_kernel
from ..registry import get_mechanism
from .report import AuditReport, Row

#: Relative error to which the exact audit trusts the probabilities of a declared law.
LAW_REL_ERR = 1e-10
#: Relative tolerance when a drawn value is matched to a support point of the law.
MATCH_TOL = 1e-9


def law_of(spec, b, k):
    """The declared law of ``b``'s release at count ``k``: (values float64 (V,), probs (V,)).

    Raises
    ------
    ValueError
        If the law is not a pmf (negative, not summing to 1 within 1e-9,
        unsorted or mismatched values).
    """
    values, probs = spec.release_law(int(b.n), int(k), np.asarray(b.fpar, np.float64))
    values = np.asarray(values, np.float64)
    probs = np.asarray(probs, np.float64)
    if values.shape != probs.shape or values.ndim != 1 or not len(values):
        raise ValueError(f"release_law of {spec.name}: values and probs must be 1-d, same length")
    if (probs < 0).any() or abs(probs.sum() - 1.0) > 1e-9:
        raise ValueError(f"release_law of {spec.name}: probs must be ≥ 0 and sum to 1")
    if (np.diff(values) <= 0).any():
        raise ValueError(f"release_law of {spec.name}: values must be strictly increasing")
    return values, probs


def _max_log_ratio(spec, b, k):
    """max_y |log P(y|k) − log P(y|k+1)| on the union of both supports (inf if one is 0)."""
    v0, p0 = law_of(spec, b, k)
    v1, p1 = law_of(spec, b, k + 1)
    support = np.union1d(v0, v1)
    q0, q1 = np.zeros(len(support)), np.zeros(len(support))
    q0[np.searchsorted(support, v0)] = p0
    q1[np.searchsorted(support, v1)] = p1
    keep = (q0 > 0) | (q1 > 0)
    q0, q1 = q0[keep], q1[keep]
    if ((q0 == 0) != (q1 == 0)).any():
        return math.inf
    with np.errstate(divide="ignore"):
        return float(np.abs(np.log(q0[q0 > 0]) - np.log(q1[q1 > 0])).max())


def worst_pair(spec, b):
    """(k, ε_k): the neighbouring counts (k, k + 1) where the declared law reveals most."""
    eps = [_max_log_ratio(spec, b, k) for k in range(int(b.n))]
    e = max(eps)
    if math.isinf(e):  # (inf − inf is nan: no k would match)
        return eps.index(e), e
    return next(k for k, x in enumerate(eps) if x >= e - 1e-9 * max(1.0, e)), e


def audit_release(b, algorithm, fold_max=None):
    """The exact audit of one batch of a release mechanism (from its declared law).

    Parameters
    ----------
    b : batch object
        The mechanism's derived batch (``name``, ``n``, ``fpar``,
        ``privacy["epsilon"]``).
    algorithm : str
    fold_max : ignored
        (the signature of every exact audit).

    Returns
    -------
    AuditReport
        One row: the exact ε (max log-ratio over k and y) against the claim.
    """

    t0 = time.perf_counter()
    spec = get_mechanism(b.name)
    k, exact = worst_pair(spec, b)
    claimed = float(b.privacy["epsilon"])
    # |Δ log| ≤ 2 r for probabilities of relative error r: the declared law is trusted to
    # LAW_REL_ERR (a pmf from scipy's binomial, a convolution of ≤ n + 1 terms)
    err = 2 * (LAW_REL_ERR + 4 * (int(b.n) + 2) * np.finfo(float).eps)
    rows = [Row(quantity="ε (max log-ratio over counts k, k + 1)", claimed=claimed, exact=exact,
                error=err, short="ε")]
    view = (f"view: the release of a batch of n = {b.n} binary rewards with k vs k + 1 ones "
            f"(one user's bit changed); worst pair k = {k}; from the declared release_law "
            "(the sampled audit checks the sampler draws it)")
    return AuditReport(algorithm=algorithm, guarantee=b.privacy.get("guarantee", "ε-DP"),
                       view=view, params=dict(n=int(b.n), epsilon=claimed,
                                              fpar=[float(x) for x in b.fpar]),
                       rows=rows, headline=0, notes=[], seconds=time.perf_counter() - t0)


def audit_points(b, fold_max=None):
    """Points :func:`audit_release` evaluates: n + 1 laws of up to n + 1 points."""
    return (int(b.n) + 1) ** 2


def to_cells(values, draws):
    """Indices of ``draws`` among the support ``values`` (V when a draw matches none)."""
    draws = np.asarray(draws, np.float64)
    j = np.clip(np.searchsorted(values, draws), 0, len(values) - 1)
    jl = np.clip(j - 1, 0, len(values) - 1)
    pick = np.where(np.abs(values[jl] - draws) < np.abs(values[j] - draws), jl, j)
    scale = max(1.0, float(np.abs(values).max()))
    ok = np.abs(values[pick] - draws) <= MATCH_TOL * scale
    return np.where(ok, pick, len(values))


def release_pairs(spec, b, draws, rng, notes, pair_cls):
    """The sampled audit's path for a release mechanism: its own hook on k₀ and k₀ + 1."""

    k0, _ = worst_pair(spec, b)
    laws = [law_of(spec, b, k) for k in (k0, k0 + 1)]
    values = np.union1d(laws[0][0], laws[1][0])
    probs = []
    for v, p in laws:
        q = np.zeros(len(values) + 1)  # the last cell: a draw outside the declared support
        q[np.searchsorted(values, v)] = p
        probs.append(q)
    fpar = np.zeros(max(4, len(b.fpar)))
    fpar[:len(b.fpar)] = b.fpar
    sample = protocol_kernel(spec.name, "sample_releases")
    cells = [to_cells(values, sample(rng, b.code, int(b.n), k, fpar, np.zeros(3, np.int64),
                                     draws)) for k in (k0, k0 + 1)]
    out = sum(int((c == len(values)).sum()) for c in cells)
    if out:
        notes.append(f"{out:,} draws outside the declared support (a FAIL by themselves)")
    labels = np.append(values, np.inf)
    return [pair_cls("release", tuple(cells), tuple(probs), len(values) + 1, labels,
                     (f"k = {k0}", f"k = {k0 + 1}"))]


__all__ = ["audit_points", "audit_release", "law_of", "release_pairs", "to_cells", "worst_pair"]
