"""Discrete noise samplers of the distributed-DP protocols (Numba).

Every sampler takes a ``numpy.random.Generator`` and returns an int64. The
parameterisations follow Chowdhury & Zhou, "Distributed Differential Privacy
in Multi-Armed Bandits" (ICLR 2023, arXiv version):

``polya(rng, r, beta)``
    Pólya(r, β), pmf Γ(x + r)/(x! Γ(r)) β^x (1 − β)^r on x ≥ 0, sampled as
    Poisson(λ) with λ ~ Gamma(shape r, scale β/(1 − β)) (Chowdhury & Zhou,
    Section 4, Fact 1 and its footnote). It is the negative binomial
    NB(r, 1 − β) with real r.
``discrete_laplace(rng, q)``
    Lap_Z(b), pmf (e^{1/b} − 1)/(e^{1/b} + 1) e^{−|x|/b} (Chowdhury & Zhou,
    Definition 4), as the difference of two i.i.d. geometric counts of
    failures with success probability q = 1 − β, β = e^{−1/b} (proof of their
    Lemma 5, Appendix G.2). Passing q (computed as ``-expm1(-1/b)``) keeps full
    precision when b is large.
``discrete_laplace_sum(rng, n, q)``
    The sum of n i.i.d. Lap_Z(b): NB(n, q) − NB(n, q), the difference of two
    negative binomials (a sum of n geometrics is NB(n, q)).
``skellam(rng, mu)``
    Sk(0, 2 mu): Poisson(mu) − Poisson(mu) (Chowdhury & Zhou, Section 5,
    Definition 5 and the remark after it: Sk(0, σ²) = Poisson(σ²/2) −
    Poisson(σ²/2)).
``discrete_gaussian(rng, sigma2)``
    N_Z(0, σ²), pmf ∝ exp(−x²/2σ²) (Chowdhury & Zhou, Appendix E,
    Definition 11), by the exact rejection sampler of Canonne, Kamath &
    Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020,
    Algorithm 3): t = ⌊σ⌋ + 1, propose Y ~ Lap_Z(t), accept with probability
    exp(−(|Y| − σ²/t)² / (2σ²)). The Bernoulli(exp(−γ)) acceptance is a
    float64 uniform compared with ``exp(−γ)`` (exact up to the 2^−53
    resolution of the uniform), not the rational von Neumann procedure.

Fail closed. Every sampler raises ``ValueError`` (naming the parameter and
its allowed range) instead of returning a wrong draw: NaN, ±inf, zero or
negative parameters and β ≥ 1 are rejected, and so are parameters whose
draws float64 arithmetic cannot represent exactly. Numba's geometric and
Poisson samplers compute a draw in float64 before converting it to int64,
so we keep every Poisson rate at most :data:`POISSON_MAX` = 2^52 and every
geometric success probability at least :data:`Q_MIN` = 2^−46 (the largest
standard exponential Numba's ziggurat can return is below 45, so a
geometric draw stays below 45 · 2^46 < 2^52). The checks are comparisons
only; for every valid parameter the draws, and their order, are exactly
those of the unchecked samplers.

References
----------
Chowdhury & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits"
(ICLR 2023): Section 4 (Definition 4, Fact 1), Section 5 (Definition 5),
Appendix E (Definition 11), Appendix G.2 (Lemma 5); Canonne, Kamath &
Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020),
Algorithm 3.
"""
import math

import numpy as np

from ._jit import jit, jit_inline

#: Largest Poisson rate a sampler passes to ``Generator.poisson`` (2^52):
#: beyond it float64 no longer resolves the fractional part of the draw.
POISSON_MAX = 2.0**52
#: Smallest geometric success probability q (2^−46, i.e. Lap_Z(b) up to b ≈ 7·10^13).
Q_MIN = 2.0**-46
#: Largest σ² of :func:`discrete_gaussian` (2^90): its proposal Lap_Z(⌊σ⌋ + 1)
#: then has q ≈ 2^−45 ≥ Q_MIN.
SIGMA2_MAX = 2.0**90

