"""Asymptotic regret lower bounds for Bernoulli instances (theory overlays of ``bandsim plot``).

Both are lim inf statements: Reg(T) / ln T is at least the constant as T → ∞.
"""
import numpy as np


def lai_robbins_constant(means):
    """Σ_a Δ_a / kl(μ_a, μ*) over suboptimal arms of a Bernoulli instance.

    Lai & Robbins, "Asymptotically efficient adaptive allocation rules",
    Advances in Applied Mathematics 6 (1985), Theorem 2: every uniformly
    good policy has lim inf_T Reg(T) / ln T ≥ this constant.

    Parameters
    ----------
    means : float64 (K,)
        Bernoulli means μ_a.

    Returns
    -------
    float
    """
    return dp_lower_constant(means, np.inf)  # 6εΔ never binds without privacy


def dp_lower_constant(means, epsilon):
    """Σ_a Δ_a / min(kl(μ_a, μ*), 6 ε Δ_a) over suboptimal arms of a Bernoulli instance.

    Azize & Basu, "When Privacy Meets Partial Information: A Refined Analysis
    of Differentially Private Bandits", NeurIPS 2022, Theorem 3: under ε-global
    DP, lim inf_T Reg(T) / ln T ≥ Σ_a Δ_a / min(KL(ν_a, ν*), 6 ε TV(ν_a, ν*));
    for Bernoulli arms TV(ν_a, ν*) = Δ_a.

    Parameters
    ----------
    means : float64 (K,)
    epsilon : float
        ε of the ε-DP guarantee (ε > 0; ``inf``: no privacy, the Lai–Robbins constant).

    Returns
    -------
    float
    """
    mu = np.asarray(means, dtype=np.float64)
    best = mu.max()
    total = 0.0
    for m in mu[mu < best]:
        d = best - m
        total += d / min(_kl(m, best), 6.0 * epsilon * d)
    return total


def _kl(p, q):
    """Bernoulli KL divergence kl(p, q) in nats (0 · ln 0 = 0)."""
    out = 0.0
    if p > 0:
        out += p * np.log(p / q)
    if p < 1:
        out += (1 - p) * np.log((1 - p) / (1 - q))
    return float(out)
