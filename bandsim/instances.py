"""Bandit instances: arm means and reward models.

Named instances
---------------
``C1``–``C4``
    The thesis instances (Sajed (2019), Chapter 6), for any K ≥ 2, from their
    formulas: C1 = {0.75, 0.7, …, 0.7}; C2 linear from 0.75 to 0.25;
    C3 μ_i = a (i − K)² + c convex, C4 μ_i = a (i − 1)² + c concave, both with
    μ_1 = 0.75 and μ_K = 0.25. (The thesis prints 0.525 for the second arm of
    C2 and the third of C4 at K = 5; its formulas give 0.625; see
    docs/fidelity.md.)
``easy`` / ``hard``
    Means i.i.d. U[0.25, 0.75] / U[0.45, 0.55], one instance per run, drawn
    from the instance stream of the root seed (Chowdhury & Zhou (2023), Section 7; Chowdhury & Zhou (2023, workshop version)
    Section 6 after Vaswani et al. 2020).
explicit means
    ``means=[0.9, 0.8, …]``.

Reward models
-------------
``bernoulli``
    rewards in {0, 1} with mean μ.
``gaussian``
    X = clip(N(μ, σ²), 0, 1), σ = 0.1 by default (Chowdhury & Zhou (2023), Section 7). The
    pseudo-regret uses the true means E[X], which differ from μ only by the
    clipping (negligible inside [0.25, 0.75] at σ = 0.1).
``categorical``
    an empirical reward: arm a takes value v_{a,j} ∈ [0, 1] with probability
    p_{a,j} (e.g. relevance/4 of a random query-url pair of an MSLR cluster);
    its mean is Σ_j p_{a,j} v_{a,j}. Built by :func:`categorical_instance` or
    read from an instance file (:func:`bandsim.datasets.load_instance`).
"""
from dataclasses import dataclass

import numpy as np

from .errors import ConfigError, check_int, check_range
from .kernels import rewards as kr

NAMED = {
    "C1": "thesis C1: {0.75, 0.7, ..., 0.7} (all gaps 0.05)",
    "C2": "thesis C2: linear from 0.75 to 0.25",
    "C3": "thesis C3: convex quadratic a(i-K)^2 + c from 0.75 to 0.25",
    "C4": "thesis C4: concave quadratic a(i-1)^2 + c from 0.75 to 0.25",
    "easy": "means iid U[0.25, 0.75], one instance per run",
    "hard": "means iid U[0.45, 0.55], one instance per run",
}
RANDOM_RANGES = {"easy": (0.25, 0.75), "hard": (0.45, 0.55)}
REWARDS = ("bernoulli", "gaussian")  # the choices of make_instance; files add "categorical"

GAUSSIAN_NOTE = (
    "per-user (exact) for batches of at most GAUSSIAN_EXACT_MAX_N users; above, the "
    "moment-matched normal N(n E[X], n Var[X]) clipped to [0, n] (Kolmogorov distance "
    "bounded by gaussian_clt_kolmogorov_bound)"
)

#: Berry–Esseen constant for i.i.d. sums (Shevtsova 2011).
BERRY_ESSEEN_C = 0.4748


def thesis_means(name, arms):
    """Means of the thesis instance ``C1``…``C4`` with ``arms`` arms.

    Returns
    -------
    float64 (arms,)

    References
    ----------
    Sajed (2019), Chapter 6 ("Setting and Experiments").
    """
    i = np.arange(1, arms + 1, dtype=np.float64)
    k = float(arms)
    if name == "C1":
        return np.where(i == 1, 0.75, 0.7)
    if name == "C2":
        return 0.75 - 0.5 * (i - 1) / (k - 1)
    if name == "C3":
        return 0.25 + 0.5 * (i - k) ** 2 / (k - 1) ** 2
    if name == "C4":
        return 0.75 - 0.5 * (i - 1) ** 2 / (k - 1) ** 2
    raise ConfigError("instance", name, f"must be one of {', '.join(NAMED)}")


