"""Lower bounds on the expected stopping time of δ-correct ε-DP best-arm identification.

Azize's PhD thesis (Univ. Lille, 2024), Theorem 4.24 and Corollary 4.25
(ε-global DP, any δ-correct strategy, Bernoulli arms):

    E[τ] ≥ max( T*_KL(ν), T*_TV(ν)/ε ) · ln(1/(3δ)),

Proposition 4.26: T*_TV(ν) = 1/Δ_min + Σ_{a≠a*} 1/Δ_a. T*_KL is the
non-private characteristic time of Garivier & Kaufmann, "Optimal Best Arm
Identification with Fixed Confidence" (COLT 2016):
T*_KL(ν)⁻¹ = max_{w∈Σ_K} min_{a≠a*} inf_x [w_* kl(μ_*, x) + w_a kl(μ_a, x)],
where the inner infimum is at the weighted mean x = (w_* μ_* + w_a μ_a)/(w_* + w_a)
(their Lemma 3). Corollary 4.25's max is a valid lower bound; Theorem 4.24's
sup–min coupling can be slightly larger (not computed here).
"""
import math

import numpy as np

from ..errors import ConfigError


def _kl(p, q):
    """Bernoulli relative entropy kl(p, q) (arrays), 0 ln 0 = 0."""
    p = np.asarray(p, float)
    q = np.clip(np.asarray(q, float), 1e-300, 1 - 1e-16)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(p / q), 0.0)
        b = np.where(p < 1, (1 - p) * np.log((1 - p) / (1 - q)), 0.0)
    return a + b


def _check(means):
    mu = np.asarray(means, dtype=np.float64).ravel()
    if mu.size < 2 or np.any(~np.isfinite(mu)) or np.any((mu < 0) | (mu > 1)):
        raise ConfigError("means", mu.tolist(), "must be K ≥ 2 numbers in [0, 1]")
    order = np.sort(mu)
    if order[-1] == order[-2]:
        raise ConfigError("means", mu.tolist(), "must have a unique best arm")
    return mu


def t_star_tv(means):
    """T*_TV(ν) = 1/Δ_min + Σ_{a≠a*} 1/Δ_a (thesis Prop. 4.26), float.

    Parameters
    ----------
    means : float64 (K,)
        Bernoulli means with a unique best arm.
    """
    mu = _check(means)
    gaps = mu.max() - np.delete(mu, mu.argmax())
    return float(1 / gaps.min() + np.sum(1 / gaps))


def t_star_kl(means):
    """T*_KL(ν), the non-private characteristic time (Garivier & Kaufmann 2016), float.

    Maximises min_a g_a(w) over the simplex by SLSQP on the epigraph (concave
    problem), from the uniform allocation.

    Parameters
    ----------
    means : float64 (K,)
        Bernoulli means in (0, 1) with a unique best arm.
    """
    from scipy.optimize import minimize

    mu = _check(means)
    best = int(mu.argmax())
    others = [a for a in range(mu.size) if a != best]
    K = mu.size

    def costs(w):
        w = np.maximum(w, 1e-12)
        wb, wa = w[best], w[others]
        x = (wb * mu[best] + wa * mu[others]) / (wb + wa)
        return wb * _kl(mu[best], x) + wa * _kl(mu[others], x)

    x0 = np.append(np.full(K, 1 / K), costs(np.full(K, 1 / K)).min())
    cons = [{"type": "eq", "fun": lambda v: v[:K].sum() - 1},
            {"type": "ineq", "fun": lambda v: costs(v[:K]) - v[K]}]
    res = minimize(lambda v: -v[K], x0, method="SLSQP", bounds=[(0, 1)] * K + [(0, None)],
                   constraints=cons, options={"ftol": 1e-14, "maxiter": 500})
    return float(1 / costs(res.x[:K]).min())


def lower_bound(means, epsilon, delta):
    """max(T*_KL, T*_TV/ε) · ln(1/(3δ)) (thesis Cor. 4.25), in pulls (float).

    Parameters
    ----------
    means : float64 (K,)
        Bernoulli means with a unique best arm.
    epsilon : float
        ε of ε-global DP (``math.inf``: non-private, T*_KL only).
    delta : float
        Risk δ in (0, 1/3).

    Returns
    -------
    dict
        ``t_kl``, ``t_tv``, ``t_star`` (the max) and ``bound``.
    """
    if not 0 < delta < 1 / 3:
        raise ConfigError("delta", delta, "must lie in (0, 1/3) for ln(1/(3δ)) > 0")
    tkl, ttv = t_star_kl(means), t_star_tv(means)
    ts = max(tkl, ttv / epsilon)
    return dict(t_kl=tkl, t_tv=ttv, t_star=ts, bound=ts * math.log(1 / (3 * delta)))
