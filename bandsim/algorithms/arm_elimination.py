"""SDP-AE and VB-SDP-AE: arm elimination in the shuffle model (Tenenbaum et al.).

Both run in phases t = 1, 2, …: every viable arm gets one batch of new users
(consecutive pulls, arm after arm), whose binary rewards go through the
(ε, δ) shuffle binary-summation mechanism M_sum (Algorithm 3,
:mod:`bandsim.shuffle`); the server keeps the cumulative noisy sum Ŝ_a^t and
count N_a^t of every arm, μ̂_a^t = Ŝ_a^t / N_a^t, and removes every arm with
UCB_a^t < max_a' LCB_a'^t, UCB/LCB = μ̂ ± I_a^t,

    I_a^t = (2 √t σ_{ε,δ} / N_a^t + 1/√N_a^t) · √(2 log T).

All viable arms share N_a^t, so I_a^t is common and the rule is
max μ̂ − μ̂_a > 2 I^t (the engine's strict width test). σ_{ε,δ} is the
mechanism's sub-Gaussian constant σ² = 3τ/2 = 144 log(2/δ)/ε²
(:func:`bandsim.shuffle.subgaussian_variance`).

- ``sdp-ae``: fixed batch size m (Algorithm 1), default ⌈σ²_{ε,δ}⌉
  (Corollary 3.2, read as σ², see docs/fidelity.md), N_a^t = m t.
- ``vb-sdp-ae``: m^t = 2^t (Algorithm 2), N_a^t = 2^{t+1} − 2.

Rewards must be binary: Bernoulli instances run as they are; [0, 1]-valued
rewards are binarized by each user with one Bernoulli(x) draw (unbiased), so a
batch sum is exactly Binomial(n, E[X]); the result's config says so.

Privacy: every batch is (ε, δ)-SDP and each user is in one batch only, so the
algorithm is (ε, δ)-SDP (Section 3.2.2). The exact δ of every batch size used
is computed from the mechanism's output pmfs and recorded in the config.

References
----------
Tenenbaum, Kaplan, Mansour & Stemmer (NeurIPS 2021): Section 3.1,
Algorithm 1, Theorem 3.1, Corollary 3.2 (SDP-AE); Section 3.2, Algorithm 2,
Theorem 3.3 (VB-SDP-AE); Appendix A, Algorithm 3, Theorem A.1 (M_sum).
"""
import math

from ..costs import RunCost
from ..errors import ConfigError
from ..kernels import codes
from ..mechanisms.binary_summation import subgaussian_variance
from ..params import BATCH_SIZE, DELTA, EPSILON, Derived
from ..privacy.participation import per_batch
from ..registry import get_mechanism
from .base import Plan, mechanism_tables
from .families import BatchedElimination

TENENBAUM = "Tenenbaum et al. (NeurIPS 2021)"

#: Most phases an SDP-AE schedule may have (tables are O(phases × K)).
SDP_AE_MAX_PHASES = 100_000


def confidence_bound(t, pulls, sigma, horizon):
    """I_a^t = (2 √t σ / N_a^t + 1/√N_a^t) √(2 log T) (float; natural log).

    Parameters
    ----------
    t : int
        Phase (1-based): the number of M_sum outputs summed in Ŝ_a^t.
    pulls : int
        N_a^t, users (pulls) of the arm in phases 1…t.
    sigma : float
        σ_{ε,δ}, the sub-Gaussian constant of M_sum's error.
    horizon : int
        T.

    References
    ----------
    Tenenbaum et al. (2021), Algorithm 1 line 14, Algorithm 2 line 15, proof of Theorem 3.1
    (eqs. (1)–(3)).
    """
    return (2.0 * math.sqrt(t) * sigma / pulls + 1.0 / math.sqrt(pulls)) * math.sqrt(
        2.0 * math.log(horizon))


def default_batch_size(epsilon, delta):
    """m = ⌈σ²_{ε,δ}⌉ = ⌈144 log(2/δ)/ε²⌉ (Corollary 3.2 read with σ², see docs/fidelity.md).

    The corollary prints m = ⌈σ_{ε,δ}⌉ = Θ(log(1/δ)/ε²); only σ² has that
    order, and only m ≍ σ² turns Theorem 3.1's σ² log T/(m Δ) + m Δ into the
    corollary's log T/Δ + log(1/δ)/ε².
    """
    return math.ceil(subgaussian_variance(epsilon, delta))


def _batch_info(mech, m):
    return dict(regime=mech.regime(m), noise_var=mech.error_variance(m),
                exact_delta=mech.exact_delta(m))


def _notes(mech, rule, exact_delta_max):
    return {"mechanism": dict(
        name="shuffle binary summation (Tenenbaum et al. (2021), Algorithm 3)",
        epsilon=mech.epsilon, delta=mech.delta, tau=mech.tau,
        sigma2_subgaussian=mech.sigma2, batch_size=rule,
        exact_delta_max=exact_delta_max)}


