"""Exact probability mass functions on the integers, in log space.

The privacy audits (:mod:`bandsim.privacy.audit`) compare the analyzer's view
of one batch on two neighbouring inputs. Every view is an integer random
variable: a noise total on ℤ, reduced mod m by secure aggregation, or a
count of ones. This module computes those pmfs *exactly* (up to
floating-point rounding, with every truncation bounded and reported) and in
**log space**, because Rényi divergences of order up to 64 are decided by
events of probability e^{−2000} and below, far beyond what a pmf stored as
plain floats (or an FFT, whose error is absolute) can represent.

Laws (:class:`Law`, all log-concave on ℤ):

======================  =========================================  ===========================
law                     log P(X = k) (up to a constant)            how
======================  =========================================  ===========================
:class:`DiscreteLaplace`  |k| log β                                closed form, exact fold
:class:`Skellam`          log I_|k|(2μ) − 2μ                       ``scipy.special.ive``; Debye
                                                                   expansion where it underflows
:class:`DiscreteGaussian` −k²/(2σ²)                                closed form
:class:`DiscreteGaussianSum`  −k²/(2nσ²) + log M(k mod n)         Poisson summation (below)
:class:`Binomial`         ``scipy.stats.binom.logpmf``             closed form
======================  =========================================  ===========================

Operations: :func:`window` (a law on a finite window, the mass outside
bounded by the log-concave geometric tail bound), :func:`fold` (the law of
X mod m on ℤ_m, with the relative error of every folded value bounded),
:func:`convolve` (exact direct sums, or FFT with its error bounded),
:func:`truncate`. The divergences (:func:`max_log_ratio` — pure ε,
:func:`renyi` — D_α, :func:`hockey_stick` — δ(ε)) live in
:mod:`bandsim.privacy.divergences` and are re-exported here.

Sum of n discrete Gaussians (:class:`DiscreteGaussianSum`). By Poisson
summation (the computation behind Lemma 4 of Chowdhury & Zhou (2023), after [KLS21]),
for S = X_1 + … + X_n with X_i ~ N_ℤ(0, σ²) iid,

    P(S = k) ∝ exp(−k²/(2nσ²)) · M(k),   M(k) = Σ_{u ∈ ℤ_n} W(u) e^{2πiku/n},
    W(u) = e^{2π²σ²u²/n} · [z^u] θ(z)^n,  θ(z) = Σ_{j∈ℤ} q^{j²} z^j,  q = e^{−2π²σ²},

so the sum is a discrete Gaussian of variance nσ² times a modulation M of
period n. (Derivation: φ_X(t) ∝ Σ_j e^{−σ²(t+2πj)²/2}; expand φ_X^n, group
the index vectors J ∈ ℤ^n by s = ΣJ_i, use Σ_i (t+2πJ_i)² = n(t+2πs/n)² +
4π²(ΣJ_i² − s²/n), note W(s + n) = W(s), and invert the Fourier transform
over ℝ.) When n q ≤ e^{−10} — always for the simulator, whose per-user σ²
= g²/(nε²) ≥ s² ≥ 1 gives q ≤ 2.7·10⁻⁹ — W(u) decreases like (nq)^u and a
few terms give M to double precision; the coefficients [z^u] θ^n are
computed by exponentiation by squaring in log space. Otherwise (only for
hand-built, deliberately under-noised mechanisms) the pmf of S is computed
directly, [z^k](Σ_j e^{−j²/(2σ²)} z^j)^n, on a bounded window.

References
----------
Chowdhury & Zhou (2023), Section 5 (Skellam), Appendix E (discrete
Gaussian, Definition 11, Lemma 4 after Kairouz, Liu & Steinke 2021);
Abramowitz & Stegun 9.7.7 / DLMF 10.41.3 (Debye expansion of I_ν).
"""
import math
from dataclasses import dataclass

import numpy as np


def _special():
    """``scipy.special``, imported at the first exact law evaluated: ``import bandsim``
    and ``bandsim run`` evaluate none, and scipy.special costs ~30–100 ms to import."""
    from scipy import special

    return special


#: Relative precision targeted by every truncation (e^{−60} ≈ 9·10⁻²⁷).
LOG_TINY = -60.0
#: Largest support (points) any operation here will allocate.
MAX_POINTS = 1 << 25


class PmfTooLarge(ValueError):
    """An exact computation would need more than :data:`MAX_POINTS` points."""


