"""Elimination algorithms on the batched elimination engine.

``batch-se``, ``dist-dp-se``, ``dist-rdp-se``, ``dist-cdp-se``, ``cdp-se``,
``ldp-se`` and ``dist-dp-se-shuffle`` are Algorithm 1 of Chowdhury & Zhou
(batch-based successive elimination: l(b) = η^b users per active arm in batch
b, consecutive blocks, estimates from the current batch only, eliminate a
when max μ̂ − μ̂_a > 2β(b)) whose batch sums go through one mechanism:

=====================  ==================  ==================================
algorithm              mechanism           guarantee (Chowdhury & Zhou)
=====================  ==================  ==================================
``batch-se``           ``none``            non-private reference
``dist-dp-se``         ``dist-dp``         ε-DP, distributed (Theorem 1)
``dist-rdp-se``        ``dist-rdp``        RDP ε̂(α), distributed (Theorem 2)
``dist-cdp-se``        ``dist-cdp``        ρ-zCDP, distributed (Theorem 4)
``cdp-se``             ``central``         ε-DP, central (Theorem 5)
``ldp-se``             ``local``           ε-DP, local (Theorem 6)
``dist-dp-se-shuffle`` ``dist-dp-shuffle`` ε-DP via shuffling (Theorem 3)
=====================  ==================  ==================================

β(b) is Lemma 2, eq. (2) (:func:`confidence_radius`) with the mechanism's
tail constants (σ, h), |Φ(b)| = k active arms and the p that sets τ.
Defaults follow the paper's experiments (Section 7, Appendix J): p = 0.1,
l(b) = 4^b, s = 10; the theorems take p = 1/T (pass ``p``).

Privacy: users are unique and each contributes to one batch, so by parallel
composition the whole run has the guarantee of one batch (Section 6,
"Privacy"). Theorem 2's ε̂(α) and Theorem 4's ε̂ are uniform over batch
sizes; we record both the theorem's value and the per-batch one.

``dp-se`` is DP successive elimination of Sajed & Sheffet (ICML 2019;
Sajed's thesis, Algorithm 9): round-robin epochs with Laplace noise on each
epoch mean, on the same engine.

References
----------
Chowdhury & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits"
(ICLR 2023): Algorithm 1, Lemma 2 eq. (2), Theorems 1–6, Section 7,
Appendix J. Sajed & Sheffet (ICML 2019) / Sajed (MSc thesis 2019),
Chapter 5, Algorithm 9, Theorem 5.1.1; Chapter 6 (β = 1/T).
"""
import math

from ..kernels import codes
from ..params import BETA, EPSILON, GROWTH, HALF_OVER_T, P, SCALE
from ..privacy.participation import Release
from ..registry import get_mechanism
from ..errors import ConfigError
from .base import MAX_STAGE_PULLS, Plan, build_tables, mechanism_tables
from .families import BatchedElimination

CZ = "Chowdhury & Zhou (ICLR 2023)"
SAJED = "Sajed & Sheffet (ICML 2019)"


def batch_size(b: int, growth: float) -> int:
    """l(b) = η^b users per arm in batch b (1-based), rounded to an integer ≥ 1."""
    return max(1, int(round(growth**b)))


def confidence_radius(b: int, k: int, n: int, p: float, sigma: float = 0.0,
                      h: float = 0.0) -> float:
    """β(b) of Lemma 2, eq. (2) (Chowdhury & Zhou).

    β(b) = sqrt(log(4|Φ(b)| b²/p) / (2 l(b))) + σ sqrt(log(2|Φ(b)| b²/p)) / l(b)
           + h log(2|Φ(b)| b²/p) / l(b)

    Parameters
    ----------
    b : int
        Batch index (1-based).
    k : int
        |Φ(b)|, active arms.
    n : int
        l(b), users per arm.
    p : float
        Confidence parameter in (0, 1).
    sigma, h : float
        Tail constants of the privacy noise on the batch sum (Assumption 1):
        |n_a(b)| ≤ σ sqrt(log(2/p)) + h log(2/p) w.p. ≥ 1 − 2p.
    """
    l2 = math.log(2 * k * b * b / p)
    return (math.sqrt(math.log(4 * k * b * b / p) / (2 * n))
            + sigma * math.sqrt(l2) / n + h * l2 / n)


