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
  Its cost grows like n² (n + 1 laws of n + 1 points): refused above
  n ≈ 5,800 — unless the mechanism declares ``report_probs``: the release
  is then a function of the count of n independent binary reports, whose
  exact ε between neighbours has a closed form at every n
  (:func:`report_epsilon`), and the audit matches the declared law to it
  (every count at small n, counts 0 and 1 at the audited n up to
  :data:`SPOT_MAX` users) instead of evaluating n + 1 laws.
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

from types import SimpleNamespace

from ..engines import protocol_kernel
from ..errors import ConfigError, PluginError, call_plugin
from ..registry import get_mechanism, is_builtin
from .logconv import log_convolve
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


def log_tol(n):
    """Absolute error allowed in a declared law's log-probabilities at batch size n: 10⁻⁹
    plus 16 ulp of log n! ≈ n log n, the size of the log-gamma terms a binomial log-pmf
    cancels (scipy's is off by 1.5·10⁻⁹ at n = 2²⁰)."""
    return 1e-9 + 16 * np.finfo(float).eps * (n + 1) * math.log(n + 2)


#: Batch sizes at which a law declared with ``report_probs`` is matched to the count law of
#: its reports at every count k (release_logpmf is the plug-in's; these cost milliseconds).
MATCH_SIZES = (1, 2, 3, 8, 33)
#: Up to this many users the declared law is also matched at the audited n itself, at the
#: counts 0, 1, n − 1 and n (the pairs whose outputs 0 and n carry the closed form's two
#: ratios); above,
#: release_logpmf is not evaluated at that n (a plug-in's law of n + 1 points costs seconds
#: at n = 2²⁰ and gigabytes at 2²⁶), and the audit says so.
SPOT_MAX = 1 << 21


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
    PluginError
        The plug-in's law raised (one line naming it).
    ValueError
        If the law is not a pmf (a NaN or positive log-probability, negative
        probabilities, not summing to 1 within 1e-9, unsorted or mismatched
        values).
    """
    n, fpar = int(b.n), np.asarray(b.fpar, np.float64)
    logged = getattr(spec, "release_logpmf", None) is not None
    name = "release_logpmf" if logged else "release_law"
    values, w = call_plugin(f"plug-in mechanism {spec.name!r} {name}()",
                            spec.release_logpmf if logged else spec.release_law, n, int(k), fpar,
                            plugin=not is_builtin(spec.name, "mechanism"))
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
        bad = not abs(total) <= log_tol(n)
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


def worst_pair(spec, b, with_bound=False, closed_form=True):
    """(k, ε_k): the neighbouring counts (k, k + 1) where the declared law reveals most.

    Each of the n + 1 laws is evaluated once. With ``with_bound``, also
    whether ε is only a lower bound (:func:`pair_log_ratio`). With
    ``report_probs`` declared (and ``closed_form``), every k reveals the same ε
    (:func:`report_epsilon`): (0, that ε) without evaluating a law.
    """
    if closed_form and getattr(spec, "report_probs", None) is not None:
        e = report_epsilon(*report_probs_of(spec, b))
        return (0, e, False) if with_bound else (0, e)
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


def report_epsilon(q0: float, q1: float) -> float:
    """Exact ε of the count of n ≥ 1 independent binary reports, neighbouring inputs.

    A user reports 1 with probability ``q0`` when her bit is 0 and ``q1``
    when it is 1. Counts k and k + 1 of ones differ in one user, whose report
    is Bern(q1) instead of Bern(q0); with f the pmf of the other n − 1 users'
    count Y' and r = f(y − 1)/f(y) ∈ [0, ∞],

        P(y | k + 1) / P(y | k) = (q1 r + 1 − q1) / (q0 r + 1 − q0),

    a Möbius, hence monotone, function of r. Its values therefore lie between
    those at r = 0 and r = ∞, and both are attained: at y = min supp Y' (r = 0)
    and y = max supp Y' + 1 (r = ∞). So for every n ≥ 1 and every k ∈ [0, n − 1]
    the exact ε is max(|log(q1/q0)|, |log((1 − q1)/(1 − q0))|), the local ε of
    one report; an output neither count gives (0 against 0) is left out.

    Parameters
    ----------
    q0, q1 : float
        In [0, 1].

    Returns
    -------
    float
        inf when a report one count gives is impossible at its neighbour.

    References
    ----------
    Warner, "Randomized response" (JASA 1965); Kasiviswanathan et al., "What can
    we learn privately?" (SIAM J. Comput. 2011), Section 2 (local randomizers).
    """
    def gap(la, lb):  # |log a − log b| from logs; an output neither gives counts 0
        if la == -math.inf and lb == -math.inf:
            return 0.0
        return abs(la - lb) if la > -math.inf and lb > -math.inf else math.inf

    with np.errstate(divide="ignore"):
        return max(gap(float(np.log(q1)), float(np.log(q0))),
                   gap(float(np.log1p(-q1)), float(np.log1p(-q0))))


def report_probs_of(spec, b):
    """``spec.report_probs(b.fpar)`` as two floats in [0, 1].

    Raises
    ------
    ConfigError
        Not two numbers in [0, 1], or the plug-in's function raised
        (:class:`bandsim.errors.PluginError`).
    """
    got = call_plugin(f"plug-in mechanism {spec.name!r} report_probs()", spec.report_probs,
                      np.asarray(b.fpar, np.float64),
                      plugin=not is_builtin(spec.name, "mechanism"))
    try:
        q0, q1 = (float(x) for x in got)
    except (TypeError, ValueError):
        q0 = q1 = math.nan
    if not (0.0 <= q0 <= 1.0 and 0.0 <= q1 <= 1.0):
        raise ConfigError(f"mechanism {spec.name!r} report_probs", got,
                          "must return (q0, q1): the probabilities, in [0, 1], that a user "
                          "reports 1 when her bit is 0 and when it is 1")
    return q0, q1


def count_log_law(n, k, q0, q1):
    """log P(C = c), c = 0 … n, of the count C of n reports, k users with bit 1.

    C = Bin(k, q1) + Bin(n − k, q0), in log space (exact in every tail:
    scipy's binomial log-pmf and :func:`bandsim.privacy.logconv.log_convolve`;
    k ≤ 1 by one log-sum-exp, at any n).
    """
    from scipy import stats


    rest = stats.binom.logpmf(np.arange(n - k + 1), n - k, q0)
    if k == 0:
        return rest
    if k == 1:
        with np.errstate(divide="ignore"):
            one, zero = np.log(q1), np.log1p(-q1)
        out = np.full(n + 1, -np.inf)
        out[:-1] = zero + rest
        out[1:] = np.logaddexp(out[1:], one + rest)
        return out
    return log_convolve(stats.binom.logpmf(np.arange(k + 1), k, q1), rest)


class ReportMismatch(ConfigError):
    """A release law declared with ``report_probs`` is not the count law of those reports."""


def match_reports(spec, fpar, n, k, q0, q1):
    """Check that the declared law at (n, k) is the count law of ``report_probs``.

    The declared values must be n + 1 distinct outputs (an increasing function
    of the count) carrying the count law's
    log-probabilities to within :func:`log_tol` + 64 ulp of their size.

    Returns
    -------
    (values, logp, from_probs)
        The declared law (:func:`log_law_of`).

    Raises
    ------
    ReportMismatch
        It is not (naming the mechanism, n, k and the largest difference).
    """
    try:
        law = log_law_of(spec, SimpleNamespace(n=n, fpar=fpar), k)
    except PluginError:
        raise
    except ValueError as e:  # not a pmf at this n: not the reports' law either
        raise ReportMismatch(f"mechanism {spec.name!r} exact law", f"n={n}, k={k}",
                             f"is not the count law of its report_probs ({e})") from None
    want, got = count_log_law(n, k, q0, q1), law[1]
    if law[2] and len(got) == n + 1:  # probabilities: where they underflow, they say nothing
        unsure = (got < LOG_TINY) & (want < LOG_UNDERFLOW)
        got, want = got[~unsure], want[~unsure]
    why = (f"{len(law[1])} values, not the n + 1 = {n + 1} counts" if len(law[1]) != n + 1
           else None)
    if why is None:
        tol = log_tol(n) + 64 * np.finfo(float).eps * np.abs(np.where(want > -np.inf, want, 0))
        same = (got == want) | (np.abs(got - want) <= tol)  # (−inf == −inf)
        if not same.all():
            why = f"log-probabilities differ by up to {float(np.abs(got - want)[~same].max()):.3g}"
    if why:
        raise ReportMismatch(f"mechanism {spec.name!r} "
                             f"{'release_law' if law[2] else 'release_logpmf'}", f"n={n}, k={k}",
                             f"disagrees with its report_probs (q0, q1) = ({q0:.6g}, {q1:.6g}) "
                             f"({why})")
    return law


def _audit_reports(spec, b, algorithm):
    """:func:`audit_release` of a mechanism declaring ``report_probs`` (any n)."""
    t0 = time.perf_counter()
    n, fpar = int(b.n), np.asarray(b.fpar, np.float64)
    q0, q1 = report_probs_of(spec, b)
    for m in MATCH_SIZES:
        for k in range(m + 1):
            match_reports(spec, fpar, m, k, q0, q1)
    exact = report_epsilon(q0, q1)
    claimed = float(b.privacy["epsilon"])
    matched = f"every count at n = {', '.join(map(str, MATCH_SIZES))}"
    if n <= SPOT_MAX:
        laws = [match_reports(spec, fpar, n, k, q0, q1) for k in sorted({0, 1, n - 1, n})]
        declared = max(pair_log_ratio(*laws[:2])[0], pair_log_ratio(*laws[-2:])[0])
        matched += (f" and counts 0, 1, n − 1, n at n = {n:,} (where its ε is "
                    f"{declared:.12g})")
        notes = []
    else:
        notes = [f"release_logpmf not evaluated at n = {n:,} (> {SPOT_MAX:,} users): ε is "
                 f"report_probs' closed form; the declared law was matched to it at {matched}"]
    err = 2 * (LAW_REL_ERR + 8 * np.finfo(float).eps)
    rows = [Row(quantity="ε (max log-ratio over counts k, k + 1)", claimed=claimed, exact=exact,
                error=err, short="ε", lower_bound=False)]
    view = (f"view: the release of a batch of n = {n:,} binary rewards with k vs k + 1 ones "
            f"(one user's bit changed), a function of the count of n binary reports "
            f"(report_probs: q0 = {q0:.6g}, q1 = {q1:.6g}); ε in closed form, the same for "
            f"every k (privacy.release.report_epsilon); the declared law matched to the "
            f"reports' count law at {matched} (the sampled audit checks the sampler draws it)")
    return AuditReport(algorithm=algorithm, guarantee=b.privacy.get("guarantee", "ε-DP"),
                       view=view, params=dict(n=n, epsilon=claimed,
                                              fpar=[float(x) for x in b.fpar]),
                       rows=rows, headline=0, notes=notes, seconds=time.perf_counter() - t0)


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
        points ((n + 1)², n ≳ 5,800): refused before any law is evaluated;
        never for a mechanism declaring ``report_probs`` (closed form, any n).
    ConfigError
        Its ``report_probs`` is not two probabilities, or (above n ≈ 5,800,
        where the n + 1 laws cannot be audited instead) its declared law is not
        the count law of those reports (:func:`match_reports`).
    """
    spec, notes = get_mechanism(b.name), []
    if getattr(spec, "report_probs", None) is not None:
        try:
            return _audit_reports(spec, b, algorithm)
        except ReportMismatch as e:  # the declared law is not the reports': audit it itself
            if (int(b.n) + 1) ** 2 > MAX_POINTS:
                raise
            notes.append(f"{e}: audited from release_logpmf itself")
    if (int(b.n) + 1) ** 2 > MAX_POINTS:
        raise PmfTooLarge(f"the n + 1 laws of n + 1 points each are {(int(b.n) + 1) ** 2:,} "
                          f"points > {MAX_POINTS:,}")

    t0 = time.perf_counter()
    k, exact, lower = worst_pair(spec, b, with_bound=True, closed_form=False)
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
    notes += [f"release_law's probabilities underflow (0 or subnormal) at some outputs of "
              f"n = {b.n}: ε over the others is only a lower bound; declare release_logpmf "
              "(log-probabilities) for an exact audit"] if lower else []
    return AuditReport(algorithm=algorithm, guarantee=b.privacy.get("guarantee", "ε-DP"),
                       view=view, params=dict(n=int(b.n), epsilon=claimed,
                                              fpar=[float(x) for x in b.fpar]),
                       rows=rows, headline=0, notes=notes, seconds=time.perf_counter() - t0)


