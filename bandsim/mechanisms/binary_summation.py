"""The (ε, δ) shuffle binary-summation mechanism of Tenenbaum et al. (Algorithm 3).

m users in a batch each hold a bit x_i ∈ {0, 1} (a binary reward). With the
accuracy parameter τ = 96 log(2/δ)/ε² (line 1):

- **encoder** (local randomizer) E(x): if m ≤ τ ("small" regime) the user sends
  (x, y_1, …, y_p) with p = ⌈τ/m⌉ fair coins y_j ~ Bernoulli(1/2); if m > τ
  ("large" regime) it sends (x, y) with one bit y ~ Bernoulli(τ/(2m))
  (lines 4–9);
- **shuffler**: the multiset of all bits; since every user sends the same
  number of bits, it is (ones, zeros), i.e. the count of ones;
- **analyzer** A: count − E[B] (lines 12–17), B = ones among the noise bits,
  E[B] = ⌈τ/m⌉ m/2 (small) or τ/2 (large).

The error A − Σ x_i = B − E[B] does not depend on the input; it is unbiased
with variance ⌈τ/m⌉ m/4 (small) or (τ/2)(1 − τ/(2m)) (large), both ≤ τ/2,
and the proof of Theorem A.1 bounds its tails by exp(−t²/(3τ)) on each side.

Privacy is computed exactly (:func:`output_pmfs`, :func:`hockey_stick`,
:func:`exact_delta`): two neighbouring inputs differ in one user's bit, so the
shuffler's counts are k + B and k + 1 + B; δ(ε) is the hockey-stick divergence
between those two pmfs (the count is a sufficient statistic of the shuffled
multiset, so this is the exact δ of the shuffle output, not a bound).

References
----------
Tenenbaum, Kaplan, Mansour & Stemmer (NeurIPS 2021), Appendix A,
Algorithm 3 and Theorem A.1 (which states ε < 1).
"""
import math
from typing import NamedTuple

import numpy as np

from ..errors import check_int, check_range
from ..kernels.binary_summation import batched_sum
from ..resources import check

#: The constant in τ = 96 log(2/δ)/ε² (Algorithm 3, line 1).
TAU_CONSTANT = 96.0
#: Standard deviations kept on each side of a pmf's mean; the mass beyond is
#: computed (binomial survival function) and added to δ as an upper bound.
PMF_SDS = 40.0
#: Bytes per point of the exact-δ computation (support, pmfs, shifted copies, temporaries).
PMF_BYTES_PER_POINT = 64


def accuracy_tau(epsilon, delta):
    """τ = 96 log(2/δ)/ε² (float; natural log; ε, δ per batch).

    References
    ----------
    Tenenbaum et al. (2021), Algorithm 3, line 1.
    """
    ratio = 2.0 / delta
    # 2/δ overflows for δ below ~1e-308: then the same logarithm as a difference
    log_ratio = math.log(ratio) if ratio < math.inf else math.log(2.0) - math.log(delta)
    return TAU_CONSTANT * log_ratio / epsilon**2


def subgaussian_variance(epsilon, delta):
    """σ²_{ε,δ} = 3τ/2 = 144 log(2/δ)/ε², the sub-Gaussian variance of the error.

    The proof of Theorem A.1 (Tenenbaum et al. (2021), Appendix A, last paragraph) shows
    P(B − E[B] ≥ t), P(B − E[B] ≤ −t) < exp(−t²/(3τ)); written as
    2 exp(−t²/(2σ²)) as in Lemma 2.1 (Hoeffding), this is σ² = 3τ/2. The
    multiplicative Chernoff bound behind it holds for t ≤ E[B]; the deviation
    the confidence bounds of SDP-AE/VB-SDP-AE use, 2σ√(2 log T) per batch, is
    within that range iff ε ≤ 2√log(2/δ)/√(2 log T) (ε ≤ 1.28 at δ = 10⁻⁶,
    T = 5·10⁷).

    References
    ----------
    Tenenbaum et al. (2021), Appendix A, proof of Theorem A.1; Lemma 2.1.
    """
    return 1.5 * accuracy_tau(epsilon, delta)


class Multiset(NamedTuple):
    """The shuffler's output: a multiset of bits, i.e. its counts."""

    ones: int
    zeros: int


