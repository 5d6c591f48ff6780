"""Closed-form noise constants of the SecAgg protocols: variances, Rényi and
zCDP bounds, and the distance bound of the batched discrete-Gaussian sum.

References
----------
Chowdhury & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits"
(ICLR 2023; arXiv 2206.05772): Theorem 2 and Lemma 3 (Skellam RDP),
Lemma 4 and Theorem 4 (discrete Gaussian), Appendix E.
"""
import math
from functools import lru_cache

import numpy as np


def laplace_noise(epsilon, g):
    """(q, β) of Lap_Z(g/ε): β = e^{−ε/g}, q = 1 − β (full precision)."""
    a = epsilon / g
    return -math.expm1(-a), math.exp(-a)


def dlaplace_variance(epsilon, g):
    """Var Lap_Z(g/ε) = 2β/(1 − β)², β = e^{−ε/g}."""
    q, beta = laplace_noise(epsilon, g)
    qq = q * q
    return 2.0 * beta / qq if qq > 0 else math.inf  # q below ~1e-154: the samplers refuse it


def skellam_rdp(alpha, epsilon, scale, n=None, g=None):
    """ε̂(α) of Theorem 2 (Chowdhury & Zhou (2023)), or the per-batch value from its Lemma 3.

    Without ``g``: the theorem's uniform bound
    αε²/2 + min{(2α−1)ε²/(4s²) + 3ε/(2s³), 3ε²/(2s)}.
    With ``g``: Lemma 3 (AKL21 Thm 3.5 as quoted) with Δ = g and noise
    Sk(0, g²/ε²): αε²/2 + min{((2α−1)g² + 6g) ε⁴/(4g⁴), 3ε²/(2g)}.
    """
    if g is None:
        return (alpha * epsilon**2 / 2
                + min((2 * alpha - 1) * epsilon**2 / (4 * scale**2) + 3 * epsilon / (2 * scale**3),
                      3 * epsilon**2 / (2 * scale)))
    var = g * g / epsilon**2
    return (alpha * g * g / (2 * var)
            + min(((2 * alpha - 1) * g * g + 6 * g) / (4 * var * var), 3 * g / (2 * var)))


def _log_sum_exp_a_over_j(a, n):
    """log Σ_{j=2}^{n} e^{a/j}, exact for j ≤ J and bounded above beyond it."""
    J = int(min(n, max(2, math.ceil(20 * a))))
    if J > 1 << 20:  # huge a (σ² ≳ 10⁴): the terms fall so fast that a few j decide the sum
        return _log_sum_exp_a_over_j_large(a, n)
    j = np.arange(2, J + 1, dtype=float)
    terms = a / j
    top = terms.max() if terms.size else 0.0
    s = np.exp(terms - top).sum() if terms.size else 0.0
    if n > J:  # e^{a/j} ≤ 1 + (a/j) e^{a/J} for j > J  (a/j ≤ a/J ≤ 1/20)
        tail = (n - J) + a * math.exp(a / J) * (math.log(n) - math.log(J))
        s += tail * math.exp(-top)
    return top + math.log(s)


def _log_sum_exp_a_over_j_large(a, n):
    """log Σ_{j=2}^{n} e^{a/j} for large a, in O(1) memory: the terms decrease in j; those
    with a/2 − a/j > 60 + log n (j > j*) are bounded by (n − j*) e^{a/(j* + 1)}."""
    L = 60.0 + math.log(n)
    jstar = n if L >= a / 2 else int(min(n, max(2, math.floor(1.0 / (0.5 - L / a)) + 1)))
    jstar = min(jstar, 1 << 20)
    j = np.arange(2, jstar + 1, dtype=float)
    top = a / 2
    s = np.exp(a / j - top).sum()
    if n > jstar:
        s += (n - jstar) * math.exp(a / (jstar + 1) - top)
    return top + math.log(s)


def dgauss_xi_log(n, sigma2):
    """log ξ with ξ = 10 Σ_{k=1}^{n−1} e^{−2π²σ² k/(k+1)} (Chowdhury & Zhou (2023) Lemma 4; KLS21).

    Uses Σ_{k=1}^{n−1} e^{−a k/(k+1)} = e^{−a} Σ_{j=2}^{n} e^{a/j}, a = 2π²σ²;
    returns −inf for n = 1.
    """
    if n <= 1:
        return -math.inf
    a = 2 * math.pi**2 * sigma2
    return math.log(10.0) - a + _log_sum_exp_a_over_j(a, n)


def dgauss_epsilon_hat(epsilon, xi):
    """ε̂ = min{sqrt(ε² + ξ/2), ε + ξ} of Lemma 4 / Theorem 4 (Chowdhury & Zhou (2023))."""
    return min(math.sqrt(epsilon**2 + xi / 2), epsilon + xi)