class _Normal:
    """Standard normal pdf, cdf and sf from scipy.special (imports in half the time of
    scipy.stats)."""

    @staticmethod
    def pdf(x):
        return np.exp(-0.5 * np.square(x)) / np.sqrt(2 * np.pi)

    @staticmethod
    def cdf(x):
        from scipy.special import ndtr

        return ndtr(x)

    @staticmethod
    def sf(x):
        from scipy.special import ndtr

        return ndtr(-np.asarray(x))


norm = _Normal()


def clipped_gaussian_moments(mu, sigma):
    """Mean and variance of clip(N(mu, sigma²), 0, 1), elementwise (float64 arrays)."""
    mu = np.asarray(mu, dtype=np.float64)
    a = (0.0 - mu) / sigma
    b = (1.0 - mu) / sigma
    pa, pb = norm.pdf(a), norm.pdf(b)
    mass = norm.cdf(b) - norm.cdf(a)
    upper = norm.sf(b)
    m1 = mu * mass + sigma * (pa - pb) + upper
    m2 = ((mu**2 + sigma**2) * mass + 2 * mu * sigma * (pa - pb)
          + sigma**2 * (a * pa - b * pb) + upper)
    return m1, np.maximum(m2 - m1**2, 0.0)


def _normal_partial_moments(lo, hi):
    """∫_lo^hi z^k φ(z) dz for k = 0…3 (standard normal φ), elementwise."""
    plo, phi_ = norm.pdf(lo), norm.pdf(hi)
    m0 = norm.cdf(hi) - norm.cdf(lo)
    m1 = plo - phi_
    m2 = m0 + np.where(np.isfinite(lo), lo * plo, 0.0) - np.where(np.isfinite(hi), hi * phi_, 0.0)
    m3 = (np.where(np.isfinite(lo), (lo**2 + 2) * plo, 0.0)
          - np.where(np.isfinite(hi), (hi**2 + 2) * phi_, 0.0))
    return m0, m1, m2, m3


def clipped_gaussian_abs_third_moment(mu, sigma):
    """E|X − E X|³ of X = clip(N(mu, sigma²), 0, 1), elementwise, in closed form.

    The atoms at 0 and 1 contribute P(Y ≤ 0)·c³ and P(Y ≥ 1)·(1 − c)³
    (c = E X); on (0, 1) the cube of y − c = σz + (μ − c) is integrated
    against φ with the normal's partial moments ∫ z^k φ(z) dz, k ≤ 3, split at c.

    Parameters
    ----------
    mu : float64 array
        Locations μ (any shape).
    sigma : float
        σ > 0.

    Returns
    -------
    float64 array, the shape of ``mu``
    """
    mu = np.asarray(mu, dtype=np.float64)
    c, _ = clipped_gaussian_moments(mu, sigma)
    a, b, zc = (0.0 - mu) / sigma, (1.0 - mu) / sigma, (c - mu) / sigma
    d = mu - c

    def cube(lo, hi):  # ∫_lo^hi (σz + d)³ φ(z) dz
        m0, m1, m2, m3 = _normal_partial_moments(lo, hi)
        return sigma**3 * m3 + 3 * sigma**2 * d * m2 + 3 * sigma * d**2 * m1 + d**3 * m0

    inner = -cube(a, zc) + cube(zc, b)
    return norm.cdf(a) * c**3 + norm.sf(b) * (1.0 - c) ** 3 + inner


def berry_esseen_bound(mu, sigma, n):
    """Largest Kolmogorov distance, over the given locations, between the sum of
    ``n`` clipped Gaussian rewards and its moment-matched normal (Berry–Esseen).

    C·ρ/(v^{3/2} √n) with ρ = E|X − E X|³ and v = Var X in closed form
    (:func:`clipped_gaussian_abs_third_moment`), evaluated once per distinct
    location, all at once; C = 0.4748 (Shevtsova 2011).

    Parameters
    ----------
    mu : float64 array
        Locations (any shape; duplicates are evaluated once).
    sigma : float
    n : int
        Users in the batch sum.

    Returns
    -------
    float
    """
    locs = np.unique(np.asarray(mu, dtype=np.float64))
    _, var = clipped_gaussian_moments(locs, sigma)
    rho = clipped_gaussian_abs_third_moment(locs, sigma)
    return float(np.max(BERRY_ESSEEN_C * rho / (var**1.5 * np.sqrt(n))))