def audit_points(b: Any, fold_max: int | None = None) -> int:
    """Points :func:`audit_release` evaluates: n + 1 laws of up to n + 1 points; with
    ``report_probs``, the laws it matches (:data:`MATCH_SIZES`, and two of n + 1 points up
    to :data:`SPOT_MAX` users)."""
    n = int(b.n)
    if getattr(get_mechanism(b.name), "report_probs", None) is not None:
        return sum((m + 1) ** 2 for m in MATCH_SIZES) + (4 * (n + 1) if n <= SPOT_MAX else 0)
    return (n + 1) ** 2


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
    """The sampled audit's path for a release mechanism: its own hook on k₀ and k₀ + 1
    (the worst neighbouring counts: G-tests and the ε lower bound), then at every other
    count of :func:`sampled_counts` (G-test against the declared law at that k)."""

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
    out = [pair_cls("release", tuple(cells), tuple(probs), len(values) + 1, labels,
                    (f"k = {k0}", f"k = {k0 + 1}"))]
    more = [k for k in sampled_counts(int(b.n)) if k not in (k0, k0 + 1)]
    each = max(MIN_COUNT_DRAWS, draws // COUNT_DRAWS_DIVISOR)
    for k in more:  # the hook's law at every other count it can be called at
        v, p = law_of(spec, b, k)
        q = np.append(p, 0.0)
        c = to_cells(v, sample(rng, b.code, int(b.n), k, fpar, np.zeros(3, np.int64), each))
        pair = pair_cls(f"release at k = {k}", (c, c), (q, q), len(v) + 1, np.append(v, np.inf),
                        (f"k = {k}", f"k = {k}"))
        pair.gof_only = True
        out.append(pair)
    if more:
        notes.append(f"the release hook also sampled at {len(more)} other counts k "
                     f"({each:,} draws each): {_ranges(more)}")
    return out


#: Batch sizes up to which every count k = 0 … n is sampled; above, :data:`SPREAD` counts.
ALL_COUNTS, SPREAD = 32, 16
#: Draws at each further count: draws / divisor, at least the minimum.
COUNT_DRAWS_DIVISOR, MIN_COUNT_DRAWS = 8, 20_000


def sampled_counts(n):
    """The counts k a release hook is sampled at for a batch of n users (sorted list):
    every k ≤ n for n ≤ :data:`ALL_COUNTS`; else both ends (0, 1, 2 and n − 2, n − 1, n)
    and :data:`SPREAD` evenly spaced between — a hook honest at the worst pair's counts
    only is sampled where it is not."""
    if n <= ALL_COUNTS:
        return list(range(n + 1))
    ends = {0, 1, 2, n - 2, n - 1, n}
    return sorted(ends | set(np.linspace(0, n, SPREAD).round().astype(int).tolist()))


def _ranges(ks):
    """``0, 2–16`` for [0, 2, 3, …, 16]."""
    parts, start = [], ks[0]
    for a, b in zip(ks, ks[1:] + [None]):
        if b != a + 1:
            parts.append(f"{start}" if start == a else f"{start}–{a}")
            start = b
    return ", ".join(parts)


__all__ = ["audit_points", "audit_release", "count_log_law", "law_of", "log_law_of",
           "match_reports", "pair_log_ratio", "release_pairs", "report_epsilon", "report_probs_of", "sampled_counts",
           "ReportMismatch",
           "to_cells", "worst_pair"]
