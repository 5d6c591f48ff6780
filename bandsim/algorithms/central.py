"""DP-SE: differentially private successive elimination in the central model.

References
----------
seed 001 (Sajed 2019 = Sajed & Sheffet ICML'19), Chapter 5, Algorithm 9 and
Theorem 5.1.1 (ε-DP); Chapter 6 for the experiment (β = 1/T).
"""
import math

from bandsim.kernels import protocols, regret

from .base import CENTRAL_DP_PARAMS, Algorithm, Plan, build_tables


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
    seed 001, Algorithm 9, lines 7, 8, 15, 20. Logarithms are natural.
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
    sum (sensitivity 1), passed to the LAPLACE mechanism (seed 001, Algorithm 9
    line 16; Theorem 5.1.1).
    """
    eps, beta = params["epsilon"], params["beta"]

    def stage(s, k):
        c = dp_se_epoch(s + 1, k, eps, beta)
        info = dict(n=c["rounds"], width=c["width"], h_e=c["h_e"], c_e=c["c_e"])
        return c["rounds"], c["width"], (1.0 / eps,), (), info

    batch, width, fpar, ipar, stages = build_tables(arms, horizon, stage)
    return Plan(batch, width, protocols.LAPLACE, fpar, ipar, regret.ROUND_ROBIN, False, stages)


DP_SE = Algorithm(
    name="dp-se",
    summary="DP successive elimination: epochs, Laplace noise on epoch means",
    trust="central ε-DP",
    reference="seed 001 Algorithm 9 (Sajed & Sheffet 2019)",
    params=CENTRAL_DP_PARAMS,
    plan=plan_dp_se,
)
