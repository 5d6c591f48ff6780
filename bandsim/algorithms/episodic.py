"""Private index policies beyond the seeds: AdaP-UCB/KLUCB, DP-KLUCB/IMED, (Lazy-)DP-TS.

Parameters are derived here in plain Python, with the paper's equation
cited; the kernels receive numbers and one index function.

``adap-ucb``, ``adap-klucb``
    :func:`kernels.episodic.run_shard`: doubling episodes, private mean of
    the last episode (forgetting); Lap(1/ε) on each episode's reward sum.
``dp-klucb``, ``dp-imed`` (provisional)
    :func:`kernels.episodic.run_shard`: geometric episodes of ratio α,
    cumulative private sum; Lap(1/ε) on each episode's reward sum.
``lazy-dp-ts``
    :func:`kernels.thompson.run_lazy_dp_ts_shard`: a decision every round,
    private means of chunks of 2^r fresh rewards; Lap(1/ε) on each chunk sum.
``dp-ts``
    :func:`kernels.thompson.run_dp_ts_shard`: a decision every round; ε/2 on
    the completed epochs (Lap(2/ε) per epoch sum), ε/2 on the current epoch
    (binary mechanism, Lap(2(r+1)/ε) per node, drawn once per node).

Every reward sum above has sensitivity 1 (rewards in [0, 1]); every reward
enters one released sum (or, for DP-TS, one epoch sum and the nodes of one
binary mechanism), so each algorithm is ε-DP in the central model.

Every plan has ``run_shard(rng, shard, rec=None)`` (a :class:`bandsim.kernels.shard.Shard`), a
``stages`` list (reports), ``shard_runs``
and ``privacy`` (the claim, copied into the result's configuration).
:data:`ALGORITHMS` declares them through the public plug-in API
(:class:`bandsim.Algorithm`); :data:`PLANS` maps each name to its
``plan_<name>(params, arms, horizon)``.

References
----------
Azize & Basu, "When Privacy Meets Partial Information: A Refined Analysis of
Differentially Private Bandits", NeurIPS 2022: Algorithm 1, Eq. (7),
Theorem 6 (privacy), Section 5 (α = 3.1).
Azize, Wu, Honda, Orabona, Ito & Basu, "Optimal Regret of Bernoulli Bandits
under Global Differential Privacy", arXiv 2505.05613 (NeurIPS 2025).
Hu & Hegde, "Near-optimal Thompson sampling-based algorithms for
differentially private stochastic bandits", UAI 2022: Algorithm 1 (DP-TS),
Algorithm 2 (Lazy-DP-TS), Theorems 1 and 3 (privacy).
"""
import math
from dataclasses import dataclass, field

import numpy as np

from ..costs import RunCost
from ..errors import check_range
from ..guarantees import Guarantee
from ..kernels import codes, episodic, indices, lazy_events, thompson
from ..mechanisms import SumBatch
from ..mechanisms.families import InsideEngine
from ..params import EPSILON, Param
from ..privacy.audit import audit_laplace
from ..privacy.participation import Release, cases
from ..privacy.report import AuditReport, Row
from ..registry import register as add
from .base import (EPISODIC_SHARD_RUNS, PER_ROUND_SHARD_PULLS, EpisodicPlan,  # noqa: F401
                   SamplerPlan, laplace_claim, per_round_shard_runs)
from .families import ROUND_COST, EpisodicIndex, PerRoundThompson, ThompsonSampler


BERNOULLI_ONLY = ("bernoulli",)
ALL_REWARDS = ("bernoulli", "gaussian", "categorical")
_AZIZE_2025 = "Azize, Wu, Honda, Orabona, Ito & Basu, NeurIPS 2025 (arXiv 2505.05613)"


def _epsilon(params):
    return check_range("epsilon", params["epsilon"], 0.0, None)


# ------------------------------------------------------------ episodic plans

def adap_constants(epsilon, alpha):
    """Constants of AdaP-UCB / AdaP-KLUCB.

    Returns
    -------
    dict
        ``c`` = [0, α, ε] for the indices of Eq. (7); ``noise_scale`` = 1/ε:
        the episode mean gets Lap(1/(ε n)) with n its size (sensitivity 1/n
        of a mean of n rewards in [0, 1]), i.e. Lap(1/ε) on the episode sum;
        ``ratio`` = 2 (an arm is played until its count doubles).

    References
    ----------
    Azize & Basu, NeurIPS 2022, Algorithm 1 and Eq. (7); Theorem 6.
    """
    return dict(c=np.array([0.0, alpha, epsilon]), noise_scale=1.0 / epsilon, ratio=2.0)


