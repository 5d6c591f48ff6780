"""The protocol P = (R, S, A) of Chowdhury & Zhou with secure aggregation (Numba).

One batch of n users who pulled the same arm:

R (randomizer, Algorithm 2)
    encode x ∈ [0, 1] at precision g with randomized rounding,
    x̂ = ⌊x g⌋ + Ber(x g − ⌊x g⌋); add discrete noise η_i; send
    y_i = (x̂ + η_i) mod m.
S (secure aggregation)
    reveals only ŷ = (Σ y_i) mod m.
A (analyzer, Algorithm 3)
    y = ŷ; if y > n g + τ then z = (y − m)/g (underflow), else z = y/g.
    Equivalently: A returns the representative of ŷ in the window
    [−τ, n g + τ] (exactly m integers), divided by g.

Two paths give the analyzer's output z (reward units, float64):

``per_user_estimate``
    every user draws her reward, encodes it, draws her own noise and reduces
    mod m; S sums mod m; A decodes (the slow, obvious twin).
``batched_estimate``
    Σ x̂ from one draw (:func:`kernels.rewards.encoded_sum`), the total noise
    Σ η_i from its closed form, one reduction mod m, A. Modular addition
    distributes, so (Σ x̂ + Σ η) mod m is exactly ŷ (Chowdhury & Zhou (2023), eq. (3)).

``PLUGIN`` (100) runs the same protocol with a plug-in's noise kernels,
first-class functions in a :class:`kernels.hooks.Hooks` tuple
(``hooks.total_noise``, ``hooks.user_noise``): the ``plugin_*`` twins of
the paths below. The ``draw*`` helpers take ``hooks`` last and route
``PLUGIN`` to them; the built-in paths never see the hooks.

Mechanism codes (``mech``), with ``ipar = [g, τ, m]`` and ``fpar``:

``DIST_DP`` (2)
    Theorem 1: η_i = γ⁺ − γ⁻, γ ~ Pólya(1/n, β), β = e^{−ε/g}; the total is
    Lap_Z(g/ε). ``fpar = [q, β]``, q = 1 − β.
``DIST_RDP`` (3)
    Theorem 2: η_i ~ Sk(0, g²/(n ε²)); the total is Sk(0, g²/ε²).
    ``fpar = [μ]`` with μ = g²/(2ε²) the Poisson mean of the total.
``DIST_CDP`` (4)
    Theorem 4: η_i ~ N_Z(0, g²/(n ε²)). ``fpar = [g²/ε²]``. The batched
    path draws one N_Z(0, g²/ε²) — an approximation of the n-fold sum whose
    distance bound is computed by :func:`bandsim.protocols.dgauss_sum_tv_bound`.
``CENTRAL`` (5)
    Theorem 5 (Algorithms 4, 5): no local noise; the analyzer adds
    η = η₁ − η₂, η_j ~ Pólya(1, β) (Remark 7), i.e. Lap_Z(g/ε), mod m.
    ``fpar = [q, β]``.
``LOCAL`` (6)
    Theorem 6 (Algorithms 6, 7): η_i ~ Lap_Z(g/ε) per user; the total is
    NB(n, q) − NB(n, q). ``fpar = [q, β]``.
``DIST_DP_SHUFFLE`` (7)
    Theorem 3: ``DIST_DP`` noise over an (ε̂, q̂)-relaxed SecAgg: with
    probability q̂ the modular sum is replaced by a uniform element of Z_m
    (relaxed correctness, Chowdhury & Zhou (2023) Definition 9); ``fpar = [q, β, q̂]``.

References
----------
Chowdhury & Zhou (2023), Section 3.2 (Algorithms 2, 3), Section 4 (Theorem 1), Section 5
(Theorem 2), Appendix C.2 (Theorem 3, Definition 9), Appendix E
(Theorem 4), Appendix G (Theorems 5, 6, Algorithms 4–7).
"""
import numpy as np

from ._jit import jit
from .codes import (CENTRAL, DIST_CDP, DIST_DP, DIST_DP_SHUFFLE, DIST_RDP, LAW_BATCH, LOCAL,
                    PLUGIN)
from .record import release, rencoded, rwindow
from .rewards import draw as draw_reward
from .rewards import encode
from .samplers import (discrete_gaussian, discrete_laplace, discrete_laplace_sum,
                       geometric_failures, polya, skellam)