def _log_cosh_minus_one(x):
    """log(cosh x − 1) = log 2 + 2 log sinh(x/2), stable for x ≥ 0."""
    y = np.abs(x) / 2
    with np.errstate(divide="ignore"):
        small = np.log(np.sinh(np.minimum(y, 20.0)))
    large = y - math.log(2.0) + np.log1p(-np.exp(-2 * y))
    return math.log(2.0) + 2 * np.where(y < 20.0, small, large)


def _log_delta(t, s2):
    """log Δ(t), Δ(t) = 2 Σ_{k≥1} e^{−2π²s2 k²}(cosh(2π s2 k t) − 1), k = 1..3."""
    parts = [math.log(2.0) - 2 * math.pi**2 * s2 * k * k
             + _log_cosh_minus_one(2 * math.pi * s2 * k * t) for k in (1, 2, 3)]
    return np.logaddexp.reduce(np.vstack(parts), axis=0)


def _log_expm1_exp(ell):
    """log(e^{e^ℓ} − 1), stable."""
    out = np.where(ell < -30, ell, 0.0)
    mid = (ell >= -30) & (ell <= 5)
    out = np.where(mid, np.log(np.expm1(np.exp(np.clip(ell, -30, 5)))), out)
    return np.where(ell > 5, np.exp(np.minimum(ell, 700.0)), out)


#: Beyond this per-user σ² the bound is 0.0 in float64 (it underflows from σ² ≈ 100
#: on), and its log-space terms −2π²σ²k² + log(cosh(2πσ²kt) − 1) would cancel
#: catastrophically (absolute error ~2·10⁻¹⁵σ²): return 0.0 without evaluating them.
SIGMA2_EXACT_TV = 1e8


@lru_cache(maxsize=4096)
def dgauss_sum_tv_bound(n, sigma2):
    """Upper bound on TV(Σ_{i≤n} N_Z(0, σ²), N_Z(0, n σ²)) (float; may be 0.0).

    The bound the batched path of ``dist-cdp`` relies on. Derivation
    (Poisson summation): on t ∈ [−π, π] the characteristic function of
    N_Z(0, σ²) is φ_σ(t) = e^{−σ²t²/2} A_σ(t) with
    A_σ(t) = (1 + r_σ(t))/(1 + r_σ(0)), r_σ(t) = Σ_{k≠0} e^{−2π²σ²k² − 2πσ²kt},
    so 1 ≤ A_σ(t) ≤ e^{Δ_σ(t)}, Δ_σ(t) = 2 Σ_{k≥1} e^{−2π²σ²k²}(cosh(2πσ²kt) − 1).
    Hence |φ_σ^n − φ_{√n σ}| ≤ e^{−nσ²t²/2} (e^{max(nΔ_σ, Δ_{√nσ})} − 1), and
    by Fourier inversion sup_x |P(x) − Q(x)| ≤ D := (1/2π) ∫_{−π}^{π} of that.
    Both laws are nσ²-sub-Gaussian (Chowdhury & Zhou (2023) Fact 3), so for any M ≥ 0
    TV ≤ (2M + 1) D / 2 + 2 exp(−(M + 1)²/(2nσ²)); we minimise over M.
    The integral is evaluated on a fine grid in log space (k ≤ 3 terms of
    Δ; the k ≥ 4 terms are below e^{−18π²σ²} relative to k = 1). For σ ≥ 1
    the bound is below 1e−5 for every n; for σ ≥ 10 (s ≥ 10) it underflows to 0.

    References
    ----------
    Chowdhury & Zhou (2023), Appendix E (Definition 11, Fact 3, Lemma 4 after KLS21).
    """
    if n <= 1 or sigma2 > SIGMA2_EXACT_TV:
        return 0.0
    ns2 = n * sigma2
    t = np.unique(np.concatenate([np.geomspace(1e-12, math.pi, 6000),
                                  np.linspace(0.0, math.pi, 6000)[1:]]))
    ell = np.maximum(math.log(n) + _log_delta(t, sigma2), _log_delta(t, ns2))
    log_f = -ns2 * t * t / 2 + _log_expm1_exp(ell)
    top = log_f.max()
    if top < -740:
        return 0.0
    f = np.exp(log_f - top)
    integral = 2 * np.sum((f[1:] + f[:-1]) / 2 * np.diff(t))  # ∫_{−π}^{π}
    log_d = top + math.log(integral) - math.log(2 * math.pi)
    d = math.exp(log_d)
    if d == 0.0:
        return 0.0
    # minimise (2M + 1) D / 2 + 2 exp(−(M + 1)² / (2 n σ²)) over M
    m_star = math.sqrt(max(0.0, 2 * ns2 * max(0.0, math.log(4 * max(1.0, math.sqrt(ns2)) / d))))
    best = 1.0
    for M in (m_star * f_ for f_ in (0.8, 0.9, 1.0, 1.1, 1.25)):
        best = min(best, (2 * M + 1) * d / 2 + 2 * math.exp(-((M + 1) ** 2) / (2 * ns2)))
    return best
