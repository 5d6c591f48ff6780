"""Private stopping rules DP-NAS and DP exponential NAS, many runs per call.

Samples come from a finite distribution on [−R, R]: support ``values`` with
cumulative probabilities ``cdf``. DP-NAS tests after every sample (one
uniform per sample, inverse CDF); DP exponential NAS tests only at t = 2^k,
and nothing is observed in between, so the 2^{k−1} new samples enter as one
exact multinomial count vector (sequential binomials), i.e. one exact draw
of their sum.

Every run: B ~ Lap(σ₁) once; at each test a fresh A_t ~ Lap(σ₂); halt when
|X̄_t| ≥ h_t (1 + 1/α) + (c_t + B + A_t)/t; release X̄_t + L/t, L ~ Lap(σ₃).

References
----------
Sajed (2019), Section 4.1, Algorithm 7 (DP-NAS), Algorithm 8 (DP exponential
NAS), Theorem 4.1.1 and Corollary 4.1.2.
"""
import math

import numpy as np

from ._jit import jit


@jit
def _sample(rng, values, cdf):
    u = rng.random()
    j = 0
    last = values.shape[0] - 1
    while j < last and u >= cdf[j]:
        j += 1
    return values[j]


@jit
def _batch(rng, values, probs, n):
    """Exact sum of n i.i.d. samples: multinomial counts as sequential binomials."""
    s = 0.0
    left = n
    mass = 1.0
    last = values.shape[0] - 1
    for j in range(last):
        if left <= 0:
            break
        p = probs[j] / mass if mass > 0.0 else 1.0
        if p >= 1.0:
            c = left
        elif p <= 0.0:
            c = 0
        else:
            c = rng.binomial(left, p)
        s += values[j] * c
        left -= c
        mass -= probs[j]
    s += values[last] * left
    return s


@jit
def run_stopping(rng, values, probs, cdf, R, alpha, beta, s1, s2, s3, max_samples,
                 exponential, out_t, out_est, out_stopped):
    """Run DP-NAS (``exponential`` false) or DP exponential NAS for every output row.

    Parameters
    ----------
    rng : numpy.random.Generator
    values : float64 (J,)
        Support of the sample distribution, inside [−R, R].
    probs, cdf : float64 (J,)
        Its probabilities and their cumulative sums (``cdf[-1]`` = 1).
    R : float64
        Range bound of the samples.
    alpha, beta : float64
        Multiplicative accuracy α and failure probability β.
    s1, s2, s3 : float64
        Laplace scales σ₁ = 12R/ε (threshold), σ₂ = 12R/ε (queries),
        σ₃ = 4R/ε (released sum), Algorithm 7/8 line 1.
    max_samples : int64
        Cap on the number of samples of a run (a run that reaches it without
        halting reports its estimate at the cap with ``out_stopped`` false).
    exponential : bool
        Test only at t = 2^k (Algorithm 8) instead of every t (Algorithm 7).
    out_t : int64 (N,)
        Output: stopping time (samples used).
    out_est : float64 (N,)
        Output: released estimate X̄_t + L/t.
    out_stopped : bool (N,)
        Output: whether the halting condition was met.

    References
    ----------
    Sajed (2019), Algorithm 7 lines 1–12 and Algorithm 8 lines 1–15.
    """
    inv = 1.0 + 1.0 / alpha
    base = s1 * math.log(4.0 / beta) + s3 / alpha * math.log(4.0 / beta)
    for run in range(out_t.shape[0]):
        B = rng.laplace(0.0, s1)
        t = 0
        k = 0
        total = 0.0
        stopped = False
        while t < max_samples:
            if exponential:
                k += 1
                target = min(np.int64(1) << k, max_samples)
                total += _batch(rng, values, probs, target - t)
                t = target
                A = rng.laplace(0.0, s2)
                c = base + s2 * math.log(8.0 * k * k / beta)
                h = R * math.sqrt(2.0 / t * math.log(16.0 * k * k / beta))
            else:
                t += 1
                A = rng.laplace(0.0, s2)
                total += _sample(rng, values, cdf)
                tf = float(t)
                c = base + s2 * math.log(8.0 * tf * tf / beta)
                h = R * math.sqrt(2.0 / tf * math.log(16.0 * tf * tf / beta))
            if abs(total / t) >= h * inv + (c + B + A) / t:
                stopped = True
                break
        out_t[run] = t
        out_stopped[run] = stopped
        out_est[run] = total / t + rng.laplace(0.0, s3) / t
