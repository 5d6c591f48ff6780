"""Discrete noise samplers of the distributed-DP protocols (Numba).

Every sampler takes a ``numpy.random.Generator`` and returns an int64. The
parameterisations follow seed 003 (Chowdhury & Zhou):

``polya(rng, r, beta)``
    Pólya(r, β), pmf Γ(x + r)/(x! Γ(r)) β^x (1 − β)^r on x ≥ 0, sampled as
    Poisson(λ) with λ ~ Gamma(shape r, scale β/(1 − β)) (seed 003, Fact 1 and
    its footnote 6). It is the negative binomial NB(r, 1 − β) with real r.
``discrete_laplace(rng, q)``
    Lap_Z(b), pmf (e^{1/b} − 1)/(e^{1/b} + 1) e^{−|x|/b} (seed 003,
    Definition 4), as the difference of two i.i.d. geometric counts of
    failures with success probability q = 1 − β, β = e^{−1/b} (seed 003,
    proof of Lemma 5). Passing q (computed as ``-expm1(-1/b)``) keeps full
    precision when b is large.
``discrete_laplace_sum(rng, n, q)``
    The sum of n i.i.d. Lap_Z(b): NB(n, q) − NB(n, q), the difference of two
    negative binomials (a sum of n geometrics is NB(n, q)).
``skellam(rng, mu)``
    Sk(0, 2 mu): Poisson(mu) − Poisson(mu) (seed 003, Definition 5 and the
    remark after it: Sk(0, σ²) = Poisson(σ²/2) − Poisson(σ²/2)).
``discrete_gaussian(rng, sigma2)``
    N_Z(0, σ²), pmf ∝ exp(−x²/2σ²) (seed 003, Definition 11), by the exact
    rejection sampler of Canonne, Kamath & Steinke (NeurIPS 2020,
    Algorithm 3): t = ⌊σ⌋ + 1, propose Y ~ Lap_Z(t), accept with probability
    exp(−(|Y| − σ²/t)² / (2σ²)). The Bernoulli(exp(−γ)) acceptance is a
    float64 uniform compared with ``exp(−γ)`` (exact up to the 2^−53
    resolution of the uniform), not the rational von Neumann procedure.

References
----------
seed 003, Section 4 (Definition 4, Fact 1), Section 5 (Definition 5),
Appendix E (Definition 11), Appendix G.2 (Lemma 5); Canonne, Kamath &
Steinke (2020), "The Discrete Gaussian for Differential Privacy", Alg. 3.
"""
import math

from ._jit import jit


@jit
def polya(rng, r, beta):
    """One Pólya(r, β) draw (int64), as Poisson(Gamma(r, β/(1 − β)))."""
    if beta <= 0.0:
        return 0
    lam = rng.gamma(r, beta / (1.0 - beta))
    return rng.poisson(lam)


@jit
def geometric_failures(rng, q):
    """Failures before the first success, success probability q ∈ (0, 1] (int64)."""
    return rng.geometric(q) - 1


@jit
def discrete_laplace(rng, q):
    """One Lap_Z(b) draw (int64); ``q = 1 − e^{−1/b}``."""
    return geometric_failures(rng, q) - geometric_failures(rng, q)


@jit
def discrete_laplace_sum(rng, n, q):
    """Sum of ``n`` i.i.d. Lap_Z(b) draws (int64) as NB(n, q) − NB(n, q)."""
    if n <= 0:
        return 0
    return rng.negative_binomial(n, q) - rng.negative_binomial(n, q)


@jit
def skellam(rng, mu):
    """One Sk(0, 2 mu) draw (int64): Poisson(mu) − Poisson(mu)."""
    if mu <= 0.0:
        return 0
    return rng.poisson(mu) - rng.poisson(mu)


@jit
def discrete_gaussian(rng, sigma2):
    """One N_Z(0, σ²) draw (int64) by the Canonne–Kamath–Steinke rejection sampler.

    Parameters
    ----------
    sigma2 : float
        σ² > 0 (variance parameter of the pmf ∝ exp(−x²/2σ²)); 0 returns 0.
    """
    if sigma2 <= 0.0:
        return 0
    t = math.floor(math.sqrt(sigma2)) + 1.0
    q = -math.expm1(-1.0 / t)
    c = sigma2 / t
    while True:
        y = discrete_laplace(rng, q)
        d = abs(y) - c
        if rng.random() < math.exp(-d * d / (2.0 * sigma2)):
            return y
