"""The convolution of two laws given by their log-probabilities, exact in every tail.

A plug-in's exact law (``release_logpmf``, docs/plugins.md) is often the law
of a sum of independent counts — randomized response releases
Bin(k, 1 − p) + Bin(n − k, p) ones — whose tails lie far below the smallest
float64 (p^n = e^{−1.31 n} at ε = 1: below 10⁻³⁰⁸ from n ≈ 550). A
convolution of plain probabilities loses them (0, and an audit would read
ε = inf), an FFT loses them sooner (its error is absolute), and a direct
log-sum-exp over every pair costs an exponential per pair.

:func:`log_convolve` sums directly in linear space, which is exact to
relative ~N·2⁻⁵³ for every output because every term is non-negative, after
an **exponential tilt** that lifts the outputs being computed into range:
with a_θ(j) = a(j) + θj and b_θ(i) = b(i) + θi the convolution is
c_θ(y) = c(y) + θy, so log c(y) = log c_θ(y) − θy. One tilt serves every
output within ~600 nats of its tilted maximum (terms that underflow are
below e^{−708} of it); the next tilt is aimed (by bisection on θ) at the
first output not yet served. A few tilts cover the whole support of
log-concave laws such as binomials; an output no tilt lifts is summed
directly in log space (:func:`bandsim.privacy.pmf`'s exact sums). A
sequence of at most :data:`SHORT` terms (the law of 0–3 ones among n) is
convolved by one ``logaddexp`` per term instead, in O(N).
"""
import math

import numpy as np

from .pmf import _log_conv

#: An output is taken from a tilt when its tilted log-value is at least this (its
#: underflowed terms are then below e^{−708 − ACCEPT} of it).
ACCEPT = -600.0
#: Tilts tried before the rest is summed directly in log space.
MAX_TILTS = 400
#: A sequence at most this long is convolved by one log-sum-exp per term (O(N) each,
#: exact), without tilts: the law of k ≤ SHORT − 1 ones among n reports at any n.
SHORT = 4


def _sum_of_peaks(a, b, ia, ib, theta):
    """Where the tilted a and b peak: argmax_j a(j) + θj plus argmax_i b(i) + θi."""
    return int(np.argmax(a + theta * ia)) + int(np.argmax(b + theta * ib))


def _aim(a, b, ia, ib, y, start=0.0):
    """A tilt θ whose tilted maxima of a and b sit at indices summing to about ``y``
    (bisection on θ, the sum being non-decreasing in θ)."""
    lo, hi = start - 1.0, start + 1.0
    while _sum_of_peaks(a, b, ia, ib, lo) > y and lo > -1e6:
        lo = start - 2 * (start - lo)
    while _sum_of_peaks(a, b, ia, ib, hi) < y and hi < 1e6:
        hi = start + 2 * (hi - start)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        s = _sum_of_peaks(a, b, ia, ib, mid)
        if s == y:
            return mid
        if s < y:
            lo = mid
        else:
            hi = mid
    return hi


def log_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log of the convolution of two non-negative sequences given by their logs.

    Parameters
    ----------
    a, b : array_like of float64, (A,) and (B,)
        Natural logs (−inf for zeros), e.g. ``scipy.stats.binom.logpmf``.

    Returns
    -------
    float64 (A + B − 1,)
        log Σ_j exp(a[j] + b[y − j]) for y = 0 … A + B − 2, each to relative
        error ~(A + B)·2⁻⁵³ however small it is (−inf where no pair is
        possible).

    Raises
    ------
    ValueError
        An empty sequence, or a NaN or +inf entry.
    """
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    if not len(a) or not len(b) or np.isnan(a).any() or np.isnan(b).any() \
            or (a == np.inf).any() or (b == np.inf).any():
        raise ValueError("log_convolve takes non-empty logs without NaN or +inf")
    if min(len(a), len(b)) <= SHORT:  # one term of the short one at a time, in logs
        a, b = (a, b) if len(a) <= len(b) else (b, a)
        out = np.full(len(a) + len(b) - 1, -np.inf)
        for j in np.flatnonzero(a > -np.inf):
            out[j:j + len(b)] = np.logaddexp(out[j:j + len(b)], a[j] + b)
        return out
    fa, fb = a > -np.inf, b > -np.inf
    ia, ib = np.arange(len(a), dtype=np.float64), np.arange(len(b), dtype=np.float64)
    n = len(a) + len(b) - 1
    out = np.full(n, -np.inf)
    todo = np.convolve(fa.astype(np.float64), fb.astype(np.float64)) > 0.5
    if not todo.any():
        return out
    y_idx = np.arange(n, dtype=np.float64)
    theta = 0.0
    for _ in range(MAX_TILTS):
        ta, tb = a + theta * ia, b + theta * ib  # −inf stays −inf
        ma, mb = ta.max(), tb.max()
        c = np.convolve(np.exp(ta - ma), np.exp(tb - mb))
        with np.errstate(divide="ignore"):
            lc = np.log(c)
        take = todo & (lc >= ACCEPT)
        out[take] = lc[take] + ma + mb - theta * y_idx[take]
        todo &= ~take
        if not todo.any():
            return out
        y = int(np.argmax(todo))  # the first output not yet served
        nxt = _aim(a, b, ia, ib, y, theta)
        if not take.any() and math.isclose(nxt, theta):
            out[y] = _log_conv(a, b, 0, 0, y, 1)[0]  # no tilt lifts it: sum it directly
            todo[y] = False
            if not todo.any():
                return out
            nxt = _aim(a, b, ia, ib, int(np.argmax(todo)), theta)
        theta = nxt
    rest = np.flatnonzero(todo)
    for s in range(0, len(rest), 4096):
        chunk = rest[s:s + 4096]
        out[chunk] = [_log_conv(a, b, 0, 0, int(y), 1)[0] for y in chunk]
    return out


__all__ = ["log_convolve"]
