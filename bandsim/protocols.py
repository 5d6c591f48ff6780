"""The per-batch privacy protocols of Chowdhury & Zhou, as objects of their own.

A batch of n users who pulled the same arm runs the protocol P = (R, S, A)
(seed 003, Section 3.2): each user's randomizer R encodes her reward at
precision g with randomized rounding, adds discrete noise and reduces mod m;
secure aggregation S reveals only the sum mod m; the analyzer A corrects
underflow with the accuracy τ and divides by g. :func:`mechanism` derives
(g, τ, m, noise) for one batch exactly as the seed's theorems prescribe and
returns a :class:`Mechanism` that can be studied outside any bandit::

    from bandsim import protocols
    mech = protocols.mechanism("dist-dp", n=64, epsilon=0.5, p=0.1)
    mech.g, mech.tau, mech.m, mech.bits       # 4, 24, 305, 9
    z = mech.outputs([0.3] * 64, size=10_000, rng=1)              # batched
    z2 = mech.outputs([0.3] * 64, size=10_000, rng=2, path="per-user")

Mechanisms (``name``):

========================  =========  ====================================
name                      seed 003   noise and guarantee
========================  =========  ====================================
``dist-dp``               Thm 1      Pólya pairs → Lap_Z(g/ε); ε-DP
``dist-rdp``              Thm 2      Skellam Sk(0, g²/ε²); RDP ε̂(α)
``dist-cdp``              Thm 4      discrete Gaussian; ρ-zCDP
``central``               Thm 5      Lap_Z(g/ε) added by A; central ε-DP
``local``                 Thm 6      Lap_Z(g/ε) per user; local ε-DP
``dist-dp-shuffle``       Thm 3      Thm 1 at ε/2 over (ε/4, q̂)-SecAgg
========================  =========  ====================================

Each mechanism also carries the tail constants (σ, h) of Assumption 1 /
Lemma 2 (seed 003, Appendix B): with probability ≥ 1 − 2p the analyzer's
error |A(ŷ) − Σ x_i| is at most σ sqrt(log(2/p)) + h log(2/p). Every proof
(Theorems 1–6) splits the error into Term (ii), the randomized rounding,
which is (n/g²)-sub-Gaussian and contributes sqrt(2n)/g to σ (Lemma 6), and
Term (i) ≤ τ'/g, where τ' is the noise's tail bound at level p (the real
number whose ceiling is τ):

* ``dist-dp``, ``central``: Lap_Z(g/ε) tail (Fact 2) → h = 1/ε.
* ``dist-rdp``: Proposition 1, |X| ≤ 2(g/ε) sqrt(L) + sqrt(2) L →
  σ += 2/ε, h = sqrt(2)/g.
* ``dist-cdp``: the sum is (g²/ε²)-sub-Gaussian (Fact 3, Lemma 6),
  |X| ≤ (g/ε) sqrt(2L) → σ += sqrt(2)/ε, h = 0.
* ``local``: Lemma 5, |X| ≤ c (g/ε) max(sqrt(2nL), 2L) → σ += c sqrt(2n)/ε,
  h = 2c/ε, with c = 2 sqrt(2(cosh 1 − 1)) (derived in :data:`LOCAL_C`).
* ``dist-dp-shuffle``: as ``dist-dp`` at ε' = ε/2.

(L = log(2/p).) For ``dist-dp`` these are exactly the constants σ = √2/ε,
h = 1/ε that Section 6 of seed 003 states, up to g = ⌈ε√n⌉ ≥ ε√n.

References
----------
seed 003 (Chowdhury & Zhou, arXiv version): Algorithms 2, 3 (R, A);
Theorems 1–6; Lemma 2, eq. (2); Appendix C.2 (relaxed SecAgg); Appendix E
(discrete Gaussian); Appendix G (central and local models).
"""
import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .errors import ConfigError, check_int, check_range

#: Largest modulus we allow: y + η and partial modular sums stay in int64.
MAX_MODULUS = 2**62

#: Constant c of Lemma 5 (seed 003, Appendix G.2), which the seed leaves as
#: "some absolute constant". Derivation: for X ~ Lap_Z(b), E e^{λX} =
#: 1/(1 − v (cosh λ − 1)) with v = Var X = 2β/(1−β)² ≤ 2b². For |λ| ≤ 1,
#: cosh λ − 1 ≤ c₁ λ²/2 with c₁ = 2(cosh 1 − 1); and 1/(1−u) ≤ e^{2u} for
#: u ≤ 1/2. So X is (2c₁v, sqrt(c₁ v))-sub-exponential (Lemma 7 convention),
#: and by Lemma 9 |Σ_{i≤n} X_i| ≤ 2 sqrt(2c₁) b max(sqrt(nL), L) w.p. ≥ 1 − p,
#: which is c b max(sqrt(2nL), 2L) with c = 2 sqrt(c₁).
LOCAL_C = 2.0 * math.sqrt(2.0 * (math.cosh(1.0) - 1.0))

