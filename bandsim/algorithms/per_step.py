"""Per-step algorithms of Sajed's thesis: UCB1, Successive Elimination, DP-UCB.

``ucb1``, ``se`` and ``dp-ucb`` decide at every pull or cycle and run on the
per-step engines of :mod:`bandsim.kernels.sequential`. Every constant is
derived here, in plain Python, with the thesis' line cited.

Shards: per-step engines spend O(T) time per run, so their plans ask the
runner for small shards (``shard_runs``, recorded in the configuration): the
progress bar then moves every few runs, and results stay bit-identical for
any number of threads (one Generator per fixed shard).

References
----------
Sajed, "Optimal Differentially Private Finite-Armed Stochastic Bandit"
(MSc thesis, University of Alberta, 2019): Algorithms 1, 2, 5, 6;
Mishra & Thakurta (UAI 2015) for Γ of DP-UCB (derivation in docs/fidelity.md).
"""
import math
from dataclasses import dataclass, field

from ..costs import RunCost
from ..errors import ConfigError
from ..kernels import codes, sequential
from ..mechanisms import SumBatch
from ..mechanisms.families import InsideEngine
from ..params import BETA, EPSILON, Param
from ..privacy.audit import audit_laplace
from ..privacy.report import AuditReport, Row
from .base import PER_STEP_SHARD_PULLS, UcbPlan, per_step_shard_runs  # noqa: F401
from .families import PerStep, PerStepIndex, tree_participation

THESIS = "Sajed, MSc thesis (2019)"

def tree_levels(horizon):
    """⌈log₂ T⌉ + 1: the levels of a tree over T leaves (Sajed (2019), Alg 5 line 3)."""
    return math.ceil(math.log2(horizon)) + 1 if horizon > 1 else 1


#: Largest Γ and node scale of DP-UCB: noisy sums r̃ + Γ stay finite float64 values.
GAMMA_MAX = 1e300

#: Readings of "log T" in Γ of DP-UCB (Algorithm 6 line 3; docs/fidelity.md).
GAMMA_READINGS = ("levels", "ln")

GAMMA = Param("gamma", "levels", choices=GAMMA_READINGS, unit="reading of log T in Γ",
              help="Γ of DP-UCB: log T read as the tree levels ⌈log₂T⌉+1 (levels) or as "
                   "the natural logarithm (ln)")


def dp_ucb_constants(arms, horizon, epsilon, beta, gamma="levels"):
    """Constants of DP-UCB (Sajed (2019) Algorithm 6 with the mechanism of Algorithm 5).

    Returns
    -------
    dict
        ``levels`` m = ⌈log₂ T⌉ + 1; ``node_scale`` = m/ε, the Laplace scale of
        every tree node (ε' = ε/m, Algorithm 5 line 3: each reward lies in at
        most m p-sums, so ε-DP by composition, Theorem 3.3.1);
        ``gamma`` Γ = m² log(K T m / β)/ε: with probability ≥ 1 − β every
        released sum of every arm at every time is within Γ of the exact sum
        (at most m nodes, each |Lap(m/ε)| ≤ (m/ε) log(K T m/β) w.p.
        ≥ 1 − β/(K T m), union over K arms × T times × m nodes). This is
        Algorithm 6 line 3, Γ = log²T · log(KT log T/β)/ε, with log T read as
        the number of tree levels (docs/fidelity.md). With ``gamma="ln"`` the
        printed formula is read with natural logarithms instead,
        Γ = (ln T)² ln(K T ln T / β)/ε (the node noise stays Lap(m/ε)).

    References
    ----------
    Sajed (2019), Algorithms 5 and 6; Mishra & Thakurta (2015); Sajed (2019) Fact 3.1.4.
    """
    m = tree_levels(horizon)
    if gamma == "levels":
        g = m * m * math.log(arms * horizon * m / beta) / epsilon
    elif gamma == "ln":
        lt = math.log(horizon)
        g = lt * lt * math.log(arms * horizon * lt / beta) / epsilon
    else:
        raise ValueError(f"gamma reading must be one of {GAMMA_READINGS}, got {gamma!r}")
    return dict(levels=m, node_scale=m / epsilon, gamma=g, gamma_reading=gamma)


@dataclass(kw_only=True)
class SePlan:
    """Plan for :func:`kernels.sequential.run_se_shard` (Successive Elimination)."""

    log_horizon: float
    shard_runs: int
    stages: list = field(default_factory=list)
    #: rewards are drawn one at a time (exact): no CLT batch sums
    clt_batch_sums = False

    def run_shard(self, rng, shard, rec=None):
        """Simulate one shard of runs in place (``rec``: a :class:`bandsim.kernels.record.Recorder`
        in the whole-run privacy audit)."""
        sequential.run_se_shard(rng, shard, self.log_horizon, rec)


def plan_ucb1(params, arms, horizon):
    """UCB1: index μ̄_i + sqrt(2 log t / n_i) (Sajed (2019), Algorithm 1 line 9)."""
    stages = [dict(index="mean + sqrt(2 log t / n)")]
    return UcbPlan(index=sequential.ucb_index, c=[0.0], scale=0.0,
                   shard_runs=per_step_shard_runs(horizon), stages=stages)