@jit
def analyze(y, n, g, tau, m):
    """Analyzer A (Algorithm 3): decode ŷ ∈ Z_m into reward units (float64).

    Parameters
    ----------
    y : int64
        The (noisy, modular) aggregate ŷ ∈ {0, …, m − 1}, encoded units.
    n : int64
        Users in the batch.
    g : int64
        Precision of the encoding.
    tau : int64
        Accuracy τ of the window [−τ, n g + τ].
    m : int64
        Modulus, m = n g + 2τ + 1.

    Returns
    -------
    float64
        The representative of y in [−τ, n g + τ], divided by g (reward units).
    """
    if y > n * g + tau:
        return (y - m) / g
    return y / g


@jit
def user_noise(rng, mech, n, fpar):
    """One user's noise η_i (int64) for mechanism ``mech`` in a batch of n.

    Parameters
    ----------
    rng : numpy.random.Generator
    mech : int
        Mechanism code, ``DIST_DP`` … ``DIST_DP_SHUFFLE`` (2–7).
    n : int64
        Users in the batch (≥ 1).
    fpar : float64 (F,)
        Noise parameters of ``mech`` (see the module docstring).

    Returns
    -------
    int64
        η_i, encoded units (Chowdhury & Zhou (ICLR 2023), Theorems 1, 2, 4–6).

    Raises
    ------
    ValueError
        For an unknown ``mech`` or invalid noise parameters (:mod:`kernels.samplers`).
    """
    if mech == DIST_DP or mech == DIST_DP_SHUFFLE:
        r = 1.0 / n
        return polya(rng, r, fpar[1]) - polya(rng, r, fpar[1])
    if mech == DIST_RDP:
        return skellam(rng, fpar[0] / n)
    if mech == DIST_CDP:
        return discrete_gaussian(rng, fpar[0] / n)
    if mech == LOCAL:
        return discrete_laplace(rng, fpar[0])
    if mech == CENTRAL:
        return np.int64(0)  # no local noise (Algorithm 4)
    raise ValueError("user_noise: unknown mechanism code (known: 2-7)")


@jit
def total_noise(rng, mech, n, fpar):
    """Σ η_i over the batch from its closed form (int64).

    Pólya pairs sum to Lap_Z(g/ε) (Fact 1); Skellams sum to a Skellam;
    n discrete Laplaces sum to NB(n, q) − NB(n, q); the discrete Gaussian sum
    is approximated by one N_Z(0, Σσ²) (see the module docstring).

    Parameters
    ----------
    rng : numpy.random.Generator
    mech : int
        Mechanism code, ``DIST_DP`` … ``DIST_DP_SHUFFLE`` (2–7).
    n : int64
        Users in the batch (≥ 1).
    fpar : float64 (F,)
        Noise parameters of ``mech`` (see the module docstring).

    Returns
    -------
    int64
        Σ η_i, encoded units.

    Raises
    ------
    ValueError
        For an unknown ``mech`` or invalid noise parameters.
    """
    if mech == DIST_DP or mech == DIST_DP_SHUFFLE:
        return discrete_laplace(rng, fpar[0])
    if mech == DIST_RDP:
        return skellam(rng, fpar[0])
    if mech == DIST_CDP:
        return discrete_gaussian(rng, fpar[0])
    if mech == LOCAL:
        return discrete_laplace_sum(rng, n, fpar[0])
    if mech == CENTRAL:
        return np.int64(0)  # no local noise (Algorithm 4)
    raise ValueError("total_noise: unknown mechanism code (known: 2-7)")


@jit
def central_noise(rng, mech, fpar, m):
    """The analyzer's own noise η̂ = η mod m (CENTRAL only; Algorithm 5 line 3).

    0 for the other mechanisms; ``ValueError`` for an unknown ``mech``.
    """
    if mech == CENTRAL:
        eta = geometric_failures(rng, fpar[0]) - geometric_failures(rng, fpar[0])
        return eta % m
    if (mech == DIST_DP or mech == DIST_RDP or mech == DIST_CDP or mech == LOCAL
            or mech == DIST_DP_SHUFFLE or mech == PLUGIN):
        return np.int64(0)  # the noise was added by the users (plug-ins: their user_noise)
    raise ValueError("central_noise: unknown mechanism code (known: 2-7, 100)")


@jit
def relaxed(rng, mech, y, m, fpar):
    """S's output under relaxed correctness: uniform on Z_m w.p. q̂ (shuffle only)."""
    if mech == DIST_DP_SHUFFLE and rng.random() < fpar[2]:
        return rng.integers(0, m)
    return y