def _plan_adap(params, kl):
    eps = _epsilon(params)
    alpha = check_range("alpha", params.get("alpha", 3.1), 0.0, None)
    k = adap_constants(eps, alpha)
    name = "AdaP-KLUCB" if kl else "AdaP-UCB"
    index = ("max{q ≥ x : kl(x, q) ≤ α ln t / n}, x = clip(m + α ln t / (ε n))" if kl
             else "m + sqrt(α ln t / (2n)) + α ln t / (ε n)")
    stages = [dict(index=index, alpha=alpha, episodes="doubling (1, 1, 2, 4, ...)",
                   statistic="m = private mean of the last episode, n = its size",
                   noise="Lap(1/ε) on each episode sum, drawn once when it ends",
                   ties="uniformly random")]
    privacy = laplace_claim(eps, "Azize & Basu, NeurIPS 2022, Theorem 6",
                            "each episode's reward sum (episodes are disjoint)",
                            k["noise_scale"])
    return EpisodicPlan(index=indices.adap_klucb_index if kl else indices.adap_ucb_index,
                        c=k["c"], ratio=k["ratio"], rule=episodic.GEOMETRIC,
                        estimator=episodic.LAST_EPISODE, noise_scale=k["noise_scale"],
                        tie_random=True, stages=stages, privacy=privacy,
                        notes={"algorithm_reading": f"{name}: docs/fidelity.md"})


def plan_adap_ucb(params, arms, horizon):
    """AdaP-UCB (Azize & Basu, NeurIPS 2022, Algorithm 1 with Eq. (7), first index)."""
    return _plan_adap(params, kl=False)


def plan_adap_klucb(params, arms, horizon):
    """AdaP-KLUCB (Azize & Basu, NeurIPS 2022, Algorithm 1 with Eq. (7), second index)."""
    return _plan_adap(params, kl=True)


def dp_klucb_constants(epsilon, alpha):
    """Constants of DP-KLUCB / DP-IMED (provisional reading).

    Returns
    -------
    dict
        ``c`` = [0, ε] (the indices use d_ε with this ε); ``noise_scale`` =
        1/ε on each episode's reward sum, added to the arm's running private
        sum; ``ratio`` = α (an arm is played until its count reaches ⌈α N⌉).

    References
    ----------
    Azize, Wu, Honda, Orabona, Ito & Basu, NeurIPS 2025 (DP-KLUCB, DP-IMED).
    """
    return dict(c=np.array([0.0, epsilon]), noise_scale=1.0 / epsilon, ratio=alpha)


def _plan_dp_kl(params, imed):
    eps = _epsilon(params)
    alpha = check_range("alpha", params.get("alpha", 2.0), 1.0, None)
    grid = bool(params.get("grid", False))
    k = dp_klucb_constants(eps, alpha)
    index = ("argmin N d_ε(x, x*) + ln N, x = clip(S̃/N), x* = max clip(S̃_b/N_b)" if imed
             else "max{μ ≥ x : d_ε(x, μ) ≤ ln t / N}, x = clip(S̃/N)")
    episodes = (f"per-arm grid ⌈α^k⌉, α = {alpha:g}" if grid
                else f"until N reaches ⌈α N⌉, α = {alpha:g}")
    stages = [dict(index=index, alpha=alpha, episodes=episodes,
                   statistic="S̃ = running sum of the episode sums, each + Lap(1/ε)",
                   noise="Lap(1/ε) on each episode sum", ties="uniformly random",
                   provisional="index and estimator read from the authors' slides and a "
                               "sibling paper; see docs/fidelity.md")]
    privacy = laplace_claim(eps, _AZIZE_2025 + " (privacy of the episode sums)",
                            "each episode's reward sum (episodes are disjoint)",
                            k["noise_scale"])
    return EpisodicPlan(index=indices.dp_imed_index if imed else indices.dp_klucb_index,
                        c=k["c"], ratio=k["ratio"],
                        rule=episodic.GRID if grid else episodic.GEOMETRIC,
                        estimator=episodic.CUMULATIVE, noise_scale=k["noise_scale"],
                        tie_random=True, stages=stages, privacy=privacy,
                        notes={"provisional": "DP-KLUCB/DP-IMED are specified from "
                                              "secondary sources (docs/fidelity.md)"})