#: Sampler provenance: name → the implementation that draws it (recorded in
#: every result; a change here means the random streams may change).
SAMPLERS = {
    "uniform": "Numba Generator.random (53-bit float from the bit generator)",
    "normal": "Numba Generator.standard_normal (NumPy's 256-layer ziggurat)",
    "exponential": "Numba Generator.standard_exponential (NumPy's 256-layer ziggurat)",
    "integers": "Numba Generator.integers (Lemire's bounded integers)",
    "laplace": "Numba Generator.laplace (inversion of one uniform)",
    "gamma": "Numba Generator.gamma (Marsaglia–Tsang for shape ≥ 1, NumPy's rejection "
             "method below)",
    "binomial": "Numba Generator.binomial (inversion for min(p, 1 − p) n ≤ 30, BTPE above)",
    "poisson": "Numba Generator.poisson (multiplication for λ < 10, PTRS above), λ ≤ 2^52",
    "geometric": "Numba Generator.geometric (search for q ≥ 1/3, inversion of an exponential "
                 "below), q ≥ 2^-46",
    "polya": "Poisson(Gamma(r, β/(1 − β))) with Numba Generator.gamma and .poisson",
    "discrete_laplace": "difference of two geometric failure counts, q = 1 − e^{−1/b}",
    "discrete_laplace_sum": "NB(n, q) − NB(n, q), each Poisson(Gamma(n, (1 − q)/q)) as in "
                            "Numba Generator.negative_binomial",
    "skellam": "Poisson(μ) − Poisson(μ)",
    "discrete_gaussian": "Canonne–Kamath–Steinke rejection from Lap_Z(⌊σ⌋ + 1), float64 "
                         "acceptance",
}


@jit
def polya(rng, r, beta):
    """One Pólya(r, β) draw (int64), as Poisson(Gamma(r, β/(1 − β))).

    Parameters
    ----------
    rng : numpy.random.Generator
        The caller's generator (advanced).
    r : float
        Shape, 0 < r < ∞.
    beta : float
        0 < β < 1.

    Raises
    ------
    ValueError
        r or β outside its range (NaN included), or a drawn rate
        λ > :data:`POISSON_MAX` (only possible for β within ~10^−9 of 1).
    """
    if not (r > 0.0 and r < math.inf):
        raise ValueError("polya: r must lie in (0, inf)")
    if not (beta > 0.0 and beta < 1.0):
        raise ValueError("polya: beta must lie in (0, 1)")
    lam = rng.gamma(r, beta / (1.0 - beta))
    if not lam <= POISSON_MAX:
        raise ValueError("polya: Poisson rate lambda ~ Gamma(r, beta/(1 - beta)) above 2**52; "
                         "r beta/(1 - beta) must be far below 2**52")
    return rng.poisson(lam)


@jit
def geometric_failures(rng, q):
    """Failures before the first success (int64), success probability q.

    Parameters
    ----------
    rng : numpy.random.Generator
        The caller's generator (advanced).
    q : float
        Success probability, in [2^−46, 1].

    Returns
    -------
    int64
        The number of failures, ≥ 0.

    Raises
    ------
    ValueError
        q outside [2^−46, 1] (NaN included).
    """
    if not (q >= Q_MIN and q <= 1.0):
        raise ValueError("geometric_failures: q must lie in [2**-46, 1]")
    return rng.geometric(q) - 1


@jit
def discrete_laplace(rng, q):
    """One Lap_Z(b) draw (int64); ``q = 1 − e^{−1/b}`` ∈ [2^−46, 1].

    Parameters
    ----------
    rng : numpy.random.Generator
        The caller's generator (advanced).
    q : float
        1 − e^{−1/b}, in [2^−46, 1] (b: the scale, integer units).

    Returns
    -------
    int64
        Geometric(q) − Geometric(q) (Chowdhury & Zhou, ICLR 2023, Section 4).

    Raises
    ------
    ValueError
        q outside [2^−46, 1] (NaN included).
    """
    if not (q >= Q_MIN and q <= 1.0):
        raise ValueError("discrete_laplace: q must lie in [2**-46, 1]")
    return (rng.geometric(q) - 1) - (rng.geometric(q) - 1)


