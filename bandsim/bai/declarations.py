"""Fixed-confidence best-arm identification: the elimination family and its algorithms.

``dp-se-bai``
    DP successive elimination of Sajed & Sheffet (ICML 2019) used as a
    fixed-confidence identifier, as in the experiments of Azize, Jourdan,
    Al Marjani & Basu (NeurIPS 2023) and Azize's PhD thesis (Univ. Lille
    2024, §5.4.3 "Comparison to DP-SE", Fig. 5.7): epoch e = 1, 2, … with
    active set A, Δ_e = 2^−e,
    R_e = max(32 ln(8|A|e²/δ)/Δ_e², 8 ln(4|A|e²/δ)/(εΔ_e)) + 1; every active
    arm gets ⌊R_e⌋ fresh pulls (earlier epochs forgotten), its epoch mean is
    released + Lap(1/(ε⌊R_e⌋)) (= Lap(1/ε) on the epoch sum, sensitivity 1);
    h_e = sqrt(ln(8|A|e²/δ)/(2R_e)), c_e = ln(4|A|e²/δ)/(R_e ε); arm a is
    eliminated when max_{b∈A} m̃_b − m̃_a > 2(h_e + c_e); stop when |A| = 1
    and recommend the survivor.
``se-bai``
    The non-private reference: the same schedule in the limit ε → ∞
    (R_e = 32 ln(8|A|e²/δ)/Δ_e² + 1, width 2h_e, exact sums).

``adap-tt``, ``adap-tt-star``, ``tt-ucb``
    Top-two identifiers on the release-batched engine (:mod:`bandsim.bai.toptwo`,
    :func:`bandsim.kernels.toptwo.run_shard`): AdaP-TT of Azize, Jourdan, Al
    Marjani & Basu (NeurIPS 2023) / Azize's thesis Algorithm 10 with the
    Eq. 5.11 threshold (``threshold="heuristic"``: the authors' released
    code's, not provably δ-correct); AdaP-TT* (thesis §5.4.3, provisional);
    the non-private TTUCB reference.

Readings (docs/bai.md): the pull count is ⌊R_e⌋ while the radii use the
real R_e (as the authors' released code does); the max is over the active
arms only and the recommendation is the survivor (the released code takes
the max over all K entries and logs the argmax of the non-private means).
``se-bai`` as the ε → ∞ limit of DP-SE is our reading of "successive
elimination" as a fixed-confidence reference.
"""
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..algorithms.base import build_tables, mechanism_tables
from ..algorithms.elimination import dp_se_epoch
from ..errors import ConfigError
from ..kernels import bai as bai_kernel, codes, toptwo as toptwo_kernel
from ..kernels.shard import EliminationTables
from ..params import EPSILON, Param, CONFIDENCE, REQUIRED
from ..privacy.participation import Release
from .. import registry
from ..registry import Algorithm, get_mechanism, register
from . import toptwo

#: δ of fixed confidence: P(τ < ∞, recommendation ≠ best arm) ≤ δ.
RISK = Param("delta", REQUIRED, lo=0.0, hi=1.0, unit="probability",
             help="fixed-confidence risk δ: P(stop with a wrong arm) ≤ δ", role=CONFIDENCE)

SAJED = "Sajed & Sheffet (ICML 2019), DP-SE"
AZIZE = ("as a fixed-confidence identifier in Azize, Jourdan, Al Marjani & Basu (NeurIPS 2023) "
         "and Azize's PhD thesis (2024) §5.4.3, Fig. 5.7")

#: Runs per shard (one Generator each): results depend on it, never on the thread count.
SHARD_RUNS = 64


@dataclass(kw_only=True)
class BAIPlan:
    """Tables of the elimination-BAI engine (:func:`bandsim.kernels.bai.run_shard`).

    Attributes
    ----------
    tables : kernels.shard.EliminationTables
        Pulls per arm, widths and mechanism parameters per (stage, k).
    budget : int
        T_max, pulls after which a run is censored.
    stages : list of dict
        Per-stage constants at k = K (reports).
    """

    tables: EliminationTables
    budget: int
    stages: list

    def run_shard(self, rng, rcode, rpar, out_tau, out_rec, out_stopped, rec=None):
        """Simulate the runs of one shard in place (arrays as in the kernel)."""
        bai_kernel.run_shard(rng, np.int64(rcode), rpar, np.int64(self.budget), self.tables,
                             out_tau, out_rec, out_stopped, rec)


def _epoch(s, k, epsilon, delta):
    c = dp_se_epoch(s + 1, k, epsilon, delta)
    n = int(math.floor(c["R_e"]))
    return n, c["width"], dict(n=n, R_e=c["R_e"], width=c["width"], h_e=c["h_e"], c_e=c["c_e"])


def plan_dp_se_bai(params, arms, budget):
    """Plan of ``dp-se-bai`` (module docstring) up to the budget T_max.

    Raises
    ------
    ConfigError
        ε so small that one epoch exceeds the engine's int64 arithmetic.
    """
    eps, delta = params["epsilon"], params["delta"]

    def stage(s, k, batch_of):
        return _epoch(s, k, eps, delta)

    batch, width, fpar, ipar, stages, _ = mechanism_tables(
        get_mechanism("laplace"), params, arms, budget, stage, n_fpar=1, n_ipar=1,
        blame=("epsilon", eps))
    tables = EliminationTables(batch, width, np.int64(codes.LAPLACE), fpar, ipar,
                               np.int64(codes.ROUND_ROBIN), False)
    return BAIPlan(tables=tables, budget=budget, stages=stages)