def plan_dp_klucb(params, arms, horizon):
    """DP-KLUCB, provisional (Azize et al., NeurIPS 2025)."""
    return _plan_dp_kl(params, imed=False)


def plan_dp_imed(params, arms, horizon):
    """DP-IMED, provisional (Azize et al., NeurIPS 2025)."""
    return _plan_dp_kl(params, imed=True)


# ----------------------------------------------------- Thompson-sampling plans

def log_factor(log2):
    """LOG(x) = factor · ln x: 1/ln 2 for log₂, 1 for the natural log."""
    return 1.0 / math.log(2.0) if log2 else 1.0


def lazy_dp_ts_constants(epsilon, log2=False):
    """Constants of Lazy-DP-TS.

    Returns
    -------
    dict
        ``c_shift`` = 3/ε of the shift υ = 3 LOG(t)/(ε O); ``noise_scale`` =
        1/ε on each chunk sum (sensitivity 1); ``log_factor``.

    References
    ----------
    Hu & Hegde, UAI 2022, Algorithm 2 (lines of the shift and of the chunk
    release) and Theorem 3.
    """
    return dict(c_shift=3.0 / epsilon, noise_scale=1.0 / epsilon, log_factor=log_factor(log2))


def dp_ts_constants(epsilon, log2=True):
    """Constants of DP-TS.

    Returns
    -------
    dict
        ``c_shift`` = 6√8/ε of υ = 6√8 LOG(O + 1) LOG(t)/(ε O) (the radical
        covers the 8 only); ``chunk_scale`` = 1/(0.5ε) = 2/ε on the initial
        reward and on each completed epoch's sum; ``node_scale`` = 2/ε: in
        epoch r the binary mechanism, bounded by 2^(r+1) items at privacy
        0.5ε, adds Lap(log₂(2^(r+1))/(0.5ε)) = Lap(2(r+1)/ε) to each node;
        ``log_factor``.

    References
    ----------
    Hu & Hegde, UAI 2022, Algorithm 1, Section 3.1, Appendix B, Theorem 1;
    Chan, Shi & Song (2011), Theorem 3.5.
    """
    return dict(c_shift=6.0 * math.sqrt(8.0) / epsilon, chunk_scale=2.0 / epsilon,
                node_scale=2.0 / epsilon, log_factor=log_factor(log2))


@dataclass(kw_only=True)
class LazyEventsPlan:
    """Plan for :func:`kernels.lazy_events.run_lazy_dp_ts_events_shard`: Lazy-DP-TS's
    event-driven engine (``engine="events"``), equal in law to the per-round one
    (:class:`SamplerPlan` with :func:`kernels.thompson.lazy_dp_ts_sample`)."""

    c_shift: float
    noise_scale: float
    log_factor: float
    shard_runs: int = 16  # a run costs O(log T) windows, not O(T) rounds
    stages: list = field(default_factory=list)
    privacy: dict = None
    engine: str = "events"  # the whole-run audit's budget: no per-pull cost

    def run_shard(self, rng, shard, rec=None):
        """Simulate one shard of runs in place (``rec``: a recorder in the whole-run audit)."""
        lazy_events.bind_special_functions()  # SciPy's incomplete beta, loaded at first use
        lazy_events.run_lazy_dp_ts_events_shard(rng, shard, self.c_shift, self.noise_scale,
                                                self.log_factor, rec)


#: Engines of Lazy-DP-TS, equal in law: event-driven (the default) and the per-round
#: reference (the posterior-sampler family's engine, the sampler inlined).
LAZY_ENGINES = ("events", "per-round")


@dataclass(kw_only=True)
class DpTsPlan:
    """Plan for :func:`kernels.thompson.run_dp_ts_shard`."""

    c_shift: float
    chunk_scale: float
    node_scale: float
    log_factor: float
    shard_runs: int = 1
    stages: list = field(default_factory=list)
    privacy: dict = None

    def run_shard(self, rng, shard, rec=None):
        """Simulate one shard of runs in place (``rec``: a recorder in the whole-run audit)."""
        thompson.run_dp_ts_shard(rng, shard, self.c_shift, self.chunk_scale, self.node_scale,
                                 self.log_factor, rec)