def plan_batch_se(params, arms, horizon):
    """Engine plan of Algorithm 1 with the identity protocol (no privacy)."""
    p, growth = params["p"], params["growth"]

    def stage(s, k):
        b = s + 1
        n = batch_size(b, growth)
        w = 2 * confidence_radius(b, k, n, p)
        return n, w, (), (), dict(n=n, width=w)

    batch, width, fpar, ipar, stages = build_tables(arms, horizon, stage)
    return Plan(batch=batch, width=width, mech=codes.NONE, fpar=fpar, ipar=ipar,
                order=codes.BLOCKS, stages=stages)


def dp_se_epoch(epoch, k, epsilon, beta):
    """Constants of DP-SE epoch ``epoch`` (1-based) with ``k`` viable arms.

    Returns
    -------
    dict
        ``R_e`` (real, line 8), ``rounds`` = ⌈R_e⌉ (the while loop of lines
        9–14 stops at the first integer r ≥ R_e), ``h_e`` and ``c_e`` (line 15,
        with the real R_e), ``width`` = 2 h_e + 2 c_e (line 20).

    References
    ----------
    Sajed (2019), Algorithm 9, lines 7, 8, 15, 20. Logarithms are natural.
    """
    delta_e = 2.0 ** (-epoch)
    l1 = math.log(8 * k * epoch**2 / beta)
    l2 = math.log(4 * k * epoch**2 / beta)
    r_e = max(32 * l1 / delta_e**2, 8 * l2 / (epsilon * delta_e)) + 1
    h_e = math.sqrt(l1 / (2 * r_e))
    c_e = l2 / (r_e * epsilon)
    return dict(R_e=r_e, rounds=math.ceil(r_e), h_e=h_e, c_e=c_e, width=2 * h_e + 2 * c_e)


def plan_dp_se(params, arms, horizon):
    """Engine plan of DP-SE: round-robin epochs, Lap(1/(ε r)) on each epoch mean.

    The Laplace noise Lap(1/(ε r)) on a mean of r rewards is Lap(1/ε) on their
    sum (sensitivity 1): the ``laplace`` mechanism (Algorithm 9 line 16;
    Theorem 5.1.1).
    """
    eps, beta = params["epsilon"], params["beta"]
    # epoch 1 gives every arm ⌈R_1⌉ ≥ 16 log(4K/β)/ε pulls (line 8): K·R_1 must fit the
    # engine's int64 arithmetic
    l2 = math.log(4 * arms / beta)
    if not arms * 16 * l2 / eps < MAX_STAGE_PULLS / 2:
        eps_min = 32 * arms * l2 / MAX_STAGE_PULLS
        raise ConfigError("epsilon", eps,
                          f"must be at least {eps_min:.3g} for DP-SE with K = {arms} arms and "
                          f"β = {beta:.3g}: its first epoch gives every arm 16 log(4K/β)/ε pulls "
                          "(Algorithm 9, line 8), and K times that must stay below 2^61")

    def stage(s, k, batch_of):
        c = dp_se_epoch(s + 1, k, eps, beta)
        info = dict(n=c["rounds"], width=c["width"], h_e=c["h_e"], c_e=c["c_e"])
        return c["rounds"], c["width"], info

    batch, width, fpar, ipar, stages, _ = mechanism_tables(
        get_mechanism("laplace"), params, arms, horizon, stage, n_fpar=1, n_ipar=1,
        blame=("epsilon", eps))
    return Plan(batch=batch, width=width, mech=codes.LAPLACE, fpar=fpar, ipar=ipar,
                order=codes.ROUND_ROBIN, stages=stages, mechanism="laplace")