@dataclass(frozen=True)
class Instance:
    """A resolved bandit instance.

    Attributes
    ----------
    name : str
        ``C1``…``C4``, ``easy``, ``hard`` or ``means``.
    rewards : str
        ``bernoulli`` or ``gaussian``.
    location : float64 (K,) or (R, K)
        The arm parameter μ (Bernoulli mean, Gaussian location); one row per
        run for random instances.
    sigma : float
        Standard deviation of the Gaussian before clipping (unused for Bernoulli).
    values, probs : float64 (K, J), optional
        Categorical rewards only: arm a takes ``values[a, j]`` with probability
        ``probs[a, j]``; rows are padded to a common J with probability 0.
    source : dict, optional
        Provenance of an instance read from a file (path, sha256, builder).
    """

    name: str
    rewards: str
    location: np.ndarray
    sigma: float = 0.1
    values: np.ndarray | None = None
    probs: np.ndarray | None = None
    source: dict | None = None

    @property
    def arms(self):
        return self.location.shape[-1]

    @property
    def means(self):
        """True mean rewards, same shape as ``location``."""
        if self.rewards in ("bernoulli", "categorical"):
            return self.location
        return clipped_gaussian_moments(self.location, self.sigma)[0]

    def per_run(self, runs):
        """Means, gaps and kernel reward parameters for ``runs`` runs.

        Returns
        -------
        means : float64 (runs, K)
        gaps : float64 (runs, K)
            Δ_a = max_b μ_b − μ_a.
        rcode : int
        rpar : float64 (runs, K, P)
        """
        loc = np.broadcast_to(self.location, (runs, self.arms))
        if self.rewards == "bernoulli":
            means = np.ascontiguousarray(loc, dtype=np.float64)
            rpar = means[:, :, None].copy()
            rcode = kr.BERNOULLI
        elif self.rewards == "categorical":
            means = np.ascontiguousarray(loc, dtype=np.float64)
            rpar = np.broadcast_to(categorical_rows(self.values, self.probs),
                                   (runs, self.arms, 1 + 2 * self.values.shape[1]))
            rcode = kr.CATEGORICAL
        else:
            m1, var = clipped_gaussian_moments(loc, self.sigma)
            means = np.ascontiguousarray(m1)
            rpar = np.stack([loc, np.full_like(loc, self.sigma), m1, var], axis=-1)
            rcode = kr.CLIPPED_GAUSSIAN
        gaps = means.max(axis=1, keepdims=True) - means
        return means, np.ascontiguousarray(gaps), rcode, np.ascontiguousarray(rpar)


def categorical_rows(values, probs):
    """Kernel parameter rows of categorical arms (``kernels.rewards.CATEGORICAL``).

    Zero-probability entries are dropped, so every kept probability is > 0 as
    :func:`kernels.rewards.categorical_counts` requires.

    Parameters
    ----------
    values, probs : float64 (K, J)

    Returns
    -------
    float64 (K, 1 + 2 Jmax)
        ``[J_a, v_1…v_Jmax, p_1…p_Jmax]`` per arm, zero-padded.
    """
    values = np.asarray(values, dtype=np.float64)
    probs = np.asarray(probs, dtype=np.float64)
    keep = probs > 0
    jmax = max(int(keep.sum(axis=1).max()), 1)
    rows = np.zeros((values.shape[0], 1 + 2 * jmax))
    for a in range(values.shape[0]):
        v, p = values[a, keep[a]], probs[a, keep[a]]
        rows[a, 0] = v.size
        rows[a, 1:1 + v.size] = v
        rows[a, 1 + jmax:1 + jmax + v.size] = p / p.sum()
    return rows