class BinarySummation:
    """The (ε, δ)-SDP binary-summation mechanism M_sum (Tenenbaum et al. (2021), Algorithm 3).

    Parameters
    ----------
    epsilon : float
        ε > 0 per batch (Theorem A.1 is stated for ε < 1; :meth:`exact_delta`
        gives the exact δ at any ε).
    delta : float
        δ ∈ (0, 1) per batch.

    Attributes
    ----------
    tau : float
        τ = 96 log(2/δ)/ε².
    sigma2 : float
        σ²_{ε,δ} = 3τ/2, see :func:`subgaussian_variance`.

    Raises
    ------
    ConfigError
        If ε ≤ 0 or δ ∉ (0, 1).

    References
    ----------
    Tenenbaum et al. (2021), Appendix A, Algorithm 3, Theorem A.1.
    """

    def __init__(self, epsilon, delta):
        self.epsilon = check_range("epsilon", epsilon, 0.0, None)
        self.delta = check_range("delta", delta, 0.0, 1.0)
        self.tau = accuracy_tau(self.epsilon, self.delta)
        self.sigma2 = subgaussian_variance(self.epsilon, self.delta)

    def __repr__(self):
        return f"BinarySummation(epsilon={self.epsilon:g}, delta={self.delta:g})"

    # --- the batch's parameters -------------------------------------------
    def _m(self, m):
        return check_int("m", m, 1)

    def regime(self, m):
        """``"small"`` if m ≤ τ (fair coins), else ``"large"`` (one biased bit)."""
        return "small" if self._m(m) <= self.tau else "large"

    def fair_bits(self, m):
        """p = ⌈τ/m⌉ fair noise bits per user (small regime), 0 in the large regime."""
        m = self._m(m)
        return math.ceil(self.tau / m) if m <= self.tau else 0

    def noise_law(self, m):
        """(trials, probability) of B ~ Binomial: (⌈τ/m⌉ m, 1/2) or (m, τ/(2m))."""
        m = self._m(m)
        p = self.fair_bits(m)
        return (p * m, 0.5) if p else (m, self.tau / (2.0 * m))

    def message_length(self, m):
        """Bits each user sends: 1 + ⌈τ/m⌉ (small) or 2 (large)."""
        return 1 + (self.fair_bits(m) or 1)

    def noise_mean(self, m):
        """E[B], the constant the analyzer subtracts (Algorithm 3, lines 14, 16)."""
        p = self.fair_bits(m)
        return 0.5 * p * m if p else 0.5 * self.tau

    def error_variance(self, m):
        """Var(A − Σ x) = Var(B): ⌈τ/m⌉ m/4 (small) or (τ/2)(1 − τ/(2m)) (large)."""
        n, q = self.noise_law(m)
        return n * q * (1.0 - q)

    def noise_pmf(self, m):
        """The pmf of B on its bulk.

        Returns
        -------
        support : int64 (S,)
            Consecutive values mean ± PMF_SDS standard deviations (clipped to
            the binomial's range).
        pmf : float64 (S,)
        tail : float
            Mass of B outside ``support`` (below 1e-300 in practice).
        """
        from scipy import stats

        n, q = self.noise_law(m)
        mu, sd = n * q, math.sqrt(n * q * (1.0 - q))
        lo = max(0, int(mu - PMF_SDS * sd) - 2)
        hi = min(n, int(mu + PMF_SDS * sd) + 2)
        check((hi - lo + 1) * PMF_BYTES_PER_POINT, "epsilon", self.epsilon,
              f"the exact privacy of one batch of m = {m:,} users (a Binomial pmf of "
              f"{hi - lo + 1:,} points, noise sd {sd:.3g})",
              "raise ε or δ (the noise sd grows as sqrt(log(1/δ))/ε)")
        support = np.arange(lo, hi + 1, dtype=np.int64)
        pmf = stats.binom.pmf(support, n, q)
        tail = float(stats.binom.cdf(lo - 1, n, q) + stats.binom.sf(hi, n, q))
        return support, pmf, tail

    # --- randomizer, shuffler, analyzer -----------------------------------
    def encode(self, x, m, rng):
        """Local randomizer E(x) of one user in a batch of ``m`` (Algorithm 3, lines 4–9).

        Returns
        -------
        uint8 (message_length(m),)
            The message: x followed by the noise bits.
        """
        p = self.fair_bits(m)
        if p:
            noise = rng.random(p) < 0.5
        else:
            noise = np.array([rng.random() < self.tau / (2.0 * m)])
        return np.concatenate([[np.uint8(x)], noise.astype(np.uint8)])

    @staticmethod
    def shuffle(messages):
        """The shuffler: the multiset of all bits of all messages.

        A uniformly random permutation of the bits carries exactly the
        information of their multiset, which for bits is (ones, zeros).
        """
        bits = np.concatenate(list(messages))
        ones = int(bits.sum())
        return Multiset(ones, int(bits.size) - ones)

    def analyze(self, ones, m):
        """The analyzer A: ``ones − E[B]``, an unbiased estimate of Σ x (float)."""
        return float(ones) - self.noise_mean(m)

    def sum_per_user(self, x, rng):
        """Per-user path: encode every bit, shuffle, analyze (slow, obvious).

        Parameters
        ----------
        x : int (m,)
            The users' bits.
        rng : numpy.random.Generator
        """
        x = np.asarray(x, dtype=np.int64)
        m = x.size
        return self.analyze(self.shuffle(self.encode(xi, m, rng) for xi in x).ones, m)

    def sum_batched(self, x_sum, m, rng):
        """Batched path: the count of noise ones is one Binomial draw (exact).

        Parameters
        ----------
        x_sum : int
            Σ x_i, the true number of ones among the m users' bits.
        m : int
            Users in the batch.
        rng : numpy.random.Generator
        """
        return float(batched_sum(rng, int(x_sum), self._m(m), self.tau))

    # --- exact privacy -----------------------------------------------------
    def output_pmfs(self, m):
        """The shuffler's count of ones on two neighbouring inputs.

        Inputs X = (0, x_2, …, x_m) and X' = (1, x_2, …, x_m) with
        Σ_{j≥2} x_j = 0 (any other k shifts both pmfs alike).

        Returns
        -------
        support : int64 (S + 1,)
        p : float64 (S + 1,)
            P(count = s | X) = P(B = s).
        q : float64 (S + 1,)
            P(count = s | X') = P(B = s − 1).
        tail : float
            Mass outside the support, under either input.
        """
        support, pmf, tail = self.noise_pmf(m)
        support = np.append(support, support[-1] + 1)
        return support, np.append(pmf, 0.0), np.append(0.0, pmf), tail

    def exact_delta(self, m, epsilon=None):
        """Exact δ(ε) of one batch of ``m`` users (default ε: the nominal one).

        The larger of the two hockey-stick divergences between the output
        pmfs of neighbouring inputs, plus the (negligible) truncated tail mass.
        """
        eps = self.epsilon if epsilon is None else check_range("epsilon", epsilon, 0.0, None,
                                                              lo_open=False)
        _, p, q, tail = self.output_pmfs(m)
        return privacy_profile(p, q, eps) + tail

    def exact_epsilon(self, m, delta=None, tol=1e-9):
        """Smallest ε' with exact δ(ε') ≤ δ for a batch of ``m`` (default δ: the nominal one).

        Bisection on the decreasing map ε ↦ δ(ε); returns an upper bound
        within ``tol``, or ``inf`` when no finite ε reaches δ (the outputs one
        input can produce and its neighbour cannot already weigh more than δ).
        """
        target = self.delta if delta is None else check_range("delta", delta, 0.0, 1.0)
        _, p, q, tail = self.output_pmfs(m)
        if privacy_profile(p, q, 0.0) + tail <= target:
            return 0.0
        unmatched = max(float(p[q == 0].sum()), float(q[p == 0].sum()))  # δ(ε → ∞)
        if unmatched + tail > target:
            return math.inf
        lo, hi = 0.0, max(1.0, self.epsilon)
        while privacy_profile(p, q, hi) + tail > target:
            if hi > 350:  # e^ε would overflow next: no representable ε reaches δ
                return math.inf
            lo, hi = hi, 2 * hi
        while hi - lo > tol:
            mid = 0.5 * (lo + hi)
            if privacy_profile(p, q, mid) + tail > target:
                lo = mid
            else:
                hi = mid
        return hi