@jit
def finish(rng, mech, yhat, n, fpar, ipar):
    """S's (possibly relaxed) output ŷ, the analyzer's central noise, then A."""
    g, tau, m = ipar[0], ipar[1], ipar[2]
    y = relaxed(rng, mech, yhat, m, fpar)
    y = (y + central_noise(rng, mech, fpar, m)) % m
    return analyze(y, n, g, tau, m)


@jit
def batched_output(rng, mech, xhat_sum, n, fpar, ipar):
    """Analyzer output for a batch whose encoded sum Σ x̂ is given (batched path)."""
    m = ipar[2]
    yhat = (xhat_sum + total_noise(rng, mech, n, fpar)) % m
    return finish(rng, mech, yhat, n, fpar, ipar)


@jit
def per_user_output(rng, mech, x, fpar, ipar):
    """Analyzer output for given rewards x (float64 (n,)), user by user.

    Each user runs R (encode, own noise, mod m); S sums the y_i mod m.
    """
    g, m = ipar[0], ipar[2]
    n = x.shape[0]
    yhat = np.int64(0)
    for i in range(n):
        yi = (encode(rng, x[i], g) + user_noise(rng, mech, n, fpar)) % m
        yhat = (yhat + yi) % m
    return finish(rng, mech, yhat, n, fpar, ipar)


@jit
def batched_estimate(rng, mech, rcode, rpar, n, fpar, ipar, rec, run, t0, arm):
    """Analyzer's estimate of the sum of n rewards of one arm: batched path (float64).

    Parameters
    ----------
    rng : numpy.random.Generator
    mech : int
        Mechanism code (``DIST_DP`` … ``DIST_DP_SHUFFLE``).
    rcode : int
        Reward model code.
    rpar : float64 (P,)
        The arm's reward parameters.
    n : int64
        Users in the batch, l(b).
    fpar : float64 (F,)
        Noise parameters (see the module docstring).
    ipar : int64 (3,)
        Precision g, accuracy τ and modulus m = n g + 2τ + 1.
    rec, run, t0, arm
        A recorder (``None`` in a simulation and in the sampled audit) and what it
        logs (:func:`kernels.protocols.batch_estimate`): the encoded sum Σ x̂ is the
        release's true statistic (encoded units, tag g).

    Returns
    -------
    float64
        The analyzer's estimate of the batch's reward sum (reward units).

    Raises
    ------
    ValueError
        For an unknown ``mech`` or invalid noise parameters.

    References
    ----------
    Chowdhury & Zhou (ICLR 2023), Algorithms 2, 3 and eq. (3).
    """
    x = rencoded(rng, rec, run, t0, arm, rcode, rpar, n, ipar[0])
    rwindow(rec, ipar[1], ipar[2])
    return release(rec, run, t0 + n, arm, n, LAW_BATCH, ipar[0], x, fpar[0],
                   batched_output(rng, mech, x, n, fpar, ipar))


@jit
def per_user_estimate(rng, mech, rcode, rpar, n, fpar, ipar):
    """Same as :func:`batched_estimate`, every user simulated (the per-user twin).

    Every user draws her reward, encodes it, adds her own noise η_i and
    reduces mod m; S sums mod m; A decodes. O(n) draws; the same law as the
    batched path (exactly, except ``DIST_CDP``, see the module docstring).

    Parameters
    ----------
    rng : numpy.random.Generator
    mech : int
        Mechanism code (``DIST_DP`` … ``DIST_DP_SHUFFLE``).
    rcode : int
        Reward model code.
    rpar : float64 (P,)
        The arm's reward parameters.
    n : int64
        Users in the batch (≥ 1).
    fpar : float64 (F,)
        Noise parameters.
    ipar : int64 (3,)
        Precision g, accuracy τ and modulus m.

    Returns
    -------
    float64
        The analyzer's estimate of the batch's reward sum (reward units).

    Raises
    ------
    ValueError
        For an unknown ``mech`` or invalid noise parameters.
    """
    g, m = ipar[0], ipar[2]
    yhat = np.int64(0)
    for _ in range(n):
        x = draw_reward(rng, rcode, rpar)
        yi = (encode(rng, x, g) + user_noise(rng, mech, n, fpar)) % m
        yhat = (yhat + yi) % m
    return finish(rng, mech, yhat, n, fpar, ipar)