def dp_se_participation(params, horizon):
    """A reward of DP-SE enters one epoch sum, released + Lap(1/ε) (Lap(1/(ε r)) on the
    mean of r rewards; Sajed (2019), Algorithm 9 line 16, Theorem 5.1.1)."""
    return [Release("laplace", "its arm's epoch sum", 1 / params["epsilon"])]


def plan_protocol(name: str, params: dict, arms: int, horizon: int) -> Plan:
    """Engine plan of Algorithm 1 over the mechanism ``name`` (module docstring)."""
    p, growth = params["p"], params["growth"]
    mech = get_mechanism(name)

    def stage(s, k, batch_of):
        b = s + 1
        n = batch_size(b, growth)
        mc = batch_of(n)
        w = 2 * confidence_radius(b, k, n, p, mc.sigma, mc.h)
        return n, w, dict(mc.info(), width=w)

    batch, width, fpar, ipar, stages, batches = mechanism_tables(
        mech, params, arms, horizon, stage)
    first = batches[int(batch[0, arms])]
    privacy = dict(first.privacy, mechanism=name, theorem=first.theorem,
                   max_bits_per_user=max(st["bits"] for st in stages))
    summarize = getattr(mech, "summarize", None)
    if summarize is not None:
        privacy.update(summarize(list(batches.values())))
    return Plan(batch=batch, width=width, mech=first.code, fpar=fpar, ipar=ipar,
                order=codes.BLOCKS, stages=stages, privacy=privacy, mechanism=name)


def _protocol_algorithm(name, mechanism, summary, theorem, scale=False, p=P):
    params = (EPSILON, p, GROWTH) + ((SCALE,) if scale else ())
    mech = get_mechanism(mechanism)
    return BatchedElimination(
        name=name, summary=summary, trust=mech.trust, source=f"{CZ}, Algorithm 1 + {theorem}",
        params=params, plan=lambda prm, arms, horizon: plan_protocol(mechanism, prm, arms, horizon),
        mechanism=mechanism, family="batch-se")


BATCH_SE = BatchedElimination(
    name="batch-se", summary="non-private batched successive elimination (doubling batches)",
    trust="none", source=f"{CZ}, Algorithm 1 with the identity protocol",
    params=(P, GROWTH.with_default(2.0)), plan=plan_batch_se, mechanism="none")

DP_SE = BatchedElimination(
    name="dp-se", summary="DP successive elimination: epochs, Laplace noise on epoch means",
    trust="central ε-DP", source=f"{SAJED}, Algorithm 9", params=(EPSILON, BETA),
    plan=plan_dp_se, mechanism="laplace", family="se", participation=dp_se_participation)

ALGORITHMS = (
    BATCH_SE, DP_SE,
    _protocol_algorithm("dist-dp-se", "dist-dp",
                        "batched SE, SecAgg with Pólya noise (discrete Laplace total)",
                        "Theorem 1"),
    _protocol_algorithm("dist-rdp-se", "dist-rdp", "batched SE, SecAgg with Skellam noise",
                        "Theorem 2", scale=True),
    _protocol_algorithm("dist-cdp-se", "dist-cdp",
                        "batched SE, SecAgg with discrete Gaussian noise", "Theorem 4",
                        scale=True),
    _protocol_algorithm("cdp-se", "central", "batched SE, discrete Laplace added by the analyzer",
                        "Theorem 5"),
    _protocol_algorithm("ldp-se", "local", "batched SE, discrete Laplace added by every user",
                        "Theorem 6"),
    _protocol_algorithm("dist-dp-se-shuffle", "dist-dp-shuffle",
                        "Dist-DP-SE at ε/2 over an (ε/4, 1/(2T))-relaxed SecAgg simulated "
                        "by shuffling", "Theorem 3", p=P.with_default(HALF_OVER_T)),
)