def hockey_stick(p, q, epsilon):
    """Hockey-stick divergence sup_F P(F) − e^ε Q(F) = Σ_s max(0, p_s − e^ε q_s).

    Parameters
    ----------
    p, q : float64 (S,)
        Two pmfs on a common support.
    epsilon : float
        ε ≥ 0.

    Returns
    -------
    float
        The smallest δ with P(F) ≤ e^ε Q(F) + δ for every event F.
    """
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    # e^ε overflows beyond ε ≈ 709; e^700 q already exceeds every p where q ≥ 1e-304, so
    # capping ε there can only over-count δ by the mass where 0 < q < e^{−700} p (an upper
    # bound, never a crash)
    return float(np.maximum(p - math.exp(min(epsilon, 700.0)) * q, 0.0).sum())


def privacy_profile(p, q, epsilon):
    """δ(ε) of a pair of neighbouring output pmfs: the larger of both directions."""
    return max(hockey_stick(p, q, epsilon), hockey_stick(q, p, epsilon))


def exact_delta(epsilon, delta, m, at_epsilon=None):
    """Exact δ of Algorithm 3 run with (ε, δ) on a batch of ``m`` users.

    Parameters
    ----------
    epsilon, delta : float
        The mechanism's nominal (claimed) ε and δ (they fix τ).
    m : int
        Users in the batch.
    at_epsilon : float, optional
        Evaluate δ(·) at this ε instead of the nominal one.

    Returns
    -------
    float
        δ(at_epsilon); the claim of Theorem A.1 holds iff it is ≤ ``delta``
        at ``at_epsilon = epsilon``.

    References
    ----------
    Tenenbaum et al. (2021), Appendix A, Theorem A.1.
    """
    return BinarySummation(epsilon, delta).exact_delta(m, at_epsilon)