@jit
def plugin_batched_output(rng, mech, xhat_sum, n, fpar, ipar, hooks):
    """:func:`batched_output` with a plug-in's total noise ``hooks.total_noise``."""
    m = ipar[2]
    yhat = (xhat_sum + hooks.total_noise(rng, mech, n, fpar)) % m
    return finish(rng, mech, yhat, n, fpar, ipar)


@jit
def plugin_per_user_output(rng, mech, x, fpar, ipar, hooks):
    """:func:`per_user_output` with a plug-in's per-user noise ``hooks.user_noise``."""
    g, m = ipar[0], ipar[2]
    n = x.shape[0]
    yhat = np.int64(0)
    for i in range(n):
        yi = (encode(rng, x[i], g) + hooks.user_noise(rng, mech, n, fpar)) % m
        yhat = (yhat + yi) % m
    return finish(rng, mech, yhat, n, fpar, ipar)


@jit
def plugin_batched_estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks, rec, run, t0, arm):
    """:func:`batched_estimate` of a ``PLUGIN`` mechanism (its ``hooks.total_noise``)."""
    x = rencoded(rng, rec, run, t0, arm, rcode, rpar, n, ipar[0])
    rwindow(rec, ipar[1], ipar[2])
    return release(rec, run, t0 + n, arm, n, LAW_BATCH, ipar[0], x, fpar[0],
                   plugin_batched_output(rng, mech, x, n, fpar, ipar, hooks))


@jit
def plugin_per_user_estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks):
    """:func:`per_user_estimate` of a ``PLUGIN`` mechanism (its ``hooks.user_noise``)."""
    g, m = ipar[0], ipar[2]
    yhat = np.int64(0)
    for _ in range(n):
        x = draw_reward(rng, rcode, rpar)
        yi = (encode(rng, x, g) + hooks.user_noise(rng, mech, n, fpar)) % m
        yhat = (yhat + yi) % m
    return finish(rng, mech, yhat, n, fpar, ipar)


@jit
def draw(rng, mech, rcode, rpar, n, fpar, ipar, size, per_user, hooks):
    """``size`` independent analyzer outputs (float64 (size,)) of the batched
    path, or of the per-user path when ``per_user`` is true."""
    out = np.empty(size)
    for i in range(size):
        if mech == PLUGIN:
            if per_user:
                out[i] = plugin_per_user_estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks)
            else:
                out[i] = plugin_batched_estimate(rng, mech, rcode, rpar, n, fpar, ipar, hooks,
                                                  None, 0, 0, 0)
        elif per_user:
            out[i] = per_user_estimate(rng, mech, rcode, rpar, n, fpar, ipar)
        else:
            out[i] = batched_estimate(rng, mech, rcode, rpar, n, fpar, ipar, None, 0, 0, 0)
    return out


@jit
def draw_batched_given(rng, mech, xhat_sums, n, fpar, ipar, hooks):
    """Batched analyzer outputs, one per given encoded sum Σ x̂ (int64 (size,))."""
    out = np.empty(xhat_sums.shape[0])
    for i in range(xhat_sums.shape[0]):
        if mech == PLUGIN:
            out[i] = plugin_batched_output(rng, mech, xhat_sums[i], n, fpar, ipar, hooks)
        else:
            out[i] = batched_output(rng, mech, xhat_sums[i], n, fpar, ipar)
    return out


@jit
def draw_per_user_given(rng, mech, x, fpar, ipar, size, hooks):
    """``size`` per-user analyzer outputs for fixed rewards x (float64 (n,))."""
    out = np.empty(size)
    for i in range(size):
        if mech == PLUGIN:
            out[i] = plugin_per_user_output(rng, mech, x, fpar, ipar, hooks)
        else:
            out[i] = per_user_output(rng, mech, x, fpar, ipar)
    return out


@jit
def draw_total_noise(rng, mech, n, fpar, size, per_user, hooks):
    """``size`` draws of the total noise Σ η_i (int64), batched or per user."""
    out = np.empty(size, np.int64)
    for i in range(size):
        if per_user:
            s = np.int64(0)
            for _ in range(n):
                if mech == PLUGIN:
                    s += hooks.user_noise(rng, mech, n, fpar)
                else:
                    s += user_noise(rng, mech, n, fpar)
            out[i] = s
        elif mech == PLUGIN:
            out[i] = hooks.total_noise(rng, mech, n, fpar)
        else:
            out[i] = total_noise(rng, mech, n, fpar)
    return out