def plan_lazy_dp_ts(params, arms, horizon):
    """Lazy-DP-TS (Hu & Hegde, UAI 2022, Algorithm 2); LOG = ln unless ``log2``."""
    eps = _epsilon(params)
    log2 = bool(params.get("log2", False))
    k = lazy_dp_ts_constants(eps, log2)
    engine = params.get("engine", "events")
    if engine not in LAZY_ENGINES:
        raise ValueError(f"engine must be one of {LAZY_ENGINES}, got {engine!r}")
    stages = [dict(engine=engine, shift="3 LOG(t) / (ε O)", log="log2" if log2 else "ln",
                   chunks="O = 1 (initial pull), 2, 4, 8, ... fresh rewards per arm",
                   noise="Lap(1/ε) on each chunk sum", posterior="Beta(m̄ O + 1, (1 − m̄) O + 1)")]
    privacy = laplace_claim(eps, "Hu & Hegde, UAI 2022, Theorem 3",
                            "each chunk's reward sum (chunks are disjoint)", k["noise_scale"])
    if engine == "events":
        return LazyEventsPlan(c_shift=k["c_shift"], noise_scale=k["noise_scale"],
                              log_factor=k["log_factor"], stages=stages, privacy=privacy)
    return SamplerPlan(sample=thompson.lazy_dp_ts_sample,
                       c=np.array([0.0, k["c_shift"] * k["log_factor"]]),
                       noise_scale=k["noise_scale"], shard_runs=per_round_shard_runs(horizon),
                       stages=stages, privacy=privacy)


def plan_dp_ts(params, arms, horizon):
    """DP-TS (Hu & Hegde, UAI 2022, Algorithm 1); LOG = log₂ unless ``log2`` is false."""
    eps = _epsilon(params)
    log2 = bool(params.get("log2", True))
    k = dp_ts_constants(eps, log2)
    stages = [dict(shift="6 √8 LOG(O + 1) LOG(t) / (ε O)", log="log2" if log2 else "ln",
                   epochs="epoch r of an arm holds 2^(r+1) rewards",
                   noise="Lap(2/ε) per completed epoch sum; binary mechanism in the "
                         "current epoch r, Lap(2(r+1)/ε) per node, drawn once per node")]
    privacy = laplace_claim(eps, "Hu & Hegde, UAI 2022, Theorem 1",
                            "each completed epoch's reward sum (ε/2) and the nodes of the "
                            "binary mechanism of the current epoch (ε/2)", k["chunk_scale"],
                            node_scale=f"{k['node_scale']:g} (r + 1) in epoch r",
                            composition="ε/2 + ε/2 (basic composition)")
    return DpTsPlan(c_shift=k["c_shift"], chunk_scale=k["chunk_scale"],
                    node_scale=k["node_scale"], log_factor=k["log_factor"],
                    shard_runs=per_round_shard_runs(horizon), stages=stages, privacy=privacy)


# ------------------------------------------------- what one participation releases

def dp_ts_participation(params, horizon):
    """The releases a reward of DP-TS enters (Hu & Hegde, UAI 2022, Algorithm 1, Theorem 1).

    Its epoch's completed sum (or the first pull's reward) + Lap(2/ε) (0.5ε), and
    — case "r = k" for every epoch k an arm reaches within the horizon (epoch r
    starts at the arm's pull 2^(r+1)) — at most r + 1 nodes of epoch r's binary
    mechanism over 2^(r+1) items at 0.5ε, each + Lap(log₂(2^(r+1))/(0.5ε)) =
    Lap(2(r + 1)/ε) (Chan, Shi & Song 2011, Theorem 3.5).
    """
    eps = params["epsilon"]
    epochs = range(max(0, int(horizon).bit_length() - 1))  # r with 2^(r+1) ≤ T
    # recorded positions (tag, n) (kernels.thompson.run_dp_ts_shard): the first pull is
    # tag −1, n = 1; epoch r's completed sum is tag r, n = 2^(r+1); its nodes are tag r,
    # n = 2^i at level i ≤ r (the stream never reaches item 2^(r+1): the epoch closes)
    out = [Release("laplace", "its epoch's completed sum (or the first pull)", 2 / eps,
                   positions=((-1, 1),) + tuple((r, 2 ** (r + 1)) for r in epochs))]
    for r in epochs:
        out.append(Release("laplace", f"the binary mechanism's nodes in epoch r = {r}",
                           2 * (r + 1) / eps, count=r + 1, case=f"r = {r}",
                           positions=tuple((r, 2 ** i) for i in range(r + 1))))
    return out


# ---------------------------------------------------------------- declarations

PLANS = {
    "adap-ucb": plan_adap_ucb,
    "adap-klucb": plan_adap_klucb,
    "dp-klucb": plan_dp_klucb,
    "dp-imed": plan_dp_imed,
    "lazy-dp-ts": plan_lazy_dp_ts,
    "dp-ts": plan_dp_ts,
}