@dataclass(frozen=True)
class LogPmf:
    """A pmf on consecutive integers ``lo, lo + 1, …``, in log space.

    Attributes
    ----------
    lo : int
        Smallest value of the support window.
    logp : float64 (S,)
        log P(X = lo + i), normalized over the window (may contain −inf).
    dropped : float
        Upper bound on the mass outside the window (relative to the mass
        inside); 0.0 when the window is the whole support.
    rel_err : float
        Upper bound on the relative error of every entry exp(logp[i])
        (e.g. from folding or from an FFT), beyond floating-point rounding.
    modulus : int or None
        If set, the pmf lives on ℤ_m and ``lo == 0``, ``len(logp) == m``.
    truncated : bool
        The law has mass outside the window (``dropped`` bounds it; values
        there are unknown, so divergences use the common window only).
    log_missing : float
        −inf when every entry is exact. Otherwise the pmf was computed on a
        truncated support: entries at −inf are *unknown* but at most
        exp(log_missing), and divergences computed with it are lower bounds.
    """

    lo: int
    logp: np.ndarray
    dropped: float = 0.0
    rel_err: float = 0.0
    modulus: int = None
    log_missing: float = -np.inf
    truncated: bool = False

    @property
    def exact(self):
        """False if some entries are only bounded (see ``log_missing``)."""
        return self.log_missing == -np.inf

    @property
    def hi(self):
        return self.lo + len(self.logp) - 1

    @property
    def support(self):
        """int64 (S,): the values lo … hi."""
        return np.arange(self.lo, self.hi + 1, dtype=np.int64)

    def pmf(self):
        """float64 (S,): the probabilities (tiny ones underflow to 0)."""
        return np.exp(self.logp)

    def shift(self, d):
        """The law of X + d (on ℤ_m: (X + d) mod m)."""
        d = int(d)
        if self.modulus is not None:
            return LogPmf(0, np.roll(self.logp, d % self.modulus), self.dropped, self.rel_err,
                          self.modulus, self.log_missing)
        return LogPmf(self.lo + d, self.logp, self.dropped, self.rel_err, None, self.log_missing,
                      self.truncated)


def _normalize(logp):
    return logp - _special().logsumexp(logp)


# --- laws -------------------------------------------------------------------

