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


def _characteristic_time(costs, K, ftol, maxiter):
    """1 / max_{w∈Σ_K} min_a costs(w)_a, by SLSQP on the epigraph from the uniform allocation."""
    from scipy.optimize import minimize

    x0 = np.append(np.full(K, 1 / K), costs(np.full(K, 1 / K)).min())
    cons = [{"type": "eq", "fun": lambda v: v[:K].sum() - 1},
            {"type": "ineq", "fun": lambda v: costs(v[:K]) - v[K]}]
    res = minimize(lambda v: -v[K], x0, method="SLSQP", bounds=[(0, 1)] * K + [(0, None)],
                   constraints=cons, options={"ftol": ftol, "maxiter": maxiter})
    return float(1 / costs(res.x[:K]).min())


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
    mu = _check(means)
    best = int(mu.argmax())
    others = [a for a in range(mu.size) if a != best]
    K = mu.size

    def costs(w):
        w = np.maximum(w, 1e-12)
        wb, wa = w[best], w[others]
        x = (wb * mu[best] + wa * mu[others]) / (wb + wa)
        return wb * _kl(mu[best], x) + wa * _kl(mu[others], x)

    return _characteristic_time(costs, K, ftol=1e-14, maxiter=500)


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


def _d_plus(mu, x, eps):
    """d⁺_ε(μ, x) of Jourdan & Azize (NeurIPS 2025), Bernoulli, vectorised in x (float64)."""
    x = np.asarray(x, float)
    g = mu * math.exp(eps) / (mu * math.expm1(eps) + 1) if math.isfinite(eps) else 1.0
    tail = -np.log1p(-x * -math.expm1(-eps)) - eps * mu if math.isfinite(eps) else 0.0
    return np.where(x <= mu, 0.0, np.where(x <= g, _kl(mu, x), tail))


def _private_cost(mu_i, mu_a, w_i, w_a, eps):
    """C*_ε(i, a, μ, w) = inf_x w_i d⁻_ε(μ_i, x) + w_a d⁺_ε(μ_a, x) (float; μ_i > μ_a)."""
    from scipy.optimize import minimize_scalar

    def f(x):
        return float(w_i * _d_plus(1 - mu_i, 1 - x, eps) + w_a * _d_plus(mu_a, x, eps))

    return minimize_scalar(f, bounds=(mu_a, mu_i), method="bounded",
                           options={"xatol": 1e-12}).fun


def privacy_free_epsilon(means):
    """ε above which T*_ε = T*_KL: max_{a≠a*} ln(μ*(1−μ_a)/(μ_a(1−μ*))) (float).

    Jourdan & Azize, "Differentially Private Best-Arm Identification with a
    Top Two algorithm" (NeurIPS 2025), the condition under which privacy is
    free in their lower bound.

    Parameters
    ----------
    means : float64 (K,)
        Bernoulli means in (0, 1) with a unique best arm.
    """
    mu = _check(means)
    best = mu.max()
    others = np.delete(mu, mu.argmax())
    return float(np.max(np.log(best * (1 - others) / (others * (1 - best)))))


def t_star_eps(means, epsilon):
    """T*_ε(ν), the private characteristic time of Jourdan & Azize (NeurIPS 2025), float.

    T*_ε(ν)⁻¹ = max_{w∈Σ_K} min_{a≠a*} C*_ε(a*, a, ν, w), with
    C*_ε(i, a, μ, w) = inf_{x∈[0,1]} w_i d⁻_ε(μ_i, x) + w_a d⁺_ε(μ_a, x),
    d⁺_ε(μ, x) = 0 (x ≤ μ), kl(μ, x) (μ < x ≤ g⁻_ε(μ)),
    −ln(1 − x(1 − e^−ε)) − εμ (x > g⁻_ε(μ)), g⁻_ε(μ) = μe^ε/(μ(e^ε − 1) + 1),
    d⁻_ε(μ, x) = d⁺_ε(1 − μ, 1 − x). Their lower bound is
    E[τ] ≥ T*_ε(ν) ln(1/(3δ)) for any δ-correct ε-global-DP strategy; it is
    at least the thesis' T*_KL and equals it for ε ≥
    :func:`privacy_free_epsilon`. The inner infimum is a bounded scalar
    minimisation on [μ_a, μ*] (the cost is convex in x), the outer max the
    same SLSQP epigraph as :func:`t_star_kl`.

    Parameters
    ----------
    means : float64 (K,)
        Bernoulli means in (0, 1) with a unique best arm.
    epsilon : float
        ε > 0 of ε-global DP (``math.inf``: T*_KL).

    Raises
    ------
    ConfigError
        Means outside (0, 1), no unique best arm, or ε ≤ 0.

    References
    ----------
    Jourdan & Azize, NeurIPS 2025, lower bound (Theorem 1) and the d±_ε closed form.
    """
    mu = _check(means)
    if np.any((mu <= 0) | (mu >= 1)):
        raise ConfigError("means", mu.tolist(), "must lie in (0, 1) for T*_ε")
    if not epsilon > 0:
        raise ConfigError("epsilon", epsilon, "must be > 0")
    if epsilon >= privacy_free_epsilon(mu):
        return t_star_kl(mu)
    best = int(mu.argmax())
    others = [a for a in range(mu.size) if a != best]
    K = mu.size

    def costs(w):
        w = np.maximum(w, 1e-12)
        return np.array([_private_cost(mu[best], mu[a], w[best], w[a], epsilon)
                         for a in others])

    return _characteristic_time(costs, K, ftol=1e-12, maxiter=300)
