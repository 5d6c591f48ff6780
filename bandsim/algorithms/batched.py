"""Algorithm 1 of Chowdhury & Zhou: batch-based successive elimination.

Batch b (1-based) gives l(b) = η^b new users to each active arm, one block of
consecutive pulls per arm; the analyzer's estimate of each block's sum comes
from the protocol P = (R, S, A); arms whose UCB falls below the best LCB are
eliminated, i.e. when max_a' μ̂_a' − μ̂_a > 2 β(b).

References
----------
seed 003, Section 3.1, Algorithm 1; Lemma 2 (formal Lemma 1), eq. (2) for the
confidence radius; Remark after Lemma 2 for l(b) = η^b.
"""
import math

from bandsim.kernels import protocols, regret

from .base import Algorithm, Plan, build_tables


def batch_size(b, growth):
    """l(b) = η^b users per arm in batch b (1-based), rounded to an integer ≥ 1."""
    return max(1, int(round(growth**b)))


def confidence_radius(b, k, n, p, sigma=0.0, h=0.0):
    """β(b) of Lemma 2, eq. (2), seed 003.

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
    return Plan(batch, width, protocols.NONE, fpar, ipar, regret.BLOCKS, False, stages)


BATCH_SE = Algorithm(
    name="batch-se",
    summary="non-private batched successive elimination (doubling batches)",
    trust="none",
    reference="seed 003 Algorithm 1 with the identity protocol",
    params={"p": 0.1, "growth": 2.0},
    plan=plan_batch_se,
)
