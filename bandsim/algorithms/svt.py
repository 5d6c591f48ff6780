"""DP-SE 2 of Sajed's thesis: the sparse vector technique inside epochs.

``dp-se2`` and ``dp-se2-modified`` test privately at checkpoints r = 2^ℓ and
run on the batched SVT engine of :mod:`bandsim.kernels.svt`. Every constant
is derived here, in plain Python, with the thesis' line cited.

References
----------
Sajed, "Optimal Differentially Private Finite-Armed Stochastic Bandit"
(MSc thesis, University of Alberta, 2019): Appendix A.1, Algorithm 10;
Appendix A.2 (the modified halting rule).
"""
import math
from dataclasses import dataclass, field

import numpy as np

from ..kernels import svt as svt_kernel
from ..params import BETA, EPSILON
from ..privacy.participation import Release
from .families import SVTEngine
from .per_step import THESIS


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
    Sajed (2019), Appendix A.1, Algorithm 10, lines 16–23; Appendix A.2.
    """
    r = 2**level
    h = math.sqrt(math.log(16 * arms * k * level**2 / beta) / (2 * r))
    c3, f = (4.0, 2.0) if modified else (16.0, 10.0)
    c = (6 * math.log(4 * arms / beta) + 6 * math.log(8 * arms * level**2 / beta)
         + c3 * math.log(4 * arms * k / beta)) / epsilon
    return dict(r=r, h_r=h, c_r=c, query_threshold=r * f * h + c,
                elim_width=r * 2 * h + 4 * math.log(4 * arms * k / beta) / epsilon)


@dataclass(kw_only=True)
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

    def run_shard(self, rng, shard, rec=None):
        """Simulate one shard of runs in place (``rec``: a :class:`bandsim.kernels.record.Recorder`
        in the whole-run privacy audit)."""
        svt_kernel.run_shard(rng, shard, self.query_threshold, self.elim_width, self.svt_scale,
                             self.hist_scale, rec)


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
    return Se2Plan(query_threshold=q, elim_width=w, svt_scale=6.0 / eps, hist_scale=2.0 / eps,
                   stages=stages)


def dp_se2_participation(params, horizon):
    """A reward of DP-SE 2 is used in one epoch: one SVT instance (B, A_r ~ Lap(6/ε) on
    sums, query max S_i − min S_j of sensitivity 1: ε/2) and its arm's histogram sum
    + Lap(2/ε) (ε/2) (Sajed (2019), Algorithm 10 lines 8, 17, 20; Theorem A.1.1)."""
    eps = params["epsilon"]
    return [Release("svt", "the epoch's halting query max S_i − min S_j", 6 / eps,
                    query_scale=6 / eps),
            Release("laplace", "its arm's epoch sum (private histogram)", 2 / eps)]


def plan_dp_se2(params, arms, horizon):
    """DP-SE 2 (Sajed (2019), Algorithm 10)."""
    return _plan_dp_se2(params, arms, horizon, False)


def plan_dp_se2_modified(params, arms, horizon):
    """DP-SE 2 with the halting rule of Appendix A.2."""
    return _plan_dp_se2(params, arms, horizon, True)


DP_SE2 = SVTEngine(
    name="dp-se2", summary="DP-SE 2: SVT at r = 2^l inside epochs, private histogram elimination",
    trust="central ε-DP", source=f"{THESIS}, Algorithm 10 (Appendix A.1)",
    params=(EPSILON, BETA), plan=plan_dp_se2, engine="svt", mechanism="svt", family="se",
    participation=dp_se2_participation)

DP_SE2_MODIFIED = SVTEngine(
    name="dp-se2-modified", summary="DP-SE 2 with the halting rule 2h_r of Appendix A.2",
    trust="central ε-DP", source=f"{THESIS}, Algorithm 10 + Appendix A.2",
    params=(EPSILON, BETA), plan=plan_dp_se2_modified, engine="svt", mechanism="svt",
    family="se", participation=dp_se2_participation)

ALGORITHMS = (DP_SE2, DP_SE2_MODIFIED)
