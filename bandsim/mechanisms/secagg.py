"""The per-batch privacy protocols of Chowdhury & Zhou, as objects of their own.

A batch of n users who pulled the same arm runs the protocol P = (R, S, A)
(Chowdhury & Zhou (2023), Section 3.2): each user's randomizer R encodes her reward at
precision g with randomized rounding, adds discrete noise and reduces mod m;
secure aggregation S reveals only the sum mod m; the analyzer A corrects
underflow with the accuracy τ and divides by g. :func:`mechanism` derives
(g, τ, m, noise) for one batch exactly as the seed's theorems prescribe and
returns a :class:`Mechanism` that can be studied outside any bandit::

    >>> from bandsim.mechanisms.secagg import mechanism
    >>> mech = mechanism("dist-dp", n=64, epsilon=0.5, p=0.1)
    >>> mech.g, mech.tau, mech.m, mech.bits
    (4, 24, 305, 9)
    >>> z = mech.outputs([0.3] * 64, size=10_000, rng=1)                # batched
    >>> z2 = mech.outputs([0.3] * 64, size=10_000, rng=2, path="per-user")

Mechanisms (``name``):

========================  =========  ====================================
name                      Chowdhury & Zhou (2023)   noise and guarantee
========================  =========  ====================================
``dist-dp``               Thm 1      Pólya pairs → Lap_Z(g/ε); ε-DP
``dist-rdp``              Thm 2      Skellam Sk(0, g²/ε²); RDP ε̂(α)
``dist-cdp``              Thm 4      discrete Gaussian; ρ-zCDP
``central``               Thm 5      Lap_Z(g/ε) added by A; central ε-DP
``local``                 Thm 6      Lap_Z(g/ε) per user; local ε-DP
``dist-dp-shuffle``       Thm 3      Thm 1 at ε/2 over (ε/4, q̂)-SecAgg
========================  =========  ====================================

Each mechanism also carries the tail constants (σ, h) of Assumption 1 /
Lemma 2 (Chowdhury & Zhou (2023), Appendix B): with probability ≥ 1 − 2p the analyzer's
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
h = 1/ε that Section 6 of Chowdhury & Zhou (2023) states, up to g = ⌈ε√n⌉ ≥ ε√n.

References
----------
Chowdhury & Zhou (2023): Algorithms 2, 3 (R, A);
Theorems 1–6; Lemma 2, eq. (2); Appendix C.2 (relaxed SecAgg); Appendix E
(discrete Gaussian); Appendix G (central and local models).
"""
import math
from dataclasses import dataclass, field

import numpy as np

from ..compat import positional_deprecated
from ..engines import secagg_kernel
from ..errors import ConfigError, check_int, check_range
from ..instances import clipped_gaussian_moments
from ..kernels import codes
from ..kernels.samplers import POISSON_MAX, Q_MIN, SIGMA2_MAX
from ..registry import get_mechanism
from .noise_bounds import (dgauss_epsilon_hat, dgauss_sum_tv_bound, dgauss_xi_log,
                           dlaplace_variance, laplace_noise, skellam_rdp)

#: Largest modulus we allow: y + η and partial modular sums stay in int64.
MAX_MODULUS = 2**62

#: Constant c of Lemma 5 (Chowdhury & Zhou (2023), Appendix G.2), which the seed leaves as
#: "some absolute constant". Derivation: for X ~ Lap_Z(b), E e^{λX} =
#: 1/(1 − v (cosh λ − 1)) with v = Var X = 2β/(1−β)² ≤ 2b². For |λ| ≤ 1,
#: cosh λ − 1 ≤ c₁ λ²/2 with c₁ = 2(cosh 1 − 1); and 1/(1−u) ≤ e^{2u} for
#: u ≤ 1/2. So X is (2c₁v, sqrt(c₁ v))-sub-exponential (Lemma 7 convention),
#: and by Lemma 9 |Σ_{i≤n} X_i| ≤ 2 sqrt(2c₁) b max(sqrt(nL), L) w.p. ≥ 1 − p,
#: which is c b max(sqrt(2nL), 2L) with c = 2 sqrt(c₁).
LOCAL_C = 2.0 * math.sqrt(2.0 * (math.cosh(1.0) - 1.0))

