"""Per-step and SVT-based algorithms of the Sajed thesis (seed 001).

``ucb1``, ``se`` and ``dp-ucb`` decide at every pull or cycle and run on the
per-step engines of :mod:`kernels.sequential`; ``dp-se2`` and
``dp-se2-modified`` test privately at checkpoints r = 2^ℓ and run on the
batched SVT engine of :mod:`kernels.svt`. Every constant is derived here, in
plain Python, with the seed's line cited.

Shards: per-step engines spend O(T) time per run, so their plans ask the
runner for small shards (``shard_runs``, recorded in the configuration): the
progress bar then moves every few runs, and results stay bit-identical for
any number of threads (one Generator per fixed shard).

References
----------
seed 001 (Sajed 2019): Algorithms 1, 2, 5, 6, 10 and Appendix A.2;
Mishra & Thakurta (UAI 2015) for Γ of DP-UCB (derivation in docs/fidelity.md).
"""
import math
from dataclasses import dataclass, field

import numpy as np

from .base import CENTRAL_DP_PARAMS, Algorithm

#: Work (pulls) per shard aimed at by per-step plans: shards of
#: max(1, min(64, 2**22 // T)) runs — one run per shard at T ≥ 4.2e6.
PER_STEP_SHARD_PULLS = 2**22


