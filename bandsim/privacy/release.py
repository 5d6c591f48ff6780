"""Audits of the data-dependent release family (randomized response and the like).

A release mechanism declares a Numba ``release(rng, n, k, fpar)`` that draws
the analyzer's estimate of a batch sum from the true count k of ones among n
binary rewards, and its exact law: ``release_logpmf(n, k, fpar) -> (values,
log-probabilities)`` or ``release_law(n, k, fpar) -> (values, probs)``.
Neighbouring batches differ in one user's bit: counts k and k + 1.

- The **exact audit** computes, from the declared law and in log space
  throughout, ε = max over k ∈ [0, n − 1] and outputs y of
  |log P(y | k) − log P(y | k + 1)| and compares it with the claim. It
  certifies the law, not the sampler. Finite log-probabilities always give
  a finite ratio: ε = inf means the law itself gives a value probability 0
  at one count and not at its neighbour. A law declared as probabilities
  whose tails underflow (randomized response at n ≳ 550: P = p^n) is
  audited on the outputs where its probabilities are normal floats, and the
  result is a lower bound (INCONCLUSIVE unless it already exceeds the claim).
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

from typing import Any

import numpy as np

from ..engines import protocol_kernel
from ..registry import get_mechanism
from .pmf import MAX_POINTS, PmfTooLarge
from .report import AuditReport, Row

#: Absolute error to which the exact audit trusts the log-probabilities of a declared law
#: (relative error of its probabilities).
LAW_REL_ERR = 1e-10
#: Relative tolerance when a drawn value is matched to a support point of the law.
MATCH_TOL = 1e-9
#: A law declared as plain probabilities (``release_law``) is trusted only where they are
#: normal floats: a subnormal probability has lost relative precision, and a 0 facing a
#: neighbour's probability below e^LOG_UNDERFLOW may be an underflow, not an impossibility.
LOG_TINY = math.log(np.finfo(np.float64).tiny)
LOG_UNDERFLOW = math.log(1e-280)


def log_law_of(spec, b, k):
    """The declared law of ``b``'s release at count ``k``, in log space.

    From ``release_logpmf`` when the mechanism declares it, else the log of
    ``release_law``'s probabilities.

    Returns
    -------
    values : float64 (V,)
        Strictly increasing.
    logp : float64 (V,)
        Natural-log probabilities (−inf: never released).
    from_probs : bool
        The law was declared as probabilities (its tails may have underflowed).

    Raises
    ------
    ValueError
        If the law is not a pmf (a NaN or positive log-probability, negative
        probabilities, not summing to 1 within 1e-9, unsorted or mismatched
        values).
    """
    n, fpar = int(b.n), np.asarray(b.fpar, np.float64)
    logged = getattr(spec, "release_logpmf", None) is not None
    name = "release_logpmf" if logged else "release_law"
    values, w = (spec.release_logpmf if logged else spec.release_law)(n, int(k), fpar)
    values, w = np.asarray(values, np.float64), np.asarray(w, np.float64)
    if values.shape != w.shape or values.ndim != 1 or not len(values):
        raise ValueError(f"{name} of {spec.name}: values and probabilities must be 1-d, "
                         "same length")
    if logged:
        if np.isnan(w).any() or (w > 1e-9).any():
            raise ValueError(f"{name} of {spec.name}: log-probabilities must be ≤ 0 (−inf "
                             "for impossible values), not NaN")
        logp = w
        total = _special().logsumexp(logp) if np.isfinite(logp).any() else -np.inf
        bad = not abs(total) <= 1e-9
    else:
        if (w < 0).any() or np.isnan(w).any():
            raise ValueError(f"{name} of {spec.name}: probs must be ≥ 0 and sum to 1")
        with np.errstate(divide="ignore"):
            logp = np.log(w)
        bad = abs(w.sum() - 1.0) > 1e-9
    if bad:
        raise ValueError(f"{name} of {spec.name}: the probabilities must sum to 1 "
                         + ("(log-sum-exp of the log-probabilities 0)" if logged else ""))
    if (np.diff(values) <= 0).any():
        raise ValueError(f"{name} of {spec.name}: values must be strictly increasing")
    return values, logp, not logged


def _special():
    from scipy import special  # loaded at the first law audited

    return special


def law_of(spec, b, k):
    """The declared law of ``b``'s release at count ``k``: (values float64 (V,), probs (V,)).

    The probabilities are ``exp`` of :func:`log_law_of`'s (for the sampled
    audit's expected counts, where tails below 10⁻³⁰⁸ weigh nothing).

    Raises
    ------
    ValueError
        As :func:`log_law_of`.
    """
    values, logp, _ = log_law_of(spec, b, k)
    return values, np.exp(logp)


def pair_log_ratio(law0, law1):
    """max_y |log P(y|k) − log P(y|k+1)| of two laws of :func:`log_law_of`, in log space.

    Parameters
    ----------
    law0, law1 : tuple
        ``(values, logp, from_probs)`` at counts k and k + 1.

    Returns
    -------
    eps : float
        inf only when one law gives a value probability exactly 0 (−inf) that
        the other gives a finite log-probability: finite log-probabilities
        always give a finite ratio.
    lower_bound : bool
        Some outputs were left out because a law declared as probabilities
        underflowed there (a 0 facing a neighbour's probability below
        e^:data:`LOG_UNDERFLOW`, or a subnormal): ``eps`` is then only a lower bound.
    """
    (v0, a0, f0), (v1, a1, f1) = law0, law1
    support = np.union1d(v0, v1)
    q0, q1 = np.full(len(support), -np.inf), np.full(len(support), -np.inf)
    q0[np.searchsorted(support, v0)] = a0
    q1[np.searchsorted(support, v1)] = a1
    live = (q0 > -np.inf) | (q1 > -np.inf)
    q0, q1 = q0[live], q1[live]
    unsure = np.zeros(len(q0), bool)
    if f0 or f1:  # probabilities: subnormals, and zeros that may be underflows
        lo = np.minimum(q0, q1)
        hi = np.maximum(q0, q1)
        unsure = ((lo > -np.inf) & (lo < LOG_TINY)) | ((lo == -np.inf) & (hi < LOG_UNDERFLOW))
    keep = ~unsure
    if (keep & ((q0 == -np.inf) != (q1 == -np.inf))).any():
        return math.inf, bool(unsure.any())
    both = keep & (q0 > -np.inf)
    eps = float(np.abs(q0[both] - q1[both]).max()) if both.any() else 0.0
    return eps, bool(unsure.any())


def _max_log_ratio(spec, b, k):
    """max_y |log P(y|k) − log P(y|k+1)| (see :func:`pair_log_ratio`; its ε only)."""
    return pair_log_ratio(log_law_of(spec, b, k), log_law_of(spec, b, k + 1))[0]


def worst_pair(spec, b, with_bound=False):
    """(k, ε_k): the neighbouring counts (k, k + 1) where the declared law reveals most.

    Each of the n + 1 laws is evaluated once. With ``with_bound``, also
    whether ε is only a lower bound (:func:`pair_log_ratio`).
    """
    eps, lower = [], False
    prev = log_law_of(spec, b, 0)
    for k in range(int(b.n)):
        cur = log_law_of(spec, b, k + 1)
        e, lb = pair_log_ratio(prev, cur)
        eps.append(e)
        lower |= lb
        prev = cur
    e = max(eps)
    if math.isinf(e):  # (inf − inf is nan: no k would match)
        k = eps.index(e)
    else:
        k = next(k for k, x in enumerate(eps) if x >= e - 1e-9 * max(1.0, e))
    return (k, e, lower) if with_bound else (k, e)


def audit_release(b: Any, algorithm: str, fold_max: int | None = None) -> Any:
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

    Raises
    ------
    PmfTooLarge
        The audit would evaluate more than :data:`bandsim.privacy.pmf.MAX_POINTS`
        points ((n + 1)², n ≳ 5,800): refused before any law is evaluated.
    """
    if audit_points(b) > MAX_POINTS:
        raise PmfTooLarge(f"the n + 1 laws of n + 1 points each are {audit_points(b):,} "
                          f"points > {MAX_POINTS:,}")

    t0 = time.perf_counter()
    spec = get_mechanism(b.name)
    k, exact, lower = worst_pair(spec, b, with_bound=True)
    claimed = float(b.privacy["epsilon"])
    # |Δ log| ≤ 2 r for probabilities of relative error r: the declared law is trusted to
    # LAW_REL_ERR (a pmf from scipy's binomial, a convolution of ≤ n + 1 terms)
    err = 2 * (LAW_REL_ERR + 4 * (int(b.n) + 2) * np.finfo(float).eps)
    rows = [Row(quantity="ε (max log-ratio over counts k, k + 1)", claimed=claimed, exact=exact,
                error=err, short="ε", lower_bound=lower)]
    law = "release_logpmf" if getattr(spec, "release_logpmf", None) is not None else \
        "release_law"
    view = (f"view: the release of a batch of n = {b.n} binary rewards with k vs k + 1 ones "
            f"(one user's bit changed); worst pair k = {k}; from the declared {law}, in log "
            "space (the sampled audit checks the sampler draws it)")
    notes = [f"release_law's probabilities underflow (0 or subnormal) at some outputs of "
             f"n = {b.n}: ε over the others is only a lower bound; declare release_logpmf "
             "(log-probabilities) for an exact audit"] if lower else []
    return AuditReport(algorithm=algorithm, guarantee=b.privacy.get("guarantee", "ε-DP"),
                       view=view, params=dict(n=int(b.n), epsilon=claimed,
                                              fpar=[float(x) for x in b.fpar]),
                       rows=rows, headline=0, notes=notes, seconds=time.perf_counter() - t0)


def audit_points(b: Any, fold_max: int | None = None) -> int:
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


__all__ = ["audit_points", "audit_release", "law_of", "log_law_of", "pair_log_ratio",
           "release_pairs", "to_cells", "worst_pair"]
