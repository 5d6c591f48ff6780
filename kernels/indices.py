"""Index functions of the episodic index policies, and the divergences they invert.

Every index has the signature of the plug-in point of
:func:`kernels.episodic.run_shard`::

    index(stat, n, t, c) -> float64

``stat`` (float64) is the arm's private statistic, ``n`` (int64) the count
behind it, ``t`` (int64) the time at which the decision is made (the first
pull of the coming episode, t_ℓ), and ``c`` (float64 (P,)) the parameter
array of the plan. ``c[0]`` is written by the engine before every decision:
it holds max_b stat_b, the leader's statistic (used by IMED-type indices,
ignored by UCB-type ones); the plan's parameters start at ``c[1]``. The
engine pulls the arm with the **largest** index (an argmin rule such as IMED
returns minus its index).

All logarithms are natural.

References
----------
Azize & Basu, "When Privacy Meets Partial Information: A Refined Analysis of
Differentially Private Bandits", NeurIPS 2022, Eq. (7) (AdaP-UCB and
AdaP-KLUCB); Azize, Wu, Honda, Orabona, Ito & Basu, "Optimal Regret of
Bernoulli Bandits under Global Differential Privacy", arXiv 2505.05613
(NeurIPS 2025), the DP-KLUCB and DP-IMED indices and the divergence d_ε;
Garivier & Cappé, "The KL-UCB algorithm for bounded stochastic bandits and
beyond", COLT 2011 (the kl-UCB inversion).
"""
import math

from ._jit import jit

#: q is clipped into [KL_CLIP, 1 − KL_CLIP] inside kl(p, q).
KL_CLIP = 1e-15
#: Halvings of the bisections (60 halvings of [0, 1] leave a width of 1e-18).
BISECTIONS = 60


@jit
def clip01(x):
    """min(1, max(0, x)) (float64)."""
    if x < 0.0:
        return 0.0
    if x > 1.0:
        return 1.0
    return x


@jit
def kl_bernoulli(p, q):
    """kl(p, q) = p ln(p/q) + (1 − p) ln((1 − p)/(1 − q)), 0 ln 0 = 0 (float64).

    ``q`` is clipped into [1e-15, 1 − 1e-15]; ``p`` must lie in [0, 1].
    """
    if q < KL_CLIP:
        q = KL_CLIP
    elif q > 1.0 - KL_CLIP:
        q = 1.0 - KL_CLIP
    r = 0.0
    if p > 0.0:
        r += p * math.log(p / q)
    if p < 1.0:
        r += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return r


@jit
def kl_upper(x, level, hi):
    """max{q ∈ [x, hi] : kl(x, q) ≤ level} by bisection (float64).

    kl(x, ·) increases on [x, 1], so the set is an interval [x, q*]; the
    bisection keeps ``lo`` inside it and returns it after ``BISECTIONS``
    halvings (or when the interval no longer shrinks in float64): a lower
    approximation of q* within 1e-15. Returns ``hi`` if kl(x, hi) ≤ level.
    """
    if x >= hi or kl_bernoulli(x, hi) <= level:
        return hi
    lo = x
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if kl_bernoulli(x, mid) <= level:
            lo = mid
        else:
            hi = mid
    return lo


@jit
def g_eps(x, epsilon):
    """g_ε(x) = x e^ε / (x (e^ε − 1) + 1): where d_ε leaves its kl branch (float64).

    Computed as x / (x + (1 − x) e^{−ε}), which does not overflow for large ε.
    """
    if x <= 0.0:
        return 0.0
    return x / (x + (1.0 - x) * math.exp(-epsilon))