class Law:
    """A log-concave law on ℤ given by an unnormalized log-pmf.

    Subclasses define :meth:`logpmf` (vectorized over int64 arrays) and
    ``center`` (a mode). Log-concavity makes the geometric tail bound
    Σ_{j>K} p(j) ≤ p(K+1) / (1 − p(K+1)/p(K)) valid, which every window and
    fold below relies on.
    """

    center = 0
    #: Bound on the absolute error of :meth:`logpmf` beyond floating-point
    #: rounding (e.g. an asymptotic expansion); the audits add it to each row's error.
    log_err = 0.0

    def logpmf(self, k: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def log_tail(self, K: int) -> float:
        """log of an upper bound on Σ_{|j − center| > K} p(j) (unnormalized)."""
        c = self.center
        out = -np.inf
        for a, b in ((c + K, c + K + 1), (c - K, c - K - 1)):
            la, lb = self.logpmf(np.array([a, b], np.int64))
            if lb == -np.inf:
                continue
            ratio = lb - la
            if ratio >= 0:
                return np.inf
            out = np.logaddexp(out, lb - math.log(-math.expm1(ratio)))
        return out


class DiscreteLaplace(Law):
    """Lap_ℤ with P(X = k) ∝ β^{|k|}; Lap_ℤ(g/ε) has β = e^{−ε/g}.

    :meth:`from_q` builds it from q = 1 − β, the geometric success
    probability the kernels' samplers read, with log β = log1p(−q) to full
    relative precision.

    References
    ----------
    Chowdhury & Zhou (2023), Definition 4 and Fact 1 (sum of Pólya pairs).
    """

    def __init__(self, beta: float, log_beta: float | None = None) -> None:
        if not 0.0 < beta < 1.0:
            raise ValueError(f"beta must lie in (0, 1), got {beta!r}")
        self.beta = float(beta)
        self.log_beta = math.log(beta) if log_beta is None else float(log_beta)

    @classmethod
    def from_q(cls, q):
        """Lap_ℤ whose geometric sides have success probability q ∈ (0, 1)."""
        if not 0.0 < q < 1.0:
            raise ValueError(f"q must lie in (0, 1), got {q!r}")
        return cls(1.0 - q, math.log1p(-q))

    def logpmf(self, k: np.ndarray) -> np.ndarray:
        return np.abs(np.asarray(k, np.float64)) * self.log_beta

    @property
    def log_norm(self):
        """log (1 − β)/(1 + β), the normalizing constant."""
        return math.log(-math.expm1(self.log_beta)) - math.log1p(self.beta)

    def fold(self, m: int) -> np.ndarray:
        """Exact law of X mod m: f(y) = (1−β)/(1+β) (β^y + β^{m−y})/(1 − β^m)."""
        y = np.arange(m, dtype=np.float64)
        lf = np.logaddexp(y * self.log_beta, (m - y) * self.log_beta)
        lf += self.log_norm - math.log(-math.expm1(m * self.log_beta))
        return LogPmf(0, lf, 0.0, 0.0, int(m))


def _log_iv_debye(nu, x):
    """log I_ν(x) by the Debye expansion (5 terms; |error| < 1e-9 for ν ≥ 20)."""
    nu = np.asarray(nu, np.float64)
    z = x / nu
    s = np.sqrt(1.0 + z * z)
    t = 1.0 / s
    eta = s + np.log(z / (1.0 + s))
    t2 = t * t
    u1 = t * (3 - 5 * t2) / 24
    u2 = t2 * (81 - 462 * t2 + 385 * t2 * t2) / 1152
    u3 = t * t2 * (30375 - 369603 * t2 + 765765 * t2**2 - 425425 * t2**3) / 414720
    u4 = t2 * t2 * (4465125 - 94121676 * t2 + 349922430 * t2**2 - 446185740 * t2**3
                     + 185910725 * t2**4) / 39813120
    series = 1 + u1 / nu + u2 / nu**2 + u3 / nu**3 + u4 / nu**4
    return nu * eta - 0.5 * np.log(2 * np.pi * nu) + 0.5 * np.log(t) + np.log(series)


class Skellam(Law):
    """Sk(0, 2μ) = Poisson(μ) − Poisson(μ): P(X = k) = e^{−2μ} I_{|k|}(2μ).

    ``mu`` is the Poisson mean of each side (the kernel's ``fpar[0]``); the
    variance is 2μ. log I_ν(2μ) e^{−2μ} comes from ``scipy.special.ive``
    while it is a normal double (relative error ~1e-15), from the Debye
    expansion beyond (ν ≥ ~30 there; |error| < 1e-9 in the log).

    References
    ----------
    Chowdhury & Zhou (2023), Section 5, Definition of Sk(μ, σ²); DLMF 10.41.3.
    """

    #: The Debye expansion's bound, where it replaces ``ive`` (far tails).
    log_err = 1e-9

    def __init__(self, mu: float) -> None:
        if not mu > 0:
            raise ValueError(f"mu must be positive, got {mu!r}")
        self.mu = float(mu)

    def logpmf(self, k: np.ndarray) -> np.ndarray:
        nu = np.abs(np.asarray(k, np.float64))
        x = 2.0 * self.mu
        with np.errstate(divide="ignore"):
            v = _special().ive(nu, x)
            out = np.log(v)
        bad = ~(v > 1e-290)
        if np.any(bad):
            out = np.where(bad, _log_iv_debye(np.maximum(nu, 1.0), x) - x, out)
        return out


class DiscreteGaussian(Law):
    """N_ℤ(0, σ²): P(X = k) ∝ exp(−k²/(2σ²)) (Chowdhury & Zhou (2023), Definition 11)."""

    def __init__(self, sigma2: float) -> None:
        if not sigma2 > 0:
            raise ValueError(f"sigma2 must be positive, got {sigma2!r}")
        self.sigma2 = float(sigma2)

    def logpmf(self, k: np.ndarray) -> np.ndarray:
        k = np.asarray(k, np.float64)
        return -k * k / (2.0 * self.sigma2)


def _log_conv(a, b, lo_a, lo_b, lo_out, n_out):
    """log Σ_i exp(a[i] + b[k − i]) for k = lo_out … lo_out + n_out − 1 (exact sums)."""
    k = lo_out + np.arange(n_out)[:, None]
    i = lo_a + np.arange(len(a))[None, :]
    j = k - i - lo_b
    ok = (j >= 0) & (j < len(b))
    terms = np.where(ok, a[None, :] + b[np.clip(j, 0, len(b) - 1)], -np.inf)
    return _special().logsumexp(terms, axis=1)


def _log_power(logc, n, V):
    """log [z^k] P(z)^n for |k| ≤ V, P(z) = Σ_{|j|≤J} e^{logc[j+J]} z^j (log space).

    Exponentiation by squaring; every product is truncated to degrees in
    [−V, V] (callers add a margin that makes the discarded paths negligible).
    """
    J = (len(logc) - 1) // 2
    base_lo, base = -J, np.asarray(logc, np.float64)
    res_lo, res = 0, np.zeros(1)
    if (2 * V + 1) * (2 * V + 1) > MAX_POINTS:
        raise PmfTooLarge(f"a support of {2 * V + 1:,} points is too large for exact sums")
    while True:
        if n & 1:
            lo = max(-V, res_lo + base_lo)
            hi = min(V, res_lo + len(res) - 1 + base_lo + len(base) - 1)
            res = _log_conv(res, base, res_lo, base_lo, lo, hi - lo + 1)
            res_lo = lo
        n >>= 1
        if not n:
            break
        lo = max(-V, 2 * base_lo)
        hi = min(V, 2 * (base_lo + len(base) - 1))
        base = _log_conv(base, base, base_lo, base_lo, lo, hi - lo + 1)
        base_lo = lo
    out = np.full(2 * V + 1, -np.inf)
    out[res_lo + V:res_lo + V + len(res)] = res
    return out


class DiscreteGaussianSum(Law):
    """The sum of n iid N_ℤ(0, σ²): P(S = k) ∝ e^{−k²/(2nσ²)} M(k) (module docstring).

    Parameters
    ----------
    n : int
        Number of summands (users in the batch).
    sigma2 : float
        Per-summand σ² (the kernel's ``fpar[0] / n``).

    Attributes
    ----------
    method : str
        ``"poisson-summation"`` (n q ≤ e^{−10}) or ``"direct"``.
    modulation : float
        max_k |M(k)/W(0) − 1| (attained at k = 0): how far the sum is from
        N_ℤ(0, nσ²), as a ratio of pmfs.
    """

    def __init__(self, n: int, sigma2: float, direct_window: int | None = None) -> None:
        self.n = int(n)
        self.sigma2 = float(sigma2)
        a = 2.0 * math.pi**2 * self.sigma2  # q = e^{−a}
        self.method = "poisson-summation" if a >= math.log(self.n) + 10.0 else "direct"
        self._direct = None
        if self.method == "poisson-summation":
            self._init_modulation(a)
        else:
            self.modulation = math.nan
            self._direct_window = direct_window

    def _init_modulation(self, a):
        n = self.n
        half = n // 2  # representatives u = 0 … ⌊n/2⌋ of ℤ_n (W(−u) = W(u) = W(n − u))
        U = min(4, half)
        while True:
            V = U + 8  # margin: discarded paths cost ≥ (n q)^8 ≤ e^{−80} relatively
            logc = -a * np.arange(-2, 3, dtype=np.float64) ** 2  # |j| ≤ 2: next is q⁹
            coef = _log_power(logc, n, V)[V:V + U + 2]  # degrees 0 … U + 1
            u = np.arange(len(coef), dtype=np.float64)
            logw = a * u * u / n + coef
            small = np.nonzero(logw - logw[0] < LOG_TINY)[0]
            if small.size or U >= half:
                U = min(int(small[0]) - 1 if small.size else half, half)
                break
            U = min(2 * U, half)
        self._logw = logw[:U + 1] - logw[0]  # log W(u)/W(0), u = 0 … U
        u = np.arange(1, U + 1)
        mult = np.where(2 * u == n, 1.0, 2.0)  # u and n − u are one class iff u = n/2
        self._u, self._wm = u, np.exp(self._logw[1:]) * mult
        # |M(k)/W(0) − 1| ≤ Σ_u mult W(u)/W(0), with equality at k = 0
        self.modulation = float(self._wm.sum())

    def _log_modulation(self, k):
        """log M(k)/W(0) for int64 k (evaluated on demand; 0 when W(u ≥ 1) vanish)."""
        if not self._u.size or self.modulation == 0.0:
            return np.zeros(k.shape)
        r = (k % self.n).astype(np.float64)
        out = np.empty(k.shape)
        flat_r, flat_o = r.reshape(-1), out.reshape(-1)
        step = max(1, MAX_POINTS // (4 * self._u.size))
        for s in range(0, flat_r.size, step):
            ang = 2 * np.pi * np.outer(flat_r[s:s + step], self._u) / self.n
            flat_o[s:s + step] = np.log1p((self._wm * np.cos(ang)).sum(axis=1))
        return out

    def logpmf(self, k: np.ndarray) -> np.ndarray:
        k = np.asarray(k, np.int64)
        if self.method == "direct":
            return self._direct_logpmf(k)
        kf = k.astype(np.float64)
        return -kf * kf / (2.0 * self.n * self.sigma2) + self._log_modulation(k)

    def _direct_table(self):
        """[−V, V] log-pmf of S computed directly (small σ only; see the class docstring)."""
        if self._direct is None:
            sd = math.sqrt(self.n * self.sigma2)
            V = self._direct_window or int(math.ceil(40 * sd)) + 16
            J = int(min(V, math.ceil(math.sqrt(1500.0 * self.sigma2)) + 1))
            logc = -np.arange(-J, J + 1, dtype=np.float64) ** 2 / (2 * self.sigma2)
            self._direct = (V, _log_power(logc, self.n, V + 8)[8:-8])
        return self._direct

    @property
    def support_limit(self):
        """V: the direct method knows P(S = k) for |k| ≤ V only (None otherwise)."""
        return self._direct_table()[0] if self.method == "direct" else None

    def _direct_logpmf(self, k):
        V, table = self._direct_table()
        inside = np.abs(k) <= V
        out = np.full(k.shape, -np.inf)
        out[inside] = table[k[inside] + V]
        return out

    def log_tail(self, K: int) -> float:
        if self.method != "direct" or K < self._direct_table()[0] - 1:
            return super().log_tail(K)
        V, table = self._direct_table()  # log-concave: geometric bound from the edge
        la, lb = table[-2], table[-1]
        if lb == -np.inf:
            return -np.inf
        return math.log(2.0) + lb - math.log(-math.expm1(min(lb - la, -1e-300)))


class Binomial(Law):
    """Binomial(N, p) (the shuffle mechanism's noise count); support 0 … N."""

    def __init__(self, trials: int, prob: float) -> None:
        self.trials = int(trials)
        self.prob = float(prob)
        self.center = int(round(self.trials * self.prob))

    def logpmf(self, k: np.ndarray) -> np.ndarray:
        from scipy import stats

        return stats.binom.logpmf(np.asarray(k), self.trials, self.prob)


# --- operations ---------------------------------------------------------------

def window(law, lo, hi):
    """The law restricted to [lo, hi], normalized there, with the dropped mass bounded.

    Returns
    -------
    LogPmf
        ``dropped`` bounds (mass outside)/(mass inside) by the geometric tail
        bound of log-concave laws at both edges.
    """
    lo, hi = int(lo), int(hi)
    if hi - lo + 1 > MAX_POINTS:
        raise PmfTooLarge(f"window of {hi - lo + 1:,} points")
    k = np.arange(lo, hi + 1, dtype=np.int64)
    lp = law.logpmf(k)
    total = _special().logsumexp(lp)
    tail = -np.inf
    for a, b in ((hi, hi + 1), (lo, lo - 1)):
        la, lb = law.logpmf(np.array([a, b], np.int64))
        if lb > -np.inf:
            ratio = lb - la
            tail = np.logaddexp(tail, np.inf if ratio >= 0 else lb - math.log(-math.expm1(ratio)))
    return LogPmf(lo, lp - total, float(math.exp(min(tail - total, 700.0))), truncated=True)


def fold(law, m, offset=0):
    """The law of (X + offset) mod m on ℤ_m, exact up to a bounded relative error.

    Sums the log-pmf over a window [c − K, c + K] wide enough that the mass
    outside is below e^{LOG_TINY} times the smallest folded probability, so
    ``rel_err`` bounds the relative error of *every* folded value — the tails
    that decide large-order Rényi divergences included.

    Raises
    ------
    PmfTooLarge
        If the window would exceed :data:`MAX_POINTS` points.
    """
    m = int(m)
    if isinstance(law, DiscreteLaplace):
        return law.fold(m).shift(offset)
    limit = getattr(law, "support_limit", None)
    if limit is not None:  # known on [−V, V] only: fold that, bound the rest
        k = np.arange(-limit, limit + 1, dtype=np.int64)
        lp = law.logpmf(k)
        total = _special().logsumexp(lp)
        folded = np.full(m, -np.inf)
        np.logaddexp.at(folded, k % m, lp)
        return LogPmf(0, folded - total, 0.0, 0.0, m,
                      float(law.log_tail(limit) - total)).shift(offset)
    c = int(law.center)
    K = max(m, 64)
    while True:
        if 2 * K + 1 > MAX_POINTS:
            raise PmfTooLarge(f"folding mod m = {m:,} needs more than {MAX_POINTS:,} points")
        k = np.arange(c - K, c + K + 1, dtype=np.int64)
        lp = law.logpmf(k)
        reps = -(-len(k) // m)
        pad = np.full(reps * m, -np.inf)
        start = (c - K) % m
        pad[:len(k)] = lp
        folded = _special().logsumexp(pad.reshape(reps, m), axis=0)
        folded = np.roll(folded, start)
        lmin = folded.min()
        ltail = law.log_tail(K)
        if ltail == -np.inf or ltail - lmin < LOG_TINY:
            break
        K *= 2
    total = _special().logsumexp(folded)
    rel = float(math.exp(min(ltail - lmin, 700.0))) if ltail > -np.inf else 0.0
    return LogPmf(0, folded - total, 0.0, rel, m).shift(offset)


def truncate(pmf, mass):
    """Drop the outermost values of ``pmf`` holding at most ``mass`` in total.

    Returns a renormalized :class:`LogPmf` whose ``dropped`` accumulates the
    removed mass (relative to what is kept).
    """
    p = pmf.pmf()
    cum = np.cumsum(p)
    total = cum[-1]
    left = np.searchsorted(cum, mass / 2, side="right")
    right = np.searchsorted(cum, total - mass / 2, side="left")
    left, right = int(min(left, right)), int(max(left, right))
    kept = pmf.logp[left:right + 1]
    lost = total - np.exp(_special().logsumexp(kept))
    z = _special().logsumexp(kept)
    return LogPmf(pmf.lo + left, kept - z, pmf.dropped + max(lost, 0.0) / max(1 - lost, 1e-300),
                  pmf.rel_err)


#: Largest product of lengths convolved by exact direct sums.
DIRECT_CONV_MAX = 4_000_000


def convolve(a, b):
    """The law of X + Y for independent X ~ a, Y ~ b (both on ℤ, windows).

    Exact direct sums in log space (every output, however small, to
    relative ~1e-15) when ``len(a)·len(b) ≤ DIRECT_CONV_MAX``. Otherwise
    ``scipy.signal.fftconvolve`` in linear space, whose absolute error is at
    most ~10·N·2⁻⁵³·max(a)·Σb (N the output length): outputs below 100×
    that bound are dropped (set to −inf, their mass counted in ``dropped``)
    and the kept ones carry a relative error ≤ 1 % (``rel_err``), far less
    in the bulk.
    """
    n = len(a.logp) + len(b.logp) - 1
    if len(a.logp) * len(b.logp) <= DIRECT_CONV_MAX:
        lc = np.concatenate([_log_conv(a.logp, b.logp, 0, 0, s, min(4096, n - s))
                             for s in range(0, n, 4096)])
        return LogPmf(a.lo + b.lo, _normalize(lc), a.dropped + b.dropped,
                      a.rel_err + b.rel_err + n * 2.0**-52)
    from scipy.signal import fftconvolve

    pa, pb = np.exp(a.logp - a.logp.max()), np.exp(b.logp - b.logp.max())
    shift = a.logp.max() + b.logp.max()
    c = fftconvolve(pa, pb)
    bound = 10 * n * 2.0**-53 * pa.max() * pb.sum()
    keep = c > 100 * bound
    lost = float(np.clip(c[~keep], 0, None).sum() + (~keep).sum() * bound)
    with np.errstate(divide="ignore"):
        lc = np.where(keep, np.log(np.where(keep, c, 1.0)), -np.inf) + shift
    return LogPmf(a.lo + b.lo, _normalize(lc), a.dropped + b.dropped + lost / c.sum(),
                  a.rel_err + b.rel_err + 0.01)


from .divergences import hockey_stick, max_log_ratio, renyi  # noqa: E402  (re-exported)

__all__ = ["Binomial", "DiscreteGaussian", "DiscreteGaussianSum", "DiscreteLaplace", "Law",
           "LogPmf", "PmfTooLarge", "Skellam", "convolve", "fold", "hockey_stick",
           "max_log_ratio", "renyi", "truncate", "window"]