def per_step_shard_runs(horizon):
    """Runs per shard for a per-step engine at horizon T (int, 1..64)."""
    return max(1, min(64, PER_STEP_SHARD_PULLS // int(horizon)))


def tree_levels(horizon):
    """⌈log₂ T⌉ + 1: the levels of a tree over T leaves (seed 001, Alg 5 line 3)."""
    return math.ceil(math.log2(horizon)) + 1 if horizon > 1 else 1


def dp_ucb_constants(arms, horizon, epsilon, beta):
    """Constants of DP-UCB (seed 001 Algorithm 6 with the mechanism of Algorithm 5).

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
        the number of tree levels (docs/fidelity.md).

    References
    ----------
    seed 001, Algorithms 5 and 6; Mishra & Thakurta (2015); seed 001 Fact 3.1.4.
    """
    m = tree_levels(horizon)
    gamma = m * m * math.log(arms * horizon * m / beta) / epsilon
    return dict(levels=m, node_scale=m / epsilon, gamma=gamma)


@dataclass
class UcbPlan:
    """Plan for :func:`kernels.sequential.run_ucb_shard` (UCB1 and DP-UCB)."""

    gamma: float
    scale: float
    shard_runs: int
    stages: list = field(default_factory=list)

    def run_shard(self, rng, gaps, rcode, rpar, horizon, checkpoints,
                  out_regret, out_pulls, out_elim):
        """Simulate one shard of runs into the output rows."""
        from bandsim.kernels.sequential import run_ucb_shard

        run_ucb_shard(rng, gaps, rcode, rpar, horizon, self.gamma, self.scale,
                      checkpoints, out_regret, out_pulls, out_elim)


@dataclass
class SePlan:
    """Plan for :func:`kernels.sequential.run_se_shard` (Successive Elimination)."""

    log_horizon: float
    shard_runs: int
    stages: list = field(default_factory=list)

    def run_shard(self, rng, gaps, rcode, rpar, horizon, checkpoints,
                  out_regret, out_pulls, out_elim):
        """Simulate one shard of runs into the output rows."""
        from bandsim.kernels.sequential import run_se_shard

        run_se_shard(rng, gaps, rcode, rpar, horizon, self.log_horizon, checkpoints,
                     out_regret, out_pulls, out_elim)


def plan_ucb1(params, arms, horizon):
    """UCB1: index μ̄_i + sqrt(2 log t / n_i) (seed 001, Algorithm 1 line 9)."""
    stages = [dict(index="mean + sqrt(2 log t / n)")]
    return UcbPlan(0.0, 0.0, per_step_shard_runs(horizon), stages)


def plan_dp_ucb(params, arms, horizon):
    """DP-UCB: tree-based sums, index r̃_i/n_i + sqrt(2 log t/n_i) + Γ/n_i (Alg 6 line 11)."""
    c = dp_ucb_constants(arms, horizon, params["epsilon"], params["beta"])
    stages = [dict(index="noisy mean + sqrt(2 log t / n) + gamma / n", **c)]
    return UcbPlan(c["gamma"], c["node_scale"], per_step_shard_runs(horizon), stages)


def plan_se(params, arms, horizon):
    """SE checked every cycle: width 2 sqrt(2 log T / n) (seed 001, Algorithm 2 line 9)."""
    log_t = math.log(horizon)
    stages = [dict(width="2 sqrt(2 log T / n)", log_horizon=log_t)]
    return SePlan(log_t, per_step_shard_runs(horizon), stages)


# --------------------------------------------------------------------- DP-SE 2

def dp_se2_check(level, k, arms, epsilon, beta, modified=False):
    """Constants of the SVT query at r = 2^ℓ in an epoch of DP-SE 2 with k viable arms.

    Parameters
    ----------
    level : int
        ℓ ≥ 1 (restarts at 1 every epoch).
    k : int
        |S|, viable arms in the epoch.
    arms : int
        K, the number of arms of the instance.
    epsilon : float
        ε of the whole algorithm (each reward is used in one epoch only).
    beta : float
        Confidence β.
    modified : bool
        The halting rule of Appendix A.2 (2h_r, and 4 instead of 16 in c_r).

    Returns
    -------
    dict
        ``r`` = 2^ℓ; ``h_r`` = sqrt(log(16 K|S|ℓ²/β)/(2r)); ``c_r`` =
        6 log(4K/β)/ε + 6 log(8Kℓ²/β)/ε + c₃ log(4K|S|/β)/ε with c₃ = 16 (4
        modified); ``query_threshold`` = r·f·h_r + c_r with f = 10 (2 modified):
        the SVT halts when max_i S_i − min_j S_j > query_threshold + A_r + B
        (line 19 multiplied by r; S = epoch reward sums); ``elim_width`` =
        r(2h_r) + 4 log(4K|S|/β)/ε: arm j is removed when
        S̃_max − S̃_j > elim_width with S̃ = S + Lap(2/ε) (lines 20–23 × r).

    References
    ----------
    seed 001, Appendix A.1, Algorithm 10, lines 16–23; Appendix A.2.
    """
    r = 2**level
    h = math.sqrt(math.log(16 * arms * k * level**2 / beta) / (2 * r))
    c3, f = (4.0, 2.0) if modified else (16.0, 10.0)
    c = (6 * math.log(4 * arms / beta) + 6 * math.log(8 * arms * level**2 / beta)
         + c3 * math.log(4 * arms * k / beta)) / epsilon
    return dict(r=r, h_r=h, c_r=c, query_threshold=r * f * h + c,
                elim_width=r * 2 * h + 4 * math.log(4 * arms * k / beta) / epsilon)


@dataclass
class Se2Plan:
    """Plan for :func:`kernels.svt.run_shard` (DP-SE 2 and its modified halting rule).

    Attributes
    ----------
    query_threshold, elim_width : float64 (ℓ_max + 1, K + 1)
        :func:`dp_se2_check` per (ℓ, k), in reward-sum units.
    svt_scale : float
        6/ε: Laplace scale of B and A_r on the sum range (Alg 10 lines 8, 17).
    hist_scale : float
        2/ε: Laplace scale on each epoch sum (line 20, Lap(2/(εr)) on the mean).
    """

    query_threshold: np.ndarray
    elim_width: np.ndarray
    svt_scale: float
    hist_scale: float
    stages: list = field(default_factory=list)
    shard_runs: int = 64

    def run_shard(self, rng, gaps, rcode, rpar, horizon, checkpoints,
                  out_regret, out_pulls, out_elim):
        """Simulate one shard of runs into the output rows."""
        from bandsim.kernels.svt import run_shard

        run_shard(rng, gaps, rcode, rpar, horizon, self.query_threshold, self.elim_width,
                  self.svt_scale, self.hist_scale, checkpoints, out_regret, out_pulls,
                  out_elim)


def _plan_dp_se2(params, arms, horizon, modified):
    eps, beta = params["epsilon"], params["beta"]
    max_level = max(1, math.ceil(math.log2(horizon))) + 1
    q = np.full((max_level + 1, arms + 1), np.inf)
    w = np.full((max_level + 1, arms + 1), np.inf)
    for level in range(1, max_level + 1):
        for k in range(2, arms + 1):
            c = dp_se2_check(level, k, arms, eps, beta, modified)
            q[level, k] = c["query_threshold"]
            w[level, k] = c["elim_width"]
    stages = [dict(level=lv, **dp_se2_check(lv, arms, arms, eps, beta, modified))
              for lv in range(1, max_level + 1)]
    return Se2Plan(q, w, 6.0 / eps, 2.0 / eps, stages)


def plan_dp_se2(params, arms, horizon):
    """DP-SE 2 (seed 001, Algorithm 10)."""
    return _plan_dp_se2(params, arms, horizon, False)


def plan_dp_se2_modified(params, arms, horizon):
    """DP-SE 2 with the halting rule of Appendix A.2."""
    return _plan_dp_se2(params, arms, horizon, True)


UCB1 = Algorithm(
    name="ucb1",
    summary="UCB1: pull argmax of mean + sqrt(2 log t / n), per step",
    trust="none",
    reference="seed 001 Algorithm 1 (Auer et al. 2002)",
    params={},
    plan=plan_ucb1,
)

SE = Algorithm(
    name="se",
    summary="successive elimination checked every cycle, width 2 sqrt(2 log T / n)",
    trust="none",
    reference="seed 001 Algorithm 2 (Even-Dar et al. 2002)",
    params={},
    plan=plan_se,
)

DP_UCB = Algorithm(
    name="dp-ucb",
    summary="private UCB: tree-based binary mechanism per arm, per step",
    trust="central ε-DP",
    reference="seed 001 Algorithms 5-6 (Mishra & Thakurta 2015)",
    params=CENTRAL_DP_PARAMS,
    plan=plan_dp_ucb,
)

DP_SE2 = Algorithm(
    name="dp-se2",
    summary="DP-SE 2: SVT at r = 2^l inside epochs, private histogram elimination",
    trust="central ε-DP",
    reference="seed 001 Algorithm 10 (Appendix A.1)",
    params=CENTRAL_DP_PARAMS,
    plan=plan_dp_se2,
)

DP_SE2_MODIFIED = Algorithm(
    name="dp-se2-modified",
    summary="DP-SE 2 with the halting rule 2h_r of Appendix A.2",
    trust="central ε-DP",
    reference="seed 001 Algorithm 10 + Appendix A.2",
    params=CENTRAL_DP_PARAMS,
    plan=plan_dp_se2_modified,
)