@jit
def d_eps(x, y, epsilon):
    """d_ε(x, y) = inf_{z between x and y} ε|z − x| + kl(z, y), for Bernoulli (float64).

    Closed form for y ≥ x (0 for y ≤ x): kl(x, y) while y ≤ g_ε(x), else
    −ln(1 − y (1 − e^{−ε})) − ε x. It interpolates between kl (ε → ∞) and
    ε·TV (ε → 0); d_ε(x, 1) = ε (1 − x) is finite.

    References
    ----------
    Azize, Wu, Honda, Orabona, Ito & Basu (NeurIPS 2025), the divergence d_ε
    of their lower bound; its Bernoulli closed form as in Jourdan & Azize,
    "Optimal Best Arm Identification under Differential Privacy", NeurIPS 2025.
    """
    if y <= x:
        return 0.0
    if y <= g_eps(x, epsilon):
        return kl_bernoulli(x, y)
    return -math.log1p(-y * (-math.expm1(-epsilon))) - epsilon * x


@jit
def d_eps_upper(x, level, epsilon):
    """max{μ ∈ [x, 1] : d_ε(x, μ) ≤ level} (float64).

    Inversion of :func:`d_eps` branch by branch: 1 if ε(1 − x) ≤ level; on the
    second branch (level ≥ kl(x, g_ε(x))) the closed form
    (1 − e^{−(level + ε x)}) / (1 − e^{−ε}); otherwise the kl branch on
    (x, g_ε(x)] by bisection.
    """
    if epsilon * (1.0 - x) <= level:
        return 1.0
    g = g_eps(x, epsilon)
    if level >= kl_bernoulli(x, g):
        y = -math.expm1(-(level + epsilon * x)) / (-math.expm1(-epsilon))
        return y if y < 1.0 else 1.0
    return kl_upper(x, level, g)


# ------------------------------------------------------------------ indices

@jit
def adap_ucb_index(stat, n, t, c):
    """AdaP-UCB: m + sqrt(α ln t / (2 n)) + α ln t / (ε n).

    ``stat`` = m_a, the private mean of the arm's last episode, ``n`` = its
    size; ``c = [leader, α, ε]``.

    References
    ----------
    Azize & Basu (NeurIPS 2022), Eq. (7), first line (with ½N_a(t_ℓ − 1)
    read as the size n of the last episode).
    """
    a = c[1] * math.log(t)
    return stat + math.sqrt(a / (2.0 * n)) + a / (c[2] * n)


@jit
def adap_klucb_index(stat, n, t, c):
    """AdaP-KLUCB: max{q ∈ [x, 1] : kl(x, q) ≤ α ln t / n}, x = clip(m + α ln t / (ε n)).

    ``c = [leader, α, ε]``.

    References
    ----------
    Azize & Basu (NeurIPS 2022), Eq. (7), second line.
    """
    a = c[1] * math.log(t)
    x = clip01(stat + a / (c[2] * n))
    return kl_upper(x, a / n, 1.0)


@jit
def dp_klucb_index(stat, n, t, c):
    """DP-KLUCB: max{μ ∈ [x, 1] : d_ε(x, μ) ≤ ln t / N}, x = clip(private mean).

    ``stat`` = S̃_a / N_a (cumulative private mean), ``n`` = N_a;
    ``c = [leader, ε]``.

    References
    ----------
    Azize, Wu, Honda, Orabona, Ito & Basu (NeurIPS 2025), DP-KLUCB index.
    """
    return d_eps_upper(clip01(stat), math.log(t) / n, c[1])


@jit
def dp_imed_index(stat, n, t, c):
    """DP-IMED, as a largest-index rule: −(N d_ε(x, x*) + ln N).

    x = clip(private mean), x* = clip(c[0]) = max_b clip(private mean_b);
    the arm with the smallest N d_ε(x, x*) + ln N is pulled. ``c = [leader, ε]``.

    References
    ----------
    Azize, Wu, Honda, Orabona, Ito & Basu (NeurIPS 2025), DP-IMED index
    (IMED of Honda & Takemura, JMLR 2015, with d_ε in place of kl).
    """
    return -(n * d_eps(clip01(stat), clip01(c[0]), c[1]) + math.log(n))