@jit
def _negative_binomial(rng, n, q):
    """NB(n, q) exactly as Numba's ``Generator.negative_binomial`` draws it,
    Poisson(Gamma(n, (1 − q)/q)), with the Poisson rate checked."""
    lam = rng.gamma(n, (1.0 - q) / q)
    if not lam <= POISSON_MAX:
        raise ValueError("discrete_laplace_sum: Poisson rate lambda ~ Gamma(n, (1 - q)/q) "
                         "above 2**52; n (1 - q)/q must be far below 2**52")
    return rng.poisson(lam)


@jit
def discrete_laplace_sum(rng, n, q):
    """Sum of ``n`` i.i.d. Lap_Z(b) draws (int64) as NB(n, q) − NB(n, q).

    Parameters
    ----------
    rng : numpy.random.Generator
        The caller's generator (advanced).
    n : int
        n ≥ 0 (n = 0 is the empty sum, 0, and draws nothing).
    q : float
        1 − e^{−1/b} ∈ [2^−46, 1].

    Raises
    ------
    ValueError
        n < 0, q outside [2^−46, 1] (NaN included), or a drawn rate above
        :data:`POISSON_MAX` (n (1 − q)/q within a factor ~100 of 2^52).
    """
    if not (q >= Q_MIN and q <= 1.0):
        raise ValueError("discrete_laplace_sum: q must lie in [2**-46, 1]")
    if n < 0:
        raise ValueError("discrete_laplace_sum: n must be >= 0")
    if n == 0:
        return 0
    return _negative_binomial(rng, n, q) - _negative_binomial(rng, n, q)


@jit
def skellam(rng, mu):
    """One Sk(0, 2 mu) draw (int64): Poisson(mu) − Poisson(mu), 0 < mu ≤ 2^52.

    Parameters
    ----------
    rng : numpy.random.Generator
        The caller's generator (advanced).
    mu : float
        Each Poisson's mean, in (0, 2^52] (integer units).

    Returns
    -------
    int64
        The draw (variance 2 mu).

    Raises
    ------
    ValueError
        mu outside (0, 2^52] (NaN included).
    """
    if not (mu > 0.0 and mu <= POISSON_MAX):
        raise ValueError("skellam: mu must lie in (0, 2**52]")
    return rng.poisson(mu) - rng.poisson(mu)


@jit
def discrete_gaussian(rng, sigma2):
    """One N_Z(0, σ²) draw (int64) by the Canonne–Kamath–Steinke rejection sampler.

    Parameters
    ----------
    rng : numpy.random.Generator
        The caller's generator (advanced).
    sigma2 : float
        σ², 0 < σ² ≤ 2^90 (variance parameter of the pmf ∝ exp(−x²/2σ²)).

    Raises
    ------
    ValueError
        σ² outside (0, 2^90] (NaN and inf included).
    """
    if not (sigma2 > 0.0 and sigma2 <= SIGMA2_MAX):
        raise ValueError("discrete_gaussian: sigma2 must lie in (0, 2**90]")
    t = math.floor(math.sqrt(sigma2)) + 1.0
    q = -math.expm1(-1.0 / t)
    c = sigma2 / t
    while True:
        y = discrete_laplace(rng, q)
        d = abs(y) - c
        if rng.random() < math.exp(-d * d / (2.0 * sigma2)):
            return y


@jit_inline
def laplace_draw(rng, scale):
    """Lap(scale) by ``Generator.laplace`` (float64): every Laplace draw of the SVT and
    per-round Thompson engines, so that the sampled audit runs the same function.

    Parameters
    ----------
    rng : numpy.random.Generator
        The caller's generator (advanced).
    scale : float
        The Laplace scale b > 0 (1/ε on a sum of sensitivity 1; Dwork, McSherry,
        Nissim & Smith, TCC 2006), in the statistic's units.

    Returns
    -------
    float64
        One draw of density e^{−|x|/b} / 2b.
    """
    return rng.laplace(0.0, scale)


@jit
def sample_laplace_draws(rng, s, scale, size):
    """``size`` draws of ``s + laplace_draw(rng, scale)`` (float64 (size,)), for the
    sampled privacy audit of the engines that draw with :func:`laplace_draw`."""
    out = np.empty(size)
    for i in range(size):
        out[i] = s + laplace_draw(rng, scale)
    return out