def plan_sdp_ae(params, arms, horizon):
    """Engine plan of SDP-AE (Tenenbaum et al. (2021), Algorithm 1): fixed batch m, cumulative estimates.

    Raises
    ------
    ConfigError
        If the schedule needs more than ``SDP_AE_MAX_PHASES`` phases.
    """
    spec = get_mechanism("binary-summation")
    mech = spec.derive(1, params).extra["mech"]
    m = int(params["batch_size"])
    need = math.ceil(horizon / (2 * m))
    if need > SDP_AE_MAX_PHASES:
        raise ConfigError("batch_size", m,
                          f"must be at least {math.ceil(horizon / (2 * SDP_AE_MAX_PHASES)):,} at "
                          f"horizon {horizon:,} (at most {SDP_AE_MAX_PHASES:,} phases)")
    sigma = math.sqrt(mech.sigma2)

    def stage(s, k, batch_of):
        t = s + 1
        w = 2.0 * confidence_bound(t, m * t, sigma, horizon)
        return m, w, dict(n=m, width=w)

    batch, width, fpar, ipar, stages, _ = mechanism_tables(
        spec, params, arms, horizon, stage, n_fpar=1, n_ipar=1,
        max_stages=SDP_AE_MAX_PHASES + 1, by_k=False)
    info = _batch_info(mech, m)
    notes = _notes(mech, f"fixed m = {m}", info["exact_delta"])
    notes["mechanism"].update(regime=info["regime"], noise_var=info["noise_var"])
    return Plan(batch=batch, width=width, mech=codes.SHUFFLE_BINARY, fpar=fpar, ipar=ipar,
                order=codes.BLOCKS, cumulative=True, stages=stages, notes=notes,
                mechanism=spec.name)


def plan_vb_sdp_ae(params, arms, horizon):
    """Engine plan of VB-SDP-AE (Tenenbaum et al. (2021), Algorithm 2): m^t = 2^t, cumulative estimates."""
    spec = get_mechanism("binary-summation")
    mech = spec.derive(1, params).extra["mech"]
    sigma = math.sqrt(mech.sigma2)

    def stage(s, k, batch_of):
        t = s + 1
        m = 2**t
        w = 2.0 * confidence_bound(t, 2 ** (t + 1) - 2, sigma, horizon)
        return m, w, dict(n=m, width=w, **_batch_info(mech, m))

    batch, width, fpar, ipar, stages, _ = mechanism_tables(
        spec, params, arms, horizon, stage, n_fpar=1, n_ipar=1, by_k=False)
    notes = _notes(mech, "m^t = 2^t", max(st["exact_delta"] for st in stages))
    return Plan(batch=batch, width=width, mech=codes.SHUFFLE_BINARY, fpar=fpar, ipar=ipar,
                order=codes.BLOCKS, cumulative=True, stages=stages, notes=notes,
                mechanism=spec.name)


def _default_batch_size(params, horizon):
    return default_batch_size(params["epsilon"], params["delta"])


#: A user's reward enters the analyzer's view as one bit of one batch's binary summation.
_ONE_BIT = per_batch("its bit in one batch's binary summation")

#: Measured cost of a run (benchmarks/run_cost.py, docs/suite.md): fixed batches, so
#: O(T / m) phases over K arms (0.0017 ns at K = 80, T = 10⁸; 0.0067 at K = 5, T = 10⁶).
SDP_AE_COST = RunCost(0.007, "T·K", "0.0067 at K = 5, T = 10⁶")

SDP_AE = BatchedElimination(
    name="sdp-ae",
    summary="shuffle-DP arm elimination, fixed batches, binary summation (Alg. 3)",
    trust="shuffle (ε, δ)-DP",
    source=f"{TENENBAUM}, Algorithm 1 + Algorithm 3",
    params=(EPSILON, DELTA, BATCH_SIZE.with_default(Derived(_default_batch_size, "⌈σ²⌉"))),
    plan=plan_sdp_ae, mechanism="binary-summation", binary_rewards=True, family="arm-elimination",
    participation=_ONE_BIT, run_cost=SDP_AE_COST,
)

VB_SDP_AE = BatchedElimination(
    name="vb-sdp-ae",
    summary="shuffle-DP arm elimination, batches 2^t, binary summation (Alg. 3)",
    trust="shuffle (ε, δ)-DP",
    source=f"{TENENBAUM}, Algorithm 2 + Algorithm 3",
    params=(EPSILON, DELTA), plan=plan_vb_sdp_ae, mechanism="binary-summation",
    binary_rewards=True, family="arm-elimination",
    participation=_ONE_BIT,
)