def plan_se_bai(params, arms, budget):
    """Plan of ``se-bai``: DP-SE's schedule at ε = ∞ (exact sums)."""
    delta = params["delta"]

    def stage(s, k):
        n, w, info = _epoch(s, k, math.inf, delta)
        return n, w, (), (), info

    batch, width, fpar, ipar, stages = build_tables(arms, budget, stage)
    tables = EliminationTables(batch, width, np.int64(codes.NONE), fpar, ipar,
                               np.int64(codes.ROUND_ROBIN), False)
    return BAIPlan(tables=tables, budget=budget, stages=stages)


@dataclass(frozen=True, kw_only=True)
class EliminationBAI(Algorithm):
    """Fixed-confidence elimination (:func:`bandsim.kernels.bai.run_shard`).

    ``plan(params, arms, budget)`` returns a :class:`BAIPlan`; a run stops when
    one arm is left and recommends it.
    """

    engine: str = "bai-elimination"
    cost: str = "episodes"
    task = "identification"


def _one_epoch_sum(params, horizon):
    """A reward of DP-SE enters one epoch sum, released + Lap(1/ε)."""
    return [Release("laplace", "its arm's epoch sum", 1 / params["epsilon"])]


DP_SE_BAI = EliminationBAI(
    name="dp-se-bai", summary="DP-SE as a fixed-confidence identifier: Laplace on epoch means, "
                              "stop when one arm is left",
    trust="central ε-DP", source=f"{SAJED}, {AZIZE}", params=(EPSILON, RISK),
    plan=plan_dp_se_bai, mechanism="laplace", family="se-bai", participation=_one_epoch_sum)

SE_BAI = EliminationBAI(
    name="se-bai", summary="non-private successive elimination (DP-SE's schedule at ε = ∞)",
    trust="none", source=f"{SAJED} at ε = ∞ (our reading)", params=(RISK,),
    plan=plan_se_bai, mechanism="none")

AZIZE_TT = ("Azize, Jourdan, Al Marjani & Basu (NeurIPS 2023), Algorithm 1 (AdaP-TT); "
            "Azize's PhD thesis (2024) §5.4, Algorithm 10")

#: β of the top-two β-tracking (thesis §5.5.3 and the released code: 1/2).
TRACKING = Param("beta", 0.5, lo=0.0, hi=1.0, unit="proportion",
                 help="top-two β: share of the leader's rounds it is pulled (β-tracking)")
#: Stopping threshold reading of AdaP-TT.
THRESHOLD = Param("threshold", "eq-5.11", choices=toptwo.THRESHOLDS,
                  help="eq-5.11: thesis Eq. 5.11 (provably δ-correct); heuristic: the "
                       "authors' released code (NOT provably δ-correct)")

ADAP_TT = toptwo.TopTwoBAI(
    name="adap-tt", summary="AdaP-TT: doubling episodes with forgetting, Laplace on each "
                            "episode mean, UCB leader, TC challenger, GLR stop (Eq. 5.11)",
    source=f"{AZIZE_TT}, Eqs. 5.9-5.11", params=(EPSILON, RISK, TRACKING, THRESHOLD),
    family="adap-tt")

ADAP_TT_STAR = toptwo.TopTwoBAI(
    name="adap-tt-star", summary="AdaP-TT*: AdaP-TT with the private transportation cost "
                                 "(Eq. 5.12) and its threshold (Eq. 5.14); provisional",
    source="Azize's PhD thesis (2024) §5.4.3, Eqs. 5.12-5.14, Theorem 5.23",
    params=(EPSILON, RISK, TRACKING), threshold="eq-5.14", provisional=True, family="adap-tt")

TT_UCB = toptwo.TopTwoBAI(
    name="tt-ucb", summary="non-private top two: UCB leader, TC challenger, GLR stop "
                           "(Eq. 5.10), every pull observed",
    source="Jourdan & Degenne (NeurIPS 2023) TTUCB, as the non-private reference of Azize's "
           "PhD thesis (2024) Fig. 5.7; threshold Eq. 5.10 (our reading of the bonus)",
    params=(RISK, TRACKING), mechanism="none", trust="none", every_pull=True,
    stop=toptwo_kernel.gauss_stop, participation=None)

register(DP_SE_BAI, SE_BAI, ADAP_TT, ADAP_TT_STAR, TT_UCB)  # built-ins (bandsim/__init__)


class _Identifiers(Mapping):
    """The registry's fixed-confidence declarations (``task == "identification"``), read live."""

    def _table(self):
        return registry.algorithms("identification")

    def __getitem__(self, name):
        return self._table()[name]

    def __iter__(self):
        return iter(self._table())

    def __len__(self):
        return len(self._table())


#: The fixed-confidence algorithms, built-ins first, then plug-ins registered with
#: :func:`bandsim.register` (a :class:`~bandsim.bai.toptwo.TopTwoBAI` or :class:`EliminationBAI`):
#: name → declaration. Every identification command looks names up here.
ALGORITHMS = _Identifiers()


def get(name):
    """The declaration of fixed-confidence algorithm ``name``.

    Raises
    ------
    ConfigError
        Unknown name (one line, naming the known ones).
    """
    if not isinstance(name, str) or name not in ALGORITHMS:
        raise ConfigError("algorithm", name, f"must be one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]