def plan_dp_ucb(params, arms, horizon):
    """DP-UCB: tree-based sums, index r̃_i/n_i + sqrt(2 log t/n_i) + Γ/n_i (Alg 6 line 11)."""
    eps = params["epsilon"]
    c = dp_ucb_constants(arms, horizon, eps, params["beta"], params["gamma"])
    if not (c["gamma"] <= GAMMA_MAX and c["node_scale"] <= GAMMA_MAX):
        one = dp_ucb_constants(arms, horizon, 1.0, params["beta"], params["gamma"])
        eps_min = max(one["gamma"], one["node_scale"]) / GAMMA_MAX
        raise ConfigError("epsilon", eps,
                          f"must be at least {eps_min:.3g} for DP-UCB at T = {horizon:,}: "
                          f"Γ = {c['gamma']:.3g} and the node noise Lap({c['node_scale']:.3g}) "
                          f"grow as 1/ε and must stay below {GAMMA_MAX:g} (float64 sums)")
    stages = [dict(index="noisy mean + sqrt(2 log t / n) + gamma / n", **c)]
    return UcbPlan(index=sequential.ucb_index, c=[c["gamma"]], scale=c["node_scale"],
                   shard_runs=per_step_shard_runs(horizon), stages=stages)


#: What one reward of DP-UCB releases: the per-step index family's tree (one place).
dp_ucb_participation = tree_participation


def plan_se(params, arms, horizon):
    """SE checked every cycle: width 2 sqrt(2 log T / n) (Sajed (2019), Algorithm 2 line 9)."""
    log_t = math.log(horizon)
    stages = [dict(width="2 sqrt(2 log T / n)", log_horizon=log_t)]
    return SePlan(log_horizon=log_t, shard_runs=per_step_shard_runs(horizon), stages=stages)


# ------------------------------------------------- the tree mechanism and its audit

#: Tree levels the exact audit of the tree covers: m = 1 … 63 (every T < 2^62).
TREE_AUDIT_LEVELS = 63
_TREE_SOURCE = f"{THESIS}, Algorithms 5-6 (Mishra & Thakurta 2015)"


def _tree_batch(n, epsilon):
    """The tree's claim: ε-DP central (its noise is drawn inside the per-step engine)."""
    return SumBatch(name="tree", n=int(n), fpar=(), ipar=(), code=codes.NONE,
                    privacy=dict(guarantee="central ε-DP", epsilon=epsilon,
                                 theorem=_TREE_SOURCE), theorem=_TREE_SOURCE)


def _audit_tree(batch, algorithm, fold_max=None):
    """The tree as a composition of its declared releases (:func:`tree_participation`): a
    reward enters at most m = ⌈log₂ T⌉ + 1 nodes of its arm's tree, each + Lap(m/ε) on a
    sum of sensitivity 1; each node audited exactly, m of them added up, the worst m ≤ 63
    (every T < 2^62) against ε (Sajed (2019), Algorithm 5, Theorem 3.3.1)."""
    eps = batch.privacy["epsilon"]
    worst = None
    for m in range(1, TREE_AUDIT_LEVELS + 1):
        node = audit_laplace(m / eps, eps / m, batch.n).rows[0]
        if worst is None or m * node.exact > worst[1]:
            worst = (m, m * node.exact, m * node.error)
    m, exact, error = worst
    rows = [Row(f"ε of one reward's ≤ m tree nodes, each Lap(m/ε) (worst m = {m} of "
                f"1 … {TREE_AUDIT_LEVELS})", eps, exact, error=error, short="ε")]
    view = ("a reward enters at most m = ⌈log₂T⌉ + 1 nodes of its arm's tree, each "
            "+ Lap(m/ε), sensitivity 1 each (basic composition)")
    return AuditReport(algorithm=algorithm, guarantee=f"ε-DP, central ({_TREE_SOURCE})",
                       view=view, params=dict(n=batch.n, epsilon=eps, noise="Lap(m/ε) per node"),
                       rows=rows)


TREE = InsideEngine(name="tree",
                    summary="tree-based binary mechanism: Lap((⌈log₂ T⌉ + 1)/ε) on every node",
                    source=f"{THESIS}, Algorithm 5", trust="central ε-DP", batch=_tree_batch,
                    audit=_audit_tree,
                    audit_points=lambda b, fold_max=None: TREE_AUDIT_LEVELS * 20001,
                    samplers=("Generator.standard_exponential (Laplace as a difference)",),
                    float_safe=False)


#: Measured cost of a run (benchmarks/run_cost.py, docs/suite.md): a step per pull over K arms
#: (SE: over the arms still active).
UCB1_COST = RunCost(7.7, "T·K", "7.64 at K = 80, T = 10⁶; 0.75 at K = 5")
SE_COST = RunCost(0.088, "T·K", "0.087 at K = 5, T = 10⁶ (it stops eliminating early)")
DP_UCB_COST = RunCost(3.2, "T·K", "3.13 at K = 5, T = 10⁶; 0.23 at K = 80, T = 10⁸")

UCB1 = PerStep(
    name="ucb1", summary="UCB1: pull argmax of mean + sqrt(2 log t / n), per step",
    trust="none", source=f"{THESIS}, Algorithm 1 (Auer et al. 2002)", params=(),
    plan=plan_ucb1, family="ucb", run_cost=UCB1_COST)

SE = PerStep(
    name="se", summary="successive elimination checked every cycle, width 2 sqrt(2 log T / n)",
    trust="none", source=f"{THESIS}, Algorithm 2 (Even-Dar et al. 2002)", params=(),
    plan=plan_se, family="se", run_cost=SE_COST)

DP_UCB = PerStepIndex(
    name="dp-ucb", summary="private UCB: tree-based binary mechanism per arm, per step",
    source=f"{THESIS}, Algorithms 5-6 (Mishra & Thakurta 2015)",
    params=(EPSILON, BETA, GAMMA), index=sequential.ucb_index, plan=plan_dp_ucb,
    family="ucb", run_cost=DP_UCB_COST)

ALGORITHMS = (UCB1, SE, DP_UCB)