NAMES = ("dist-dp", "dist-rdp", "dist-cdp", "central", "local", "dist-dp-shuffle")

_THEOREM = {"dist-dp": "seed 003 Theorem 1", "dist-rdp": "seed 003 Theorem 2",
            "dist-cdp": "seed 003 Theorem 4", "central": "seed 003 Theorem 5",
            "local": "seed 003 Theorem 6", "dist-dp-shuffle": "seed 003 Theorem 3"}


def _code(name):
    from bandsim.kernels import secagg

    return {"dist-dp": secagg.DIST_DP, "dist-rdp": secagg.DIST_RDP,
            "dist-cdp": secagg.DIST_CDP, "central": secagg.CENTRAL,
            "local": secagg.LOCAL, "dist-dp-shuffle": secagg.DIST_DP_SHUFFLE}[name]


@dataclass(frozen=True)
class Mechanism:
    """One batch of the protocol P = (R, S, A), fully parameterised.

    Attributes
    ----------
    name : str
        One of :data:`NAMES`.
    n : int
        Users in the batch, l(b).
    epsilon : float
        The privacy level ε the theorem is instantiated with (per batch).
    p : float
        Confidence p used in τ (and in Lemma 2's β(b)).
    scale : float
        Scaling factor s (``dist-rdp``, ``dist-cdp``; 1 otherwise).
    g, tau, m : int
        Precision g, accuracy τ, modulus m = n g + 2τ + 1.
    bits : int
        Communication per user, ⌈log₂ m⌉ bits.
    code : int
        Mechanism code of :mod:`kernels.secagg`.
    fpar : tuple of float; ipar : tuple of int
        Kernel parameters (``ipar = (g, τ, m)``).
    sigma, h : float
        Tail constants of Assumption 1 (module docstring).
    noise : str
        The total noise Σ η_i, in words.
    noise_variance : float
        Var Σ η_i (integer units of the encoded sum).
    privacy : dict
        The guarantee in the seed's own terms.
    extra : dict
        Mechanism-specific numbers (e.g. the discrete-Gaussian distance bound).
    """

    name: str
    n: int
    epsilon: float
    p: float
    scale: float
    g: int
    tau: int
    m: int
    bits: int
    code: int
    fpar: tuple
    ipar: tuple
    sigma: float
    h: float
    noise: str
    noise_variance: float
    privacy: dict
    extra: dict = field(default_factory=dict)

    @property
    def theorem(self):
        return _THEOREM[self.name]

    def info(self):
        """Per-batch numbers for reports: n, g, τ, m, bits, σ, h (+ extras)."""
        return dict(n=self.n, g=self.g, tau=self.tau, m=self.m, bits=self.bits,
                    sigma=self.sigma, h=self.h, **self.extra)

    def _arrays(self):
        fpar = np.zeros(4)
        fpar[:len(self.fpar)] = self.fpar
        return fpar, np.array(self.ipar, np.int64)

    def outputs(self, x, size=1, rng=None, path="batched"):
        """Analyzer outputs z (float64 (size,), reward units) for fixed rewards x.

        Parameters
        ----------
        x : array_like of float, shape (n,)
            The users' rewards in [0, 1].
        size : int
            Independent repetitions of the protocol on the same inputs.
        rng : numpy.random.Generator or int, optional
        path : {"batched", "per-user"}
            ``per-user`` runs R for every user and S as a modular sum;
            ``batched`` draws the randomized rounding of every user (Σ x̂),
            then the total noise in closed form and one reduction mod m.
        """
        from bandsim.kernels import secagg

        x = np.ascontiguousarray(x, dtype=np.float64)
        if x.shape != (self.n,) or np.any((x < 0) | (x > 1)):
            raise ConfigError("x", f"shape {x.shape}", f"must be {self.n} rewards in [0, 1]")
        size = check_int("size", size, 1)
        rng = np.random.default_rng(rng)
        fpar, ipar = self._arrays()
        if path == "per-user":
            return secagg.draw_per_user_given(rng, self.code, x, fpar, ipar, size)
        if path != "batched":
            raise ConfigError("path", path, "must be 'batched' or 'per-user'")
        y = x * self.g
        base = np.floor(y)
        frac = y - base
        xhat = np.full(size, int(base.sum()), np.int64)
        moving = frac > 0
        if moving.any():  # randomized rounding: a Poisson-binomial count
            f = frac[moving]
            for start in range(0, size, max(1, 2**20 // f.size)):
                stop = min(size, start + max(1, 2**20 // f.size))
                xhat[start:stop] += (rng.random((stop - start, f.size)) < f).sum(1)
        return secagg.draw_batched_given(rng, self.code, xhat, self.n, fpar, ipar)

    def estimates(self, mean, size=1, rng=None, path="batched", rewards="bernoulli",
                  sigma=0.1):
        """Analyzer outputs for n fresh rewards of an arm with the given mean.

        ``rewards`` is ``"bernoulli"`` (Σ x̂ = g · Binomial) or ``"gaussian"``
        (clip(N(mean, sigma²), 0, 1); batched sums of more than 64 users use
        the moment-matched normal of :func:`kernels.rewards.encoded_sum`).
        """
        from bandsim.kernels import rewards as kr
        from bandsim.kernels import secagg

        from .instances import clipped_gaussian_moments

        mean = check_range("mean", mean, 0.0, 1.0, lo_open=False, hi_open=False)
        size = check_int("size", size, 1)
        rng = np.random.default_rng(rng)
        if rewards == "bernoulli":
            rcode, rpar = kr.BERNOULLI, np.array([mean, 0.0, 0.0, 0.0])
        elif rewards == "gaussian":
            m1, var = clipped_gaussian_moments(mean, sigma)
            rcode, rpar = kr.CLIPPED_GAUSSIAN, np.array([mean, sigma, m1, var])
        else:
            raise ConfigError("rewards", rewards, "must be 'bernoulli' or 'gaussian'")
        fpar, ipar = self._arrays()
        if path not in ("batched", "per-user"):
            raise ConfigError("path", path, "must be 'batched' or 'per-user'")
        return secagg.draw(rng, self.code, rcode, rpar, self.n, fpar, ipar, size,
                           path == "per-user")

    def total_noise(self, size=1, rng=None, path="batched"):
        """Draws of the total noise Σ η_i (int64 (size,)), batched or per user."""
        from bandsim.kernels import secagg

        rng = np.random.default_rng(rng)
        fpar, _ = self._arrays()
        return secagg.draw_total_noise(rng, self.code, self.n, fpar,
                                       check_int("size", size, 1), path == "per-user")


def check_protocol_params(n, epsilon, p, scale=1.0):
    """Validate (n, ε, p, s); returns them as (int, float, float, float).

    Raises
    ------
    ConfigError
        n < 1, ε ≤ 0, p ∉ (0, 1) or s < 1.
    """
    n = check_int("n", n, 1)
    epsilon = check_range("epsilon", epsilon, 0.0, None)
    p = check_range("p", p, 0.0, 1.0)
    scale = check_range("scale", scale, 1.0, None, lo_open=False)
    return n, epsilon, p, scale


def _laplace_noise(epsilon, g):
    """(q, β) of Lap_Z(g/ε): β = e^{−ε/g}, q = 1 − β (full precision)."""
    a = epsilon / g
    return -math.expm1(-a), math.exp(-a)


def dlaplace_variance(epsilon, g):
    """Var Lap_Z(g/ε) = 2β/(1 − β)², β = e^{−ε/g}."""
    q, beta = _laplace_noise(epsilon, g)
    return 2.0 * beta / (q * q)


def skellam_rdp(alpha, epsilon, scale, n=None, g=None):
    """ε̂(α) of Theorem 2 (seed 003), or the per-batch value from its Lemma 3.

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
    j = np.arange(2, J + 1, dtype=float)
    terms = a / j
    top = terms.max() if terms.size else 0.0
    s = np.exp(terms - top).sum() if terms.size else 0.0
    if n > J:  # e^{a/j} ≤ 1 + (a/j) e^{a/J} for j > J  (a/j ≤ a/J ≤ 1/20)
        tail = (n - J) + a * math.exp(a / J) * (math.log(n) - math.log(J))
        s += tail * math.exp(-top)
    return top + math.log(s)


def dgauss_xi_log(n, sigma2):
    """log ξ with ξ = 10 Σ_{k=1}^{n−1} e^{−2π²σ² k/(k+1)} (seed 003 Lemma 4; KLS21).

    Uses Σ_{k=1}^{n−1} e^{−a k/(k+1)} = e^{−a} Σ_{j=2}^{n} e^{a/j}, a = 2π²σ²;
    returns −inf for n = 1.
    """
    if n <= 1:
        return -math.inf
    a = 2 * math.pi**2 * sigma2
    return math.log(10.0) - a + _log_sum_exp_a_over_j(a, n)


def dgauss_epsilon_hat(epsilon, xi):
    """ε̂ = min{sqrt(ε² + ξ/2), ε + ξ} of Lemma 4 / Theorem 4 (seed 003)."""
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
    Both laws are nσ²-sub-Gaussian (seed 003 Fact 3), so for any M ≥ 0
    TV ≤ (2M + 1) D / 2 + 2 exp(−(M + 1)²/(2nσ²)); we minimise over M.
    The integral is evaluated on a fine grid in log space (k ≤ 3 terms of
    Δ; the k ≥ 4 terms are below e^{−18π²σ²} relative to k = 1). For σ ≥ 1
    the bound is below 1e−5 for every n; for σ ≥ 10 (s ≥ 10) it underflows to 0.

    References
    ----------
    seed 003, Appendix E (Definition 11, Fact 3, Lemma 4 after KLS21).
    """
    if n <= 1:
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


def _finish(name, n, epsilon, p, scale, g, tau_real, fpar, sigma, h, noise, variance,
            privacy, extra=None):
    tau = math.ceil(tau_real)
    m = n * g + 2 * tau + 1
    if m > MAX_MODULUS:
        raise ConfigError("epsilon", epsilon,
                          f"modulus m = n g + 2τ + 1 = {m:.3g} for a batch of n = {n:,} "
                          f"users exceeds the int64-safe limit 2^62; lower ε, the scale s "
                          f"or the horizon")
    return Mechanism(name=name, n=n, epsilon=epsilon, p=p, scale=scale, g=g, tau=tau, m=m,
                     bits=math.ceil(math.log2(m)), code=_code(name), fpar=tuple(fpar),
                     ipar=(g, tau, m), sigma=sigma, h=h, noise=noise,
                     noise_variance=variance, privacy=privacy, extra=extra or {})


def mechanism(name, n, epsilon, p=0.1, scale=1.0, relax_q=None):
    """Parameters of one batch of the protocol, exactly as seed 003 prescribes.

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.
    n : int
        Users in the batch (n = l(b)).
    epsilon : float
        ε > 0 of the theorem. For ``dist-dp-shuffle`` this is the total ε;
        the SecAgg noise then uses ε' = ε/2 and the relaxation ε̂ = ε/4.
    p : float
        Confidence p ∈ (0, 1) of τ (Theorem 3: p').
    scale : float
        Scaling factor s ≥ 1 (``dist-rdp``, ``dist-cdp``).
    relax_q : float, optional
        q̂ of the relaxed SecAgg (``dist-dp-shuffle``); defaults to p
        (Theorem 3 sets q̂ = p' = 1/(2T)).

    Returns
    -------
    Mechanism

    Raises
    ------
    ConfigError
        On an unknown name, n < 1, ε ≤ 0, p ∉ (0, 1), s < 1, or a modulus
        beyond the int64-safe range.

    References
    ----------
    g, τ, m: seed 003 Theorem 1 (g = ⌈ε√n⌉, τ = ⌈(g/ε) log(2/p)⌉),
    Theorem 2 (g = ⌈sε√n⌉, τ = ⌈(2g/ε) sqrt(log(2/p)) + √2 log(2/p)⌉),
    Theorem 3 (Theorem 1 with ε' = ε/2, p'), Theorem 4 (g = ⌈sε√n⌉,
    τ = ⌈(g/ε) sqrt(2 log(2/p))⌉), Theorem 5 (as Theorem 1), Theorem 6
    (g = ⌈ε√n⌉, τ = ⌈(c g/ε) sqrt(2 n log(2/p))⌉ — we use
    max(sqrt(2nL), 2L) so the tail bound of Lemma 5 holds for every n, which
    equals the theorem's τ when n ≥ 2 log(2/p), its stated condition);
    m = n g + 2τ + 1 throughout.
    """
    if name not in NAMES:
        raise ConfigError("mechanism", name, f"must be one of {', '.join(NAMES)}")
    n, epsilon, p, scale = check_protocol_params(n, epsilon, p, scale)
    L = math.log(2 / p)
    rounding = math.sqrt(2 * n)  # Term (ii): sqrt(2n)/g after division by g
    if name in ("dist-dp", "central", "dist-dp-shuffle"):
        eps = epsilon / 2 if name == "dist-dp-shuffle" else epsilon
        g = math.ceil(eps * math.sqrt(n))
        q, beta = _laplace_noise(eps, g)
        fpar = [q, beta]
        extra = {}
        if name == "dist-dp-shuffle":
            qhat = p if relax_q is None else check_range("relax_q", relax_q, 0.0, 1.0,
                                                         lo_open=False)
            fpar.append(qhat)
            extra = dict(relax_q=qhat)
            privacy = dict(guarantee="pure DP (distributed, secure shuffling)", epsilon=epsilon,
                           epsilon_secagg=eps, epsilon_relaxation=epsilon / 4, relax_q=qhat,
                           composition="ε = 2 ε̂ + ε' (seed 003, proof of Theorem 3)")
        else:
            model = "central" if name == "central" else "distributed, SecAgg"
            privacy = dict(guarantee=f"pure DP ({model})", epsilon=epsilon)
        where = "added by the analyzer" if name == "central" else "sum of Pólya pairs"
        return _finish(name, n, epsilon, p, scale if name != "dist-dp" else 1.0, g,
                       g / eps * L, fpar, rounding / g, 1.0 / eps,
                       f"Lap_Z(g/ε) ({where})", dlaplace_variance(eps, g), privacy, extra)
    if name == "local":
        g = math.ceil(epsilon * math.sqrt(n))
        q, beta = _laplace_noise(epsilon, g)
        tau = LOCAL_C * g / epsilon * max(math.sqrt(2 * n * L), 2 * L)
        return _finish(name, n, epsilon, p, 1.0, g, tau, [q, beta],
                       LOCAL_C * rounding / epsilon + rounding / g, 2 * LOCAL_C / epsilon,
                       "sum of n Lap_Z(g/ε) = NB(n, q) − NB(n, q)",
                       n * dlaplace_variance(epsilon, g),
                       dict(guarantee="pure DP (local)", epsilon=epsilon))
    g = math.ceil(scale * epsilon * math.sqrt(n))
    var = g * g / epsilon**2
    if name == "dist-rdp":
        alphas = list(range(2, 33))
        privacy = dict(guarantee="RDP (distributed, SecAgg)", epsilon=epsilon, scale=scale,
                       rdp_alpha=alphas,
                       rdp_epsilon=[skellam_rdp(a, epsilon, scale) for a in alphas],
                       formula="ε̂(α) = αε²/2 + min{(2α−1)ε²/(4s²) + 3ε/(2s³), 3ε²/(2s)}")
        extra = dict(rdp_epsilon_2=skellam_rdp(2, epsilon, scale, g=g))
        return _finish(name, n, epsilon, p, scale, g,
                       2 * g / epsilon * math.sqrt(L) + math.sqrt(2) * L, [var / 2],
                       2 / epsilon + rounding / g, math.sqrt(2) / g,
                       "Sk(0, g²/ε²) (sum of n Sk(0, g²/(nε²)))", var, privacy, extra)
    # dist-cdp
    s2 = var / n  # per-user σ² = g²/(n ε²) ≥ s²
    log_xi = dgauss_xi_log(n, s2)
    xi = math.exp(log_xi) if log_xi > -745 else 0.0
    eps_hat = dgauss_epsilon_hat(epsilon, xi)
    tv = dgauss_sum_tv_bound(n, s2)
    privacy = dict(guarantee="zCDP (distributed, SecAgg)", epsilon=epsilon, scale=scale,
                   epsilon_hat=eps_hat, rho=eps_hat**2 / 2, xi=xi,
                   log10_xi=float(log_xi / math.log(10)))
    extra = dict(rho=eps_hat**2 / 2, dgauss_tv_bound=tv)
    return _finish(name, n, epsilon, p, scale, g, g / epsilon * math.sqrt(2 * L), [var],
                   math.sqrt(2) / epsilon + rounding / g, 0.0,
                   "Σ of n N_Z(0, g²/(nε²)) ≈ N_Z(0, g²/ε²) (batched; TV ≤ dgauss_tv_bound)",
                   var, privacy, extra)


__all__ = ["LOCAL_C", "MAX_MODULUS", "Mechanism", "NAMES", "check_protocol_params",
           "dgauss_epsilon_hat", "dgauss_sum_tv_bound", "dgauss_xi_log", "dlaplace_variance",
           "mechanism", "skellam_rdp"]
