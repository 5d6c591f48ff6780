"""The exact law of a recorded ``batch`` release given its recorded true statistic.

A ``batch`` release of the elimination engine is one batch of the
algorithm's mechanism. Given the statistic the recorder logged — the encoded
sum Σ x̂ of a SecAgg batch, the count k of ones of a binary-summation or
data-dependent batch — its released value has an exact law, derived here
*from the declaration* (:meth:`bandsim.Mechanism.derive` at the recorded
batch size n), never from what the kernel recorded:

* **SecAgg protocols** (Chowdhury & Zhou (2023), Algorithms 2–3): the
  analyzer decodes ŷ = (Σ x̂ + η) mod m to its representative v in the
  window [−τ, n g + τ]; v − Σ x̂ ≡ η (mod m), η the total noise of the
  mechanism's ``noise_law`` (a local protocol: the n-fold sum of its
  per-user law, NB(n, q) − NB(n, q) for discrete Laplace), under a
  q̂-relaxed SecAgg mixed with the uniform law on ℤ_m. g, τ and m are
  recomputed from the declaration; an output outside the declared window or
  off the 1/g grid is impossible under the law.
* **binary summation** (Tenenbaum et al. (2021), Algorithm 3): value − k +
  E[B] = B ~ Binomial of the declared τ at n (``noise_law``).
* **data-dependent releases**: the mechanism's ``release_logpmf(n, k, fpar)`` or
  ``release_law(n, k, fpar)``.

:func:`batch_law` returns a :class:`DiscreteLaw` per batch size; the
many-run checks (:mod:`bandsim.wholerun.laws`) test the pooled draws of a
release class against it in the *output* space (cells of distinct outputs
never merged, only cells of small expected count pooled), with a one-sided
test of the noise's mean absolute deviation (too little noise), and read a
randomized probability-integral transform for the independence checks.

References
----------
Chowdhury & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits"
(ICLR 2023), Section 3.2 and Theorems 1–6; Tenenbaum, Kaplan, Mansour &
Stemmer, "Differentially Private Multi-Armed Bandits in the Shuffle Model"
(NeurIPS 2021), Appendix A, Algorithm 3; Brockwell, "Universal residuals: a
multivariate transformation" (Stat. Probab. Lett. 2007), randomized PIT.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..privacy import pmf as P
from ..validation import release_laws

#: log-pmf drop (from the mode) at which a window of a noise law ends.
LOG_DROP = 45.0
#: Largest noise window tabulated (points).
MAX_WINDOW = 1 << 23


@dataclass
class DiscreteLaw:
    """The law of a batch release's noise on consecutive integers, and how to read it.

    Attributes
    ----------
    lo : int
        Smallest noise value of ``p``.
    p : float64 (S,)
        P(noise = lo + i), summing to 1 up to a mass below e^−45 outside.
    m : int or None
        Modulus of a SecAgg batch (the noise is circular: read mod m); None else.
    g, tau, n : int
        Precision, accuracy and users of a SecAgg batch (window [−τ, n g + τ]).
    shift : float
        Binary summation: E[B], added back to value − k.
    what : str
        The law in words, with its derived parameters (for failure lines).
    """

    lo: int
    p: np.ndarray
    m: int = None
    g: int = 1
    tau: int = 0
    n: int = 0
    shift: float = 0.0
    what: str = ""

    @property
    def hi(self):
        return self.lo + len(self.p) - 1

    def noise(self, true, value):
        """(c int64 (N,), possible bool (N,)): the output-space noise v − true and whether
        the output is possible under the declared law (on the grid, in the window)."""
        true = np.asarray(true, np.float64)
        value = np.asarray(value, np.float64)
        if self.m is None:  # binary summation: B = value − k + E[B]
            b = value - true + self.shift
            c = np.rint(b)
            ok = (np.abs(b - c) <= 1e-6) & (c >= self.lo) & (c <= self.hi)
            return c.astype(np.int64), ok
        y = value * self.g
        v = np.rint(y)
        ok = (np.abs(y - v) <= 1e-6 * max(1.0, float(self.g))) & (v >= -self.tau) & (
            v <= self.n * self.g + self.tau)
        return (v - np.rint(true)).astype(np.int64), ok

    def circular(self, c):
        """The noise read mod m, as its representative nearest 0 (int64 (N,))."""
        if self.m is None:
            return c
        h = self.m // 2
        return (c + h) % self.m - h

    def cells(self, true, c):
        """(counts (S,), probs (S,), outside): observed and expected output-space noise
        v − Σx̂ over [lo, hi], pooled over releases whose windows differ (per release
        a value is possible only inside its window [−τ − x, n g + τ − x])."""
        true = np.rint(np.asarray(true, np.float64))
        N = len(true)
        k = np.arange(self.lo, self.hi + 1)
        if self.m is None:
            valid = np.full(len(k), N, np.float64)
        else:
            lo_i = np.sort(-self.tau - true)
            hi_i = np.sort(self.n * self.g + self.tau - true)
            valid = (np.searchsorted(lo_i, k, side="right")
                     - np.searchsorted(hi_i, k, side="left")).astype(np.float64)
        probs = self.p * valid / N
        inside = (c >= self.lo) & (c <= self.hi)
        counts = np.bincount(c[inside] - self.lo, minlength=len(k))
        return counts, probs, int((~inside).sum())

    def moments(self):
        """(centre, E|d − centre|, Var|d − centre|) of the circular noise d."""
        k = np.arange(self.lo, self.hi + 1, dtype=np.float64)
        w = self.p / self.p.sum()
        centre = float(np.rint((k * w).sum()))
        a = np.abs(k - centre)
        m1 = float((a * w).sum())
        return centre, m1, float(((a - m1) ** 2 * w).sum())

    def pit(self, d, rng):
        """Randomized probability-integral transform of circular noises d (float64 (N,)):
        Uniform(0, 1) and independent across releases exactly when the noises are
        independent draws of this law."""
        cdf = np.concatenate([[0.0], np.cumsum(self.p / self.p.sum())])
        j = np.clip(d - self.lo, 0, len(self.p) - 1)
        below = np.where(d < self.lo, 0.0, np.where(d > self.hi, 1.0, cdf[j]))
        width = np.where((d < self.lo) | (d > self.hi), 0.0, cdf[j + 1] - cdf[j])
        return np.clip(below + rng.random(len(d)) * width, 0.0, 1.0)


def _window(law):
    """(lo, p): a log-concave ``law`` tabulated until its log-pmf is LOG_DROP below the mode."""
    c = int(getattr(law, "center", 0))
    top = float(law.logpmf(np.array([c], np.int64))[0])
    W = 64
    while True:
        ends = law.logpmf(np.array([c - W, c + W], np.int64))
        if np.all(ends < top - LOG_DROP) or 2 * W + 1 > MAX_WINDOW:
            break
        W *= 2
    k = np.arange(c - W, c + W + 1, dtype=np.int64)
    lp = law.logpmf(k)
    p = np.exp(lp - lp.max())
    return c - W, p / p.sum()


def _nb_difference(n, q):
    """(lo, p): NB(n, q) − NB(n, q), the sum of n discrete Laplaces (a local protocol's
    total noise), by an FFT convolution of the tabulated negative binomials."""
    from scipy import signal, stats

    mean, sd = n * (1 - q) / q, math.sqrt(n * (1 - q)) / q
    a = int(max(0, math.floor(mean - 14 * sd - 32)))
    b = int(math.ceil(mean + 14 * sd + 32))
    k = np.arange(a, b + 1)
    nb = stats.nbinom.pmf(k, n, q)
    d = np.clip(signal.fftconvolve(nb, nb[::-1]), 0.0, None)
    return a - b, d / d.sum()


def _fold(lo, p, m):
    """(lo', p'): ``p`` on [lo, …] read mod m, on the representatives nearest 0 when the
    table is wider than m (else unchanged: the window holds no two values ≡ mod m)."""
    if len(p) <= m:
        return lo, p
    h = m // 2
    out = np.zeros(m)
    np.add.at(out, (np.arange(lo, lo + len(p)) + h) % m, p)
    return -h, out


def secagg_law(spec, b):
    """The :class:`DiscreteLaw` of a SecAgg batch ``b`` (its derived g, τ, m)."""
    g, tau, m = (int(v) for v in b.ipar)
    law = spec.noise_law(b)
    if spec.view != "ŷ" and b.n > 1:  # local: the batch total is the n-fold sum
        if not isinstance(law, P.DiscreteLaplace):
            raise ValueError(f"no batch-total law for {spec.name}'s per-user noise")
        lo, p = _nb_difference(int(b.n), -math.expm1(law.log_beta))
    elif isinstance(law, P.DiscreteLaplace) and 2 * (-LOG_DROP / law.log_beta) + 1 > m:
        f = np.exp(law.fold(m).logp)  # exact closed form on ℤ_m
        h = m // 2
        lo, p = -h, np.roll(f, h)
    else:
        lo, p = _window(law)
    lo, p = _fold(lo, p, m)
    what = (f"{spec.name} at n = {b.n}: noise {b.noise if hasattr(b, 'noise') else ''} "
            f"mod m = {m}, window [−τ, n g + τ] with g = {g}, τ = {tau}")
    relax = b.extra.get("relax_q") if hasattr(b, "extra") else None
    if relax is not None:
        q_hat = float(b.fpar[2])
        full = np.zeros(m)
        h = m // 2
        idx = (np.arange(lo, lo + len(p)) + h) % m
        np.add.at(full, idx, p)
        p = (1 - q_hat) * full + q_hat / m
        lo = -h
        what += f", relaxed SecAgg uniform w.p. q̂ = {q_hat:.3g}"
    return DiscreteLaw(lo, p / p.sum(), m, g, tau, int(b.n), what=what)


def binary_law(b):
    """The :class:`DiscreteLaw` of B = value − k + E[B] of a binary-summation batch."""
    from scipy import stats

    mech = b.extra["mech"]
    trials, prob = mech.noise_law(int(b.n))
    k = np.arange(int(trials) + 1)
    p = stats.binom.pmf(k, int(trials), prob)
    return DiscreteLaw(0, p / p.sum(), None, shift=float(mech.noise_mean(int(b.n))),
                       what=f"binary summation at n = {b.n}: B ~ Binomial({int(trials)}, "
                            f"{prob:.6g}) from τ = {mech.tau:.6g}")


def batch_law(spec, b):
    """The exact law of one batch of mechanism ``spec`` (derived batch ``b``): a
    :class:`DiscreteLaw`, ``"release"`` (a data-dependent law read per count from
    ``spec.release_logpmf`` or ``spec.release_law``) or None (no exact law known here)."""
    family = getattr(spec, "family", "")
    if family == "secagg" and getattr(spec, "noise_law", None) is not None:
        return secagg_law(spec, b)
    if family == "shuffle" and hasattr(b, "extra") and "mech" in b.extra:
        return binary_law(b)
    if family == "release" and release_laws(spec):
        return "release"
    return None


__all__ = ["DiscreteLaw", "batch_law", "binary_law", "secagg_law"]
