"""Private stopping rules: ε-DP (α, β) mean estimation from a stream of samples.

An (α, β) stopping rule reads i.i.d. samples X₁, X₂, … ∈ [−R, R] of unknown
mean μ ≠ 0 until it can release μ̂ with P[|μ̂ − μ| ≤ α|μ|] ≥ 1 − β (Sajed (2019),
eq. 2.35). :func:`dp_nas` (Algorithm 7) tests after every sample,
:func:`dp_exp_nas` (Algorithm 8) only at t = 2^k. Both are ε-DP
(Theorem 4.1.1, Corollary 4.1.2): the halting test is a sparse-vector query
and the release adds Laplace noise.

Both run many independent runs at once for a given finite sample
distribution (support ``values`` in [−R, R], probabilities ``probs``), e.g.
``values=[-1, 1], probs=[0.3, 0.7]`` (μ = 0.4, the two-point law of the
lower bound, Theorem 4.2.1) or ``values=[-1, 0, 1]`` for the difference of
two Bernoulli rewards.

Example
-------
>>> from bandsim.stopping import dp_exp_nas
>>> res = dp_exp_nas([-1, 1], [0.3, 0.7], alpha=0.5, beta=0.05, epsilon=1.0,
...                  runs=1000, seed=1)
>>> res.times.shape, res.estimates.shape
((1000,), (1000,))

References
----------
Sajed (MSc thesis 2019), Chapter 4: Algorithms 7 and 8, Theorem 4.1.1,
Corollary 4.1.2, Theorem 4.1.3.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from .errors import ConfigError, check_int, check_range
from .kernels.stopping import run_stopping


@dataclass
class StoppingResult:
    """Outcome of a private stopping rule over many runs.

    Attributes
    ----------
    times : int64 (runs,)
        Samples read before halting (the stopping time).
    estimates : float64 (runs,)
        Released estimates μ̂ of the mean.
    stopped : bool (runs,)
        False for runs that reached ``max_samples`` without halting (their
        estimate is released at the cap).
    mean : float
        The true mean μ of the sample distribution.
    config : dict
        Resolved parameters (rule, α, β, ε, R, σ₁, σ₂, σ₃, seed, …).
    """

    times: np.ndarray
    estimates: np.ndarray
    stopped: np.ndarray
    mean: float
    config: dict = field(default_factory=dict)

    def failure_fraction(self):
        """Fraction of runs with |μ̂ − μ| > α|μ| (unstopped runs count as failures)."""
        alpha = self.config["alpha"]
        bad = (np.abs(self.estimates - self.mean) > alpha * abs(self.mean)) | ~self.stopped
        return float(bad.mean())


def _resolve(values, probs, alpha, beta, epsilon, R, runs, seed, max_samples):
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ConfigError("values", values, "must be a non-empty list of finite numbers")
    if probs is None:
        p = np.full(v.size, 1.0 / v.size)
    else:
        p = np.asarray(probs, dtype=np.float64).ravel()
        if p.shape != v.shape or np.any(p < 0) or not math.isclose(p.sum(), 1.0, abs_tol=1e-9):
            raise ConfigError("probs", probs,
                              "must be non-negative, one per value, and sum to 1")
        p = p / p.sum()
    alpha = check_range("alpha", alpha, 0.0, 1.0)
    beta = check_range("beta", beta, 0.0, 1.0)
    epsilon = check_range("epsilon", epsilon, 0.0, None)
    bound = float(np.abs(v).max())
    R = bound if R is None else check_range("R", R, 0.0, None)
    if bound > R:
        raise ConfigError("values", values, f"must lie in [-R, R] with R={R:g}")
    if R == 0:
        raise ConfigError("values", values, "must not all be 0 (R = 0)")
    runs = check_int("runs", runs, 1, 10**8)
    max_samples = check_int("max_samples", max_samples, 2, 2**62)
    mean = float(np.dot(v, p))
    if mean == 0.0:
        raise ConfigError("values", values, "the mean must be non-zero (|μ| > 0, eq. 2.35)")
    return v, p, alpha, beta, epsilon, R, runs, seed, max_samples, mean


def _run(rule, values, probs, alpha, beta, epsilon, R, runs, seed, max_samples):
    v, p, alpha, beta, epsilon, R, runs, seed, max_samples, mean = _resolve(
        values, probs, alpha, beta, epsilon, R, runs, seed, max_samples)
    exponential = rule == "dp-exp-nas"
    if exponential:  # tests happen at t = 2^k only
        max_samples = 1 << int(math.floor(math.log2(max_samples)))
    import secrets

    seed = secrets.randbits(63) if seed is None else check_int("seed", seed, 0)
    s1, s2, s3 = 12 * R / epsilon, 12 * R / epsilon, 4 * R / epsilon
    times = np.zeros(runs, np.int64)
    est = np.zeros(runs)
    stopped = np.zeros(runs, np.bool_)
    rng = np.random.default_rng(seed)
    run_stopping(rng, v, p, np.cumsum(p), R, alpha, beta, s1, s2, s3, max_samples,
                 exponential, times, est, stopped)
    config = dict(rule=rule, alpha=alpha, beta=beta, epsilon=epsilon, R=R, runs=runs,
                  seed=seed, max_samples=max_samples, values=v.tolist(), probs=p.tolist(),
                  sigma1=s1, sigma2=s2, sigma3=s3)
    return StoppingResult(times, est, stopped, mean, config)


def dp_nas(values, probs=None, *, alpha, beta, epsilon, R=None, runs=1000, seed=None,
           max_samples=10**9):
    """DP-NAS: ε-DP (α, β) stopping rule testing after every sample.

    Parameters
    ----------
    values : sequence of float
        Support of the sample distribution, in [−R, R].
    probs : sequence of float, optional
        Its probabilities (uniform if omitted).
    alpha : float
        Multiplicative accuracy α ∈ (0, 1).
    beta : float
        Failure probability β ∈ (0, 1).
    epsilon : float
        ε > 0 of the whole rule (ε/2 for the halting SVT, ε/2 for the release).
    R : float, optional
        Range bound (default max |values|).
    runs : int
        Independent runs.
    seed : int, optional
        Root seed of the runs' generator.
    max_samples : int
        Cap on samples per run.

    Returns
    -------
    StoppingResult

    Raises
    ------
    ConfigError
        On invalid input (values outside [−R, R], zero mean, α or β outside
        (0, 1), ε ≤ 0, …).

    Notes
    -----
    σ₁ = σ₂ = 12R/ε, σ₃ = 4R/ε; h_t = R sqrt((2/t) log(16t²/β));
    c_t = σ₁ log(4/β) + σ₂ log(8t²/β) + (σ₃/α) log(4/β); halt when
    |X̄_t| ≥ h_t(1 + 1/α) + (c_t + B + A_t)/t; release X̄_t + L/t.

    References
    ----------
    Sajed (2019), Section 4.1, Algorithm 7, Theorem 4.1.1.
    """
    return _run("dp-nas", values, probs, alpha, beta, epsilon, R, runs, seed, max_samples)


def dp_exp_nas(values, probs=None, *, alpha, beta, epsilon, R=None, runs=1000, seed=None,
               max_samples=2**40):
    """DP exponential NAS: the ε-DP (α, β) stopping rule testing at t = 2^k only.

    Parameters and return value as in :func:`dp_nas`; ``max_samples`` is
    rounded down to a power of 2. Between tests the 2^{k−1} new samples enter
    as one exact multinomial draw, so a run costs O(log t) work.

    Notes
    -----
    As Algorithm 7 with tests at t = 2^k (k = 1, 2, …) and k in place of t
    inside the logarithms: h_t = R sqrt((2/t) log(16k²/β)),
    c_t = σ₁ log(4/β) + σ₂ log(8k²/β) + (σ₃/α) log(4/β).

    References
    ----------
    Sajed (2019), Section 4.1, Algorithm 8, Corollary 4.1.2, Theorem 4.1.3.
    """
    return _run("dp-exp-nas", values, probs, alpha, beta, epsilon, R, runs, seed,
                max_samples)