ALPHA_ADAP = Param("alpha", 3.1, lo=0.0, unit="exponent",
                   help="optimism exponent α of AdaP-UCB/KLUCB (theory: α > 3)")
ALPHA_RATIO = Param("alpha", 2.0, lo=1.0, unit="ratio",
                    help="episode ratio α > 1 of DP-KLUCB/DP-IMED (provisional default 2)")
GRID = Param("grid", False, boolean=True, help="per-arm episode grid ⌈α^k⌉ instead of ⌈αN⌉")


LAZY_ENGINE = Param("engine", "events", choices=LAZY_ENGINES, unit="engine",
                    help="Lazy-DP-TS engine, equal in law: events (skips the rounds the leader "
                         "must win) or per-round (the reference)")


def _log2(default):
    return Param("log2", default, boolean=True, help="LOG = log₂ (true) or ln (false)")


def _declare(name, summary, source, params, plan, rewards, provisional=False, family=None,
             index=None, mechanism="laplace", participation=None, sample=None, run_cost=None):
    base = dict(name=name, summary=summary, source=source, params=params, plan=plan,
                mechanism=mechanism, rewards=rewards, provisional=provisional, family=family)
    if run_cost is not None:  # else the family's (:mod:`bandsim.costs`)
        base["run_cost"] = run_cost
    if participation is not None:  # else the family's (EpisodicIndex: Lap(1/ε) per episode)
        base["participation"] = participation
    if sample is not None:
        return ThompsonSampler(sample=sample, **base)
    if index is None:
        return PerRoundThompson(**base)
    return EpisodicIndex(index=index, **base)


#: Measured ns per unit of a run (benchmarks/run_cost.py, docs/suite.md): AdaP-KLUCB's KL indices
#: by bisection; Lazy-DP-TS by engine (event-driven: its events, O(log T) per arm; the
#: per-round reference: K Beta draws a round); DP-TS: K Beta draws a round.
KLUCB_COST = RunCost(14_200.0, "K²", "14,180 at K = 80, T = 10⁸")
DP_KLUCB_COST = RunCost(3_110.0, "K·log₂T", "3,106 at K = 80, T = 10⁶")
LAZY_COSTS = {"events": RunCost(6_500.0, "K²·√K·log₂T",
                                "6,490 at K = 5, T = 10⁶; 6,230 at K = 80, T = 10⁸"),
              "per-round": ROUND_COST}
DP_TS_COST = RunCost(55.0, "T·K", "55.0 at K = 5, T = 10⁷; 39 at K = 80, T = 10⁶")


def lazy_dp_ts_cost(params):
    """Lazy-DP-TS's cost for its engine parameter (:data:`LAZY_COSTS`)."""
    return LAZY_COSTS[params.get("engine") or LAZY_ENGINES[0]]


AZIZE_BASU = "Azize & Basu (NeurIPS 2022), Algorithm 1, Eq. (7)"
HU_HEGDE = "Hu & Hegde (UAI 2022)"
ALGORITHMS = (
    _declare("adap-ucb", "AdaP-UCB: doubling episodes, UCB on the last episode's Laplace mean",
             AZIZE_BASU, (EPSILON, ALPHA_ADAP), plan_adap_ucb, ALL_REWARDS, family="ucb",
             index=indices.adap_ucb_index),
    _declare("adap-klucb", "AdaP-KLUCB: doubling episodes, KL-UCB on the last episode's "
             "Laplace mean", AZIZE_BASU, (EPSILON, ALPHA_ADAP), plan_adap_klucb, ALL_REWARDS,
             family="ucb", index=indices.adap_klucb_index, run_cost=KLUCB_COST),
    _declare("dp-klucb", "DP-KLUCB: geometric episodes (ratio α), d_ε-UCB on a cumulative "
             "Laplace mean", "Azize et al. (NeurIPS 2025), DP-KLUCB",
             (EPSILON, ALPHA_RATIO, GRID), plan_dp_klucb, BERNOULLI_ONLY, provisional=True,
             family="ucb", index=indices.dp_klucb_index, run_cost=DP_KLUCB_COST),
    _declare("dp-imed", "DP-IMED: geometric episodes (ratio α), IMED with d_ε on a "
             "cumulative Laplace mean", "Azize et al. (NeurIPS 2025), DP-IMED",
             (EPSILON, ALPHA_RATIO, GRID), plan_dp_imed, BERNOULLI_ONLY, provisional=True,
             family="ucb", index=indices.dp_imed_index),
    _declare("lazy-dp-ts", "Lazy-DP-TS: Thompson sampling on Laplace means of chunks of 2^r "
             "fresh rewards", f"{HU_HEGDE}, Algorithm 2", (EPSILON, _log2(False), LAZY_ENGINE),
             plan_lazy_dp_ts, BERNOULLI_ONLY, family="ts", sample=thompson.lazy_dp_ts_sample,
             run_cost=lazy_dp_ts_cost),
    _declare("dp-ts", "DP-TS: Thompson sampling on a private sum (Laplace per epoch + binary "
             "mechanism)", f"{HU_HEGDE}, Algorithm 1", (EPSILON, _log2(True)), plan_dp_ts,
             BERNOULLI_ONLY, family="ts", mechanism="dp-ts-composition",
             participation=dp_ts_participation, run_cost=DP_TS_COST),
)