#: The paper, cited in every declaration of this module.
PAPER = "Chowdhury & Zhou, Distributed Differential Privacy in Multi-Armed Bandits (ICLR 2023)"


@dataclass(frozen=True, kw_only=True)
class Batch:
    """One batch of the protocol P = (R, S, A), fully parameterised.

    Attributes
    ----------
    name : str
        The mechanism's registered name (``bandsim list``).
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
        Mechanism code (:mod:`bandsim.kernels.codes`).
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
    theorem : str
        Source of the parameters and the guarantee (paper, theorem).
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
    theorem: str = ""

    def _kernel(self, name):
        """The SecAgg kernel ``name``, rebound to a plug-in's samplers when it has its own."""
        return secagg_kernel(self.name, name)

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
        x = np.ascontiguousarray(x, dtype=np.float64)
        if x.shape != (self.n,) or np.any((x < 0) | (x > 1)):
            raise ConfigError("x", f"shape {x.shape}", f"must be {self.n} rewards in [0, 1]")
        size = check_int("size", size, 1)
        rng = np.random.default_rng(rng)
        fpar, ipar = self._arrays()
        if path == "per-user":
            return self._kernel("draw_per_user_given")(rng, self.code, x, fpar, ipar, size)
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
        return self._kernel("draw_batched_given")(rng, self.code, xhat, self.n, fpar, ipar)

    def estimates(self, mean, size=1, rng=None, path="batched", rewards="bernoulli",
                  sigma=0.1):
        """Analyzer outputs for n fresh rewards of an arm with the given mean.

        ``rewards`` is ``"bernoulli"`` (Σ x̂ = g · Binomial) or ``"gaussian"``
        (clip(N(mean, sigma²), 0, 1); batched sums of more than 64 users use
        the moment-matched normal of :func:`kernels.rewards.encoded_sum`).
        """
        mean = check_range("mean", mean, 0.0, 1.0, lo_open=False, hi_open=False)
        size = check_int("size", size, 1)
        rng = np.random.default_rng(rng)
        if rewards == "bernoulli":
            rcode, rpar = codes.BERNOULLI, np.array([mean, 0.0, 0.0, 0.0])
        elif rewards == "gaussian":
            m1, var = clipped_gaussian_moments(mean, sigma)
            rcode, rpar = codes.CLIPPED_GAUSSIAN, np.array([mean, sigma, m1, var])
        else:
            raise ConfigError("rewards", rewards, "must be 'bernoulli' or 'gaussian'")
        fpar, ipar = self._arrays()
        if path not in ("batched", "per-user"):
            raise ConfigError("path", path, "must be 'batched' or 'per-user'")
        return self._kernel("draw")(rng, self.code, rcode, rpar, self.n, fpar, ipar, size,
                           path == "per-user")

    def total_noise(self, size=1, rng=None, path="batched"):
        """Draws of the total noise Σ η_i (int64 (size,)), batched or per user."""
        rng = np.random.default_rng(rng)
        fpar, _ = self._arrays()
        return self._kernel("draw_total_noise")(rng, self.code, self.n, fpar,
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

def check_sampler_ranges(code, n, epsilon, fpar, scale=1.0):
    """ConfigError (naming ε or the scale s) unless the kernels' samplers accept the noise parameters.

    The samplers of :mod:`bandsim.kernels.samplers` refuse, inside the kernels,
    a geometric q < 2^−46 (discrete Laplace of scale beyond ~7·10¹³), a
    Poisson rate above 2^52 (Skellam μ; the negative binomials of n discrete
    Laplaces, whose Gamma-distributed rate we require 10 sd below it) and a
    discrete-Gaussian σ² above 2^90: the same limits here give one clear line
    before any work.
    """
    fpar = [float(v) for v in fpar]
    if code in (codes.DIST_DP, codes.CENTRAL, codes.LOCAL, codes.DIST_DP_SHUFFLE):
        q = fpar[0]
        if not q >= Q_MIN:
            raise ConfigError("epsilon", epsilon,
                              f"too small for n = {n:,}: the discrete Laplace noise has q = "
                              f"1 − e^(−ε/g) = {q:.3g}, below the samplers' limit 2^-46 ≈ "
                              f"{Q_MIN:.3g} (ε/g must be at least ~{Q_MIN:.3g})")
        mean = n * (1 - q) / q  # NB(n, q)'s Poisson rate ~ Gamma(n, (1 − q)/q): sd mean/√n
        if code == codes.LOCAL and not mean * (1 + 10 / math.sqrt(n)) <= POISSON_MAX:
            raise ConfigError("epsilon", epsilon,
                              f"too small for n = {n:,}: the sum of n discrete Laplaces is drawn "
                              f"as NB(n, q) − NB(n, q), whose Poisson rate (mean n(1 − q)/q = "
                              f"{mean:.3g}, + 10 sd) must stay below the sampler's 2^52")
    elif code == codes.DIST_RDP:  # μ = g²/(2ε²) ≈ s² n/2: the scale decides, not ε
        if not (0 < fpar[0] / n and fpar[0] <= POISSON_MAX):
            raise ConfigError("scale", scale,
                              f"gives the Skellam noise a Poisson mean μ = g²/(2ε²) ≈ s²n/2 = "
                              f"{fpar[0]:.3g} at n = {n:,}, beyond the sampler's 2^52: lower "
                              f"the scale s (here at most ~{math.sqrt(2 * POISSON_MAX / n):.3g}) "
                              "or the horizon")
    elif code == codes.DIST_CDP:  # σ² = g²/ε² ≈ s² n
        if not (0 < fpar[0] / n and fpar[0] <= SIGMA2_MAX):
            raise ConfigError("scale", scale,
                              f"gives the discrete Gaussian σ² = g²/ε² ≈ s²n = {fpar[0]:.3g} at "
                              f"n = {n:,}, beyond the sampler's 2^90: lower the scale s (here at "
                              f"most ~{math.sqrt(SIGMA2_MAX / n):.3g}) or the horizon")


def _finish(*, name, code, theorem, n, epsilon, p, scale, g, tau_real, fpar, sigma, h, noise,
            variance, privacy, extra=None):
    """The :class:`Batch` of a SecAgg protocol from its precision g, real τ and noise.

    τ = ⌈τ_real⌉ and m = n g + 2τ + 1 (every theorem of the paper).

    Raises
    ------
    ConfigError
        If m exceeds the int64-safe limit 2^62.
    """
    check_sampler_ranges(code, n, epsilon, fpar, scale)
    tau = math.ceil(tau_real)
    m = n * g + 2 * tau + 1
    if m > MAX_MODULUS:
        raise ConfigError("epsilon", epsilon,
                          f"modulus m = n g + 2τ + 1 = {m:.3g} for a batch of n = {n:,} "
                          f"users exceeds the int64-safe limit 2^62; lower ε, the scale s "
                          f"or the horizon")
    return Batch(name=name, n=n, epsilon=epsilon, p=p, scale=scale, g=g, tau=tau, m=m,
                 bits=math.ceil(math.log2(m)), code=code, fpar=tuple(fpar), ipar=(g, tau, m),
                 sigma=sigma, h=h, noise=noise, noise_variance=variance, privacy=privacy,
                 extra=extra or {}, theorem=theorem)


#: The Batch of a SecAgg protocol (keywords only; see :func:`_finish`).
finish = positional_deprecated(_finish, (
    "name", "code", "theorem", "n", "epsilon", "p", "scale", "g", "tau_real", "fpar", "sigma",
    "h", "noise", "variance", "privacy", "extra"), "secagg.finish")


def _laplace_batch(name, code, theorem, n, epsilon, p, model, where, eps=None, fpar_extra=(),
                   privacy=None, extra=None):
    """Theorems 1, 3, 5: g = ⌈ε√n⌉, noise Lap_Z(g/ε), τ = ⌈(g/ε) log(2/p)⌉."""
    n, epsilon, p, _ = check_protocol_params(n, epsilon, p)
    eps = epsilon if eps is None else eps
    g = math.ceil(eps * math.sqrt(n))
    q, beta = laplace_noise(eps, g)
    privacy = privacy or dict(guarantee=f"pure DP ({model})", epsilon=epsilon)
    return finish(name=name, code=code, theorem=theorem, n=n, epsilon=epsilon, p=p, scale=1.0,
                  g=g, tau_real=g / eps * math.log(2 / p), fpar=[q, beta, *fpar_extra],
                  sigma=math.sqrt(2 * n) / g, h=1.0 / eps, noise=f"Lap_Z(g/ε) ({where})",
                  variance=dlaplace_variance(eps, g), privacy=privacy, extra=extra)


def dist_dp(n, epsilon, p=0.1):
    """Theorem 1: Pólya pairs per user, Lap_Z(g/ε) in total; ε-DP (distributed)."""
    return _laplace_batch("dist-dp", codes.DIST_DP, f"{PAPER}, Theorem 1", n, epsilon, p,
                          "distributed, SecAgg", "sum of Pólya pairs")


def central(n, epsilon, p=0.1):
    """Theorem 5 (Algorithms 4, 5): Lap_Z(g/ε) added by the analyzer; central ε-DP."""
    return _laplace_batch("central", codes.CENTRAL, f"{PAPER}, Theorem 5", n, epsilon, p,
                          "central", "added by the analyzer")


def dist_dp_shuffle(n, epsilon, p=0.1, relax_q=None):
    """Theorem 3: Theorem 1 at ε' = ε/2 over an (ε̂ = ε/4, q̂)-relaxed SecAgg (q̂ = p')."""
    qhat = p if relax_q is None else check_range("relax_q", relax_q, 0.0, 1.0, lo_open=False)
    privacy = dict(guarantee="pure DP (distributed, secure shuffling)", epsilon=epsilon,
                   epsilon_secagg=epsilon / 2, epsilon_relaxation=epsilon / 4, relax_q=qhat,
                   composition="ε = 2 ε̂ + ε' (Chowdhury & Zhou, proof of Theorem 3)")
    return _laplace_batch("dist-dp-shuffle", codes.DIST_DP_SHUFFLE, f"{PAPER}, Theorem 3", n,
                          epsilon, p, "", "sum of Pólya pairs", eps=epsilon / 2,
                          fpar_extra=(qhat,), privacy=privacy, extra=dict(relax_q=qhat))


def local(n, epsilon, p=0.1):
    """Theorem 6 (Algorithms 6, 7): Lap_Z(g/ε) per user; local ε-DP.

    τ = ⌈(c g/ε) max(sqrt(2nL), 2L)⌉ with L = log(2/p): the theorem's
    sqrt(2nL) when n ≥ 2L (its stated condition), and Lemma 5's tail for
    every n otherwise.
    """
    n, epsilon, p, _ = check_protocol_params(n, epsilon, p)
    L = math.log(2 / p)
    rounding = math.sqrt(2 * n)
    g = math.ceil(epsilon * math.sqrt(n))
    q, beta = laplace_noise(epsilon, g)
    tau = LOCAL_C * g / epsilon * max(math.sqrt(2 * n * L), 2 * L)
    return finish(name="local", code=codes.LOCAL, theorem=f"{PAPER}, Theorem 6", n=n,
                  epsilon=epsilon, p=p, scale=1.0, g=g, tau_real=tau, fpar=[q, beta],
                  sigma=LOCAL_C * rounding / epsilon + rounding / g, h=2 * LOCAL_C / epsilon,
                  noise="sum of n Lap_Z(g/ε) = NB(n, q) − NB(n, q)",
                  variance=n * dlaplace_variance(epsilon, g),
                  privacy=dict(guarantee="pure DP (local)", epsilon=epsilon))


def dist_rdp(n, epsilon, p=0.1, scale=10.0):
    """Theorem 2: Skellam Sk(0, g²/(nε²)) per user, g = ⌈sε√n⌉; RDP ε̂(α)."""
    n, epsilon, p, scale = check_protocol_params(n, epsilon, p, scale)
    L = math.log(2 / p)
    g = math.ceil(scale * epsilon * math.sqrt(n))
    var = g * g / epsilon**2
    alphas = list(range(2, 33))
    privacy = dict(guarantee="RDP (distributed, SecAgg)", epsilon=epsilon, scale=scale,
                   rdp_alpha=alphas, rdp_epsilon=[skellam_rdp(a, epsilon, scale) for a in alphas],
                   formula="ε̂(α) = αε²/2 + min{(2α−1)ε²/(4s²) + 3ε/(2s³), 3ε²/(2s)}")
    extra = dict(rdp_epsilon_2=skellam_rdp(2, epsilon, scale, g=g))
    return finish(name="dist-rdp", code=codes.DIST_RDP, theorem=f"{PAPER}, Theorem 2", n=n,
                  epsilon=epsilon, p=p, scale=scale, g=g,
                  tau_real=2 * g / epsilon * math.sqrt(L) + math.sqrt(2) * L, fpar=[var / 2],
                  sigma=2 / epsilon + math.sqrt(2 * n) / g, h=math.sqrt(2) / g,
                  noise="Sk(0, g²/ε²) (sum of n Sk(0, g²/(nε²)))", variance=var,
                  privacy=privacy, extra=extra)


def dist_cdp(n, epsilon, p=0.1, scale=10.0):
    """Theorem 4: discrete Gaussian N_Z(0, g²/(nε²)) per user; ρ-zCDP (Lemma 4)."""
    n, epsilon, p, scale = check_protocol_params(n, epsilon, p, scale)
    L = math.log(2 / p)
    g = math.ceil(scale * epsilon * math.sqrt(n))
    var = g * g / epsilon**2
    s2 = var / n  # per-user σ² = g²/(n ε²) ≥ s²
    log_xi = dgauss_xi_log(n, s2)
    xi = math.exp(log_xi) if log_xi > -745 else 0.0
    eps_hat = dgauss_epsilon_hat(epsilon, xi)
    tv = dgauss_sum_tv_bound(n, s2)
    privacy = dict(guarantee="zCDP (distributed, SecAgg)", epsilon=epsilon, scale=scale,
                   epsilon_hat=eps_hat, rho=eps_hat**2 / 2, xi=xi,
                   log10_xi=float(log_xi / math.log(10)))
    extra = dict(rho=eps_hat**2 / 2, dgauss_tv_bound=tv)
    return finish(name="dist-cdp", code=codes.DIST_CDP, theorem=f"{PAPER}, Theorem 4", n=n,
                  epsilon=epsilon, p=p, scale=scale, g=g,
                  tau_real=g / epsilon * math.sqrt(2 * L), fpar=[var],
                  sigma=math.sqrt(2) / epsilon + math.sqrt(2 * n) / g, h=0.0,
                  noise="Σ of n N_Z(0, g²/(nε²)) ≈ N_Z(0, g²/ε²) (batched; TV ≤ dgauss_tv_bound)",
                  variance=var, privacy=privacy, extra=extra)


def mechanism(name, n, epsilon, p=0.1, scale=1.0, **kwargs):
    """Parameters of one batch of a registered SecAgg-family mechanism.

    Parameters
    ----------
    name : str
        A registered mechanism of the SecAgg family (``bandsim list``):
        ``dist-dp``, ``dist-rdp``, ``dist-cdp``, ``central``, ``local``,
        ``dist-dp-shuffle`` or a plug-in's.
    n : int
        Users in the batch (n = l(b)).
    epsilon : float
        ε > 0 of the theorem (``dist-dp-shuffle``: the total ε).
    p : float
        Confidence p ∈ (0, 1) of τ.
    scale : float
        Scaling factor s ≥ 1 (mechanisms that take it).
    **kwargs
        Further parameters the mechanism's derivation takes (e.g. ``relax_q``).

    Returns
    -------
    Batch

    Raises
    ------
    ConfigError
        Unknown name, n < 1, ε ≤ 0, p ∉ (0, 1), s < 1, or a modulus beyond the
        int64-safe range.

    References
    ----------
    Chowdhury & Zhou (ICLR 2023): g, τ, m of Theorems 1–6; m = n g + 2τ + 1.
    """
    spec = get_mechanism(name)
    params = dict(epsilon=epsilon, p=p, scale=scale, **kwargs)
    return spec.batch(n, **{k: v for k, v in params.items() if k in spec.takes or k in kwargs})


__all__ = ["Batch", "LOCAL_C", "MAX_MODULUS", "central", "check_protocol_params",
           "check_sampler_ranges", "dist_cdp",
           "dist_dp", "dist_dp_shuffle", "dist_rdp", "finish", "local", "mechanism"]