def categorical_instance(values, probs, name="categorical", source=None, atol=1e-6):
    """A categorical (empirical-reward) instance.

    Parameters
    ----------
    values : sequence of sequences of float
        Per arm, the reward values v_{a,1}…v_{a,J_a} in [0, 1] (J_a may differ
        between arms; shorter rows are padded).
    probs : sequence of sequences of float
        Matching probabilities, ≥ 0, each row summing to 1 within ``atol``
        (rows are then renormalized).
    name : str
    source : dict, optional
        Provenance, recorded in the result's config.

    Returns
    -------
    Instance
        ``rewards="categorical"``, ``location`` = means Σ_j p_{a,j} v_{a,j}.

    Raises
    ------
    ConfigError
        Fewer than 2 arms, mismatched rows, values outside [0, 1], negative
        probabilities or rows not summing to 1.
    """
    values = [np.asarray(v, dtype=np.float64).ravel() for v in values]
    probs = [np.asarray(p, dtype=np.float64).ravel() for p in probs]
    if len(values) < 2 or len(values) != len(probs):
        raise ConfigError("arms", len(values), "need at least 2 arms, each with values and probs")
    J = max(v.size for v in values)
    V, P = np.zeros((len(values), J)), np.zeros((len(values), J))
    for a, (v, p) in enumerate(zip(values, probs)):
        if v.size != p.size or v.size == 0:
            raise ConfigError(f"arm {a}", (v.tolist(), p.tolist()),
                              "needs as many probabilities as values (at least one)")
        if not np.all((v >= 0) & (v <= 1)):
            raise ConfigError(f"arm {a} values", v.tolist(), "every value must lie in [0, 1]")
        if not np.all(p >= 0) or abs(p.sum() - 1) > atol:
            raise ConfigError(f"arm {a} probs", p.tolist(),
                              "must be ≥ 0 and sum to 1")
        V[a, :v.size], P[a, :p.size] = v, p / p.sum()
    return Instance(name, "categorical", (V * P).sum(axis=1), values=V, probs=P, source=source)


def make_instance(instance=None, arms=None, runs=1, rewards="bernoulli", sigma=0.1,
                  means=None, rng=None):
    """Resolve an instance description into an :class:`Instance`.

    Parameters
    ----------
    instance : str, optional
        ``C1``–``C4``, ``easy`` or ``hard``. Ignored when ``means`` is given.
    arms : int, optional
        K ≥ 2 (required for named instances).
    runs : int
        Runs to draw random instances for.
    rewards : {"bernoulli", "gaussian"}
    sigma : float
        σ of the clipped Gaussian, in (0, ∞).
    means : sequence of float, optional
        Explicit arm means in [0, 1].
    rng : numpy.random.Generator, optional
        Source of the random instances (``easy``/``hard``).

    Raises
    ------
    ConfigError
        Unknown instance name, K < 2, means outside [0, 1], σ ≤ 0, unknown
        reward model.
    """
    if rewards not in REWARDS:
        raise ConfigError("rewards", rewards, f"must be one of {', '.join(REWARDS)}")
    sigma = check_range("sigma", sigma, 0.0, None)
    if means is not None:
        loc = np.asarray(means, dtype=np.float64).ravel()
        if loc.size < 2:
            raise ConfigError("means", list(loc), "needs at least 2 arms")
        if arms is not None and int(arms) != loc.size:
            raise ConfigError("arms", arms, f"must equal the number of means ({loc.size})")
        bad = loc[~((loc >= 0) & (loc <= 1))]
        if bad.size:
            raise ConfigError("means", float(bad[0]), "every mean must lie in [0, 1]")
        return Instance("means", rewards, loc, sigma)
    if instance is None:
        raise ConfigError("instance", None, f"give one of {', '.join(NAMED)} or explicit means")
    if instance not in NAMED:
        raise ConfigError("instance", instance, f"must be one of {', '.join(NAMED)}")
    if arms is None:
        raise ConfigError("arms", None, "K is required for a named instance")
    arms = check_int("arms", arms, 2, 10_000)
    if instance in RANDOM_RANGES:
        lo, hi = RANDOM_RANGES[instance]
        rng = np.random.default_rng() if rng is None else rng
        loc = rng.uniform(lo, hi, size=(runs, arms))
    else:
        loc = thesis_means(instance, arms)
    return Instance(instance, rewards, loc, sigma)