def _dp_ts_batch(n, epsilon):
    """DP-TS's releases: Lap(2/ε) on epoch sums (ε/2) and the binary mechanism (ε/2)."""
    return SumBatch(name="dp-ts-composition", n=int(n), fpar=(2.0 / epsilon,), ipar=(),
                    code=codes.NONE, privacy=dict(guarantee="ε-DP, central (global)",
                                                  epsilon=epsilon,
                                                  theorem=f"{HU_HEGDE}, Theorem 1"),
                    theorem=f"{HU_HEGDE}, Theorem 1")


#: Pulls of one arm the exact audit of DP-TS covers: epochs r = 0 … 39.
AUDIT_PULLS = 2**40


def _audit_dp_ts(batch, algorithm, fold_max=None):
    """DP-TS as a composition of its declared releases (:func:`dp_ts_participation` over
    :data:`AUDIT_PULLS` pulls): each Laplace release audited exactly, the epoch sum's and
    the worst epoch r's r + 1 nodes added up, against Theorem 1's ε/2 + ε/2."""
    eps = batch.privacy["epsilon"]
    releases = dp_ts_participation(dict(epsilon=eps), AUDIT_PULLS)

    def exact(rs):  # ε of every release in rs (count of each), each audited exactly
        return sum(r.count * audit_laplace(r.scale, r.epsilon / r.count, batch.n,
                                           r.sensitivity).rows[0].exact for r in rs)

    rows = [Row("ε of an epoch sum (Lap(2/ε))", eps / 2,
                exact(r for r in releases if not r.case), error=1e-12, short="ε epoch")]
    worst = max(exact(r for r in rs if r.case) for rs in cases(releases).values())
    rows.append(Row("ε of the binary mechanism (r + 1 nodes, worst epoch r)", eps / 2, worst,
                    error=1e-12, short="ε tree"))
    rows.append(Row("ε total (basic composition)", eps, rows[0].exact + worst, error=1e-12,
                    short="ε"))
    view = ("a reward enters one epoch sum + Lap(2/ε) and at most r + 1 nodes of the binary "
            "mechanism of its epoch, each + Lap(2(r + 1)/ε); sensitivity 1 each")
    return AuditReport(algorithm=algorithm, guarantee=f"ε-DP, central ({HU_HEGDE}, Theorem 1)",
                       view=view, params=dict(n=batch.n, epsilon=eps,
                                              noise="Lap(2/ε), Lap(2(r+1)/ε)"),
                       rows=rows, headline=2)


def register():
    """Register the mechanism of DP-TS and the six algorithms (the public plug-in API)."""
    add(InsideEngine(name="dp-ts-composition", summary="Laplace on epoch sums + binary "
                     "mechanism in the current epoch", source=f"{HU_HEGDE}, Algorithm 1",
                     trust="central ε-DP", kind=Guarantee.LAPLACE, batch=_dp_ts_batch,
                     audit=_audit_dp_ts, audit_points=lambda b, fold_max=None: 40 * 20001,
                     samplers=("Generator.laplace",), float_safe=False))
    add(*ALGORITHMS)


__all__ = ["ALGORITHMS", "PLANS", "EpisodicPlan", "LazyEventsPlan", "DpTsPlan",
           "adap_constants", "dp_klucb_constants", "lazy_dp_ts_constants", "dp_ts_constants",
           "plan_adap_ucb", "plan_adap_klucb", "plan_dp_klucb", "plan_dp_imed",
           "plan_lazy_dp_ts", "plan_dp_ts"]
