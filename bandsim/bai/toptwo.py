"""Top-two fixed-confidence identification: thresholds, the plan, the family base with hooks.

The engine is :func:`bandsim.kernels.toptwo.run_shard` (release-batched: one
Binomial + one release per closed episode, the pull sequence between
releases stepped without drawing, stopping tested after releases only).

Thresholds (σ = 1/2, s = 2, k(x) = log₂ x + 2, ζ the Riemann zeta), from
Azize's PhD thesis (Univ. Lille, 2024), §5.4 and App. C.5:

* Eq. (5.10), non-private: c^G_{a,b}(ω, δ) = 2 C_G(ln((K−1)/δ)/2)
  + 2 ln(4 + ln ω_a) + 2 ln(4 + ln ω_b), with C_G(x) = min_{λ∈(1/2,1)}
  (g_G(λ) + x)/λ, g_G(λ) = 2λ − 2λ ln(4λ) + ln ζ(2λ) − ½ ln(1 − λ) (Eq. C.30,
  after Kaufmann & Koolen, JMLR 2021);
* Eq. (5.11), AdaP-TT: c^{G,ε}_{a,b}(ω, δ) = 2 c^G_{a,b}(ω, δ/(2ζ(s)² k(ω_a)^s
  k(ω_b)^s)) + (1/(ε²σ²)) Σ_{c∈{a,b}} (1/ω_c) ln²(2Kζ(s) k(ω_c)^s/δ)
  (δ-correct for any sampling rule, Lemma 5.18);
* Eq. (5.14), AdaP-TT*: with the gap d = (μ̃_a − μ̃_b)_+, if d < 3ε,
  ½ c^{G,ε}_{a,b}(ω, 2δ/3) + (√2/(εσ)) Σ_c sqrt(h(ω_c, δ)/ω_c) ln(3Kζ(s)k(ω_c)^s/δ),
  else (3/σ²) ln(3Kζ(s) max_c k(ω_c)/δ) + (3ε/(√2σ)) Σ_c sqrt(ω_c h(ω_c, δ)),
  h(x, δ) = W̄₋₁(2 ln(3Kζ(s)k(x)^s/δ) + 4 ln(4 + ln x) + ½)/2 (W̄₋₁(y) the root
  z ≥ 1 of z − ln z = y); the else-branch's max k without the power s as printed;
* the heuristic of the authors' released code (``threshold="heuristic"``,
  not provably δ-correct): stop when ½Δ²/(1/Ñ_a + 1/Ñ_b) ≥ ln(1/δ) + ln(1 + ln Ñ_a)
  + ln(1 + ln Ñ_b) + (1/Ñ_a + 1/Ñ_b) ln²(1/δ)/ε² (a cost with σ = 1).

Episode sizes of AdaP-TT are powers of two, so each threshold is tabulated
once per pair of exponents (j_a, j_b) up to the budget.
"""
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np

from ..errors import ConfigError
from ..kernels import codes, hooks, toptwo
from ..privacy.participation import laplace_participation
from ..registry import Algorithm

SIGMA = 0.5
S = 2.0
ZETA_S = math.pi ** 2 / 6


@lru_cache(maxsize=4096)
def c_gauss(x):
    """C_G(x) = min_{λ∈(1/2,1)} (g_G(λ) + x)/λ (thesis Eq. C.30), float; x > 0."""
    from scipy.optimize import minimize_scalar
    from scipy.special import zeta

    def f(lam):
        g = 2 * lam - 2 * lam * math.log(4 * lam) + math.log(zeta(2 * lam, 1)) \
            - 0.5 * math.log(1 - lam)
        return (g + x) / lam

    res = minimize_scalar(f, bounds=(0.5 + 1e-9, 1 - 1e-12), method="bounded",
                          options={"xatol": 1e-12})
    return float(res.fun)


def k_of(j):
    """k(ω) = log₂ ω + 2 at ω = 2^j."""
    return j + 2.0


def thr_gauss(wa, wb, K, delta):
    """c^G_{a,b}(ω, δ) (thesis Eq. 5.10), float."""
    return 2 * c_gauss(round(math.log((K - 1) / delta) / 2, 12)) + 2 * math.log(
        4 + math.log(wa)) + 2 * math.log(4 + math.log(wb))


def thr_511(ja, jb, K, eps, delta):
    """c^{G,ε}_{a,b} of thesis Eq. (5.11) at ω = (2^ja, 2^jb), float."""
    ka, kb = k_of(ja) ** S, k_of(jb) ** S
    wa, wb = 2.0 ** ja, 2.0 ** jb
    d2 = delta / (2 * ZETA_S ** 2 * ka * kb)
    priv = sum(math.log(2 * K * ZETA_S * kc / delta) ** 2 / w for w, kc in ((wa, ka), (wb, kb)))
    return 2 * thr_gauss(wa, wb, K, d2) + priv / (eps ** 2 * SIGMA ** 2)


def wbar(y):
    """W̄₋₁(y): the root z ≥ 1 of z − ln z = y (y ≥ 1), float."""
    from scipy.special import lambertw

    return float(-lambertw(-math.exp(-y), -1).real)


def _h(j, K, delta):
    x = 2.0 ** j
    return wbar(2 * math.log(3 * K * ZETA_S * k_of(j) ** S / delta)
                + 4 * math.log(4 + math.log(x)) + 0.5) / 2


def thr_514(ja, jb, K, eps, delta, small):
    """c̃ of thesis Eq. (5.14) (``small``: the branch d < 3ε), float."""
    if small:
        tail = sum(math.sqrt(_h(j, K, delta) / 2.0 ** j)
                   * math.log(3 * K * ZETA_S * k_of(j) ** S / delta) for j in (ja, jb))
        return 0.5 * thr_511(ja, jb, K, eps, 2 * delta / 3) + math.sqrt(2) / (eps * SIGMA) * tail
    kmax = max(k_of(ja), k_of(jb))
    return (3 / SIGMA ** 2) * math.log(3 * K * ZETA_S * kmax / delta) + \
        3 * eps / (math.sqrt(2) * SIGMA) * sum(math.sqrt(2.0 ** j * _h(j, K, delta))
                                               for j in (ja, jb))


def thr_heuristic(ja, jb, eps, delta):
    """The released code's ``emp_c``, in the units of the σ = 1/2 cost (×4), float."""
    wa, wb = 2.0 ** ja, 2.0 ** jb
    emp = math.log(1 / delta) + math.log(1 + math.log(wa)) + math.log(1 + math.log(wb)) + \
        (1 / wa + 1 / wb) * math.log(1 / delta) ** 2 / eps ** 2
    return 4 * emp


#: Threshold readings of the doubling family: name → table builder.
THRESHOLDS = ("eq-5.11", "heuristic")


@lru_cache(maxsize=64)
def stop_constants(kind, K, eps, delta, J):
    """c of :func:`kernels.toptwo.glr_stop`: [cap, J, table(d < cap), table(d ≥ cap)].

    Parameters
    ----------
    kind : str
        ``eq-5.11``, ``heuristic`` or ``eq-5.14``.
    K : int
    eps, delta : float
    J : int
        Exponents 0 … J − 1 tabulated.

    Returns
    -------
    float64 (2 + 2J²,)
    """
    small = np.empty((J, J))
    large = np.empty((J, J))
    for ja in range(J):
        for jb in range(ja, J):
            if kind == "eq-5.11":
                s = l_ = thr_511(ja, jb, K, eps, delta)
            elif kind == "heuristic":
                s = l_ = thr_heuristic(ja, jb, eps, delta)
            else:
                s, l_ = thr_514(ja, jb, K, eps, delta, True), thr_514(ja, jb, K, eps, delta, False)
            small[ja, jb] = small[jb, ja] = s
            large[ja, jb] = large[jb, ja] = l_
    cap = 3 * eps if kind == "eq-5.14" else math.inf
    out = np.concatenate([[cap, J], small.ravel(), large.ravel()])
    out.setflags(write=False)
    return out


def exponents(budget):
    """Table size J: episode sizes 2^j ≤ budget, j < J."""
    return int(budget).bit_length() + 1


@dataclass(kw_only=True)
class TopTwoPlan:
    """Tables and hooks of the top-two engine (:func:`bandsim.kernels.toptwo.run_shard`).

    Attributes
    ----------
    tables : kernels.toptwo.TopTwoTables
    budget : int
        T_max (pulls) after which a run is censored.
    hooks : tuple
        First-class leader, challenger and stop functions (unbound for built-ins).
    stages : list of dict
        Reports (threshold reading, noise).
    noise_scale : float or None
        Laplace scale on each episode sum (1/ε), None when non-private.
    """

    tables: toptwo.TopTwoTables
    budget: int
    hooks: tuple
    stages: list = field(default_factory=list)
    noise_scale: float = None

    def run_shard(self, rng, rcode, rpar, out_tau, out_rec, out_stopped, rec=None):
        """Simulate the runs of one shard in place (arrays as in the kernel)."""
        toptwo.run_shard(rng, np.int64(rcode), rpar, np.int64(self.budget), self.tables,
                         *self.hooks, out_tau, out_rec, out_stopped, rec)


def _types(kind):
    def argtypes():
        return hooks.SIGNATURES[kind].args
    return argtypes


#: Hook signatures of :class:`TopTwoBAI` (argument types, text).
LEADER_SIGNATURE = (_types("leader"), "(mt: float64[::1], nt: int64[::1], cnt: int64[::1], "
                                      "t: int64, c: float64[::1]) -> int64")
CHALLENGER_SIGNATURE = (_types("challenger"), "(b: int64, mt: float64[::1], cnt: int64[::1], "
                                              "c: float64[::1]) -> int64")
STOP_SIGNATURE = (_types("stop"), "(mt: float64[::1], nt: int64[::1], c: float64[::1]) -> int64")


@dataclass(frozen=True, kw_only=True)
class TopTwoBAI(Algorithm):
    """A top-two identifier on the release-batched engine, with three hooks.

    Attributes
    ----------
    leader : numba function (mt, nt, cnt, t, c) -> int64
        Called after each release: the leader B from the released means
        ``mt`` over ``nt`` rewards, pulls ``cnt``, ``t`` = pulls in closed
        episodes; constant until the next release. Default
        :func:`~bandsim.kernels.toptwo.ucb_leader`.
    challenger : numba function (b, mt, cnt, c) -> int64
        Called at each pull β-tracking gives the challenger: an arm ≠ b
        from the current counts. Default :func:`~bandsim.kernels.toptwo.tc_challenger`.
    stop : numba function (mt, nt, c) -> int64
        Called after each release: the recommended arm, or −1 to go on.
        Default :func:`~bandsim.kernels.toptwo.glr_stop` on ``threshold``'s table.
    every_pull : bool
        Non-private: every pull is its own release (cumulative means).
    threshold : str
        Default stopping table: ``eq-5.11``, ``heuristic`` or ``eq-5.14``
        (``params["threshold"]`` overrides it when the declaration takes it).
    constants : callable (params, arms, budget) -> dict, optional
        ``leader``, ``challenger``, ``stop`` constant arrays of a plug-in's hooks.
    """

    engine: str = "bai-toptwo"
    rewards: tuple = ("bernoulli",)
    mechanism: str = "laplace"
    trust: str = "central ε-DP"
    cost: str = "episodes"
    leader: Callable = toptwo.ucb_leader
    challenger: Callable = toptwo.tc_challenger
    stop: Callable = toptwo.glr_stop
    every_pull: bool = False
    threshold: str = "eq-5.11"
    constants: Callable = None
    plan: Callable = None
    participation: Callable = laplace_participation("its arm's episode sum (episodes are "
                                                    "disjoint)")

    hooks = {"leader": LEADER_SIGNATURE, "challenger": CHALLENGER_SIGNATURE,
             "stop": STOP_SIGNATURE}
    task = "identification"

    def __post_init__(self):
        if self.plan is None:
            object.__setattr__(self, "plan", self._plan)

    def _plan(self, params, arms, budget):
        eps = params.get("epsilon", math.inf)
        delta = params["delta"]
        beta = params.get("beta", 0.5)
        threshold = params.get("threshold", self.threshold)
        given = self.constants(params, arms, budget) if self.constants is not None else {}
        cap = 3 * eps if threshold == "eq-5.14" else math.inf
        cl = given.get("leader", [0.0 if self.every_pull else 1 / eps])
        cc = given.get("challenger", [cap])
        if "stop" in given:
            cs = given["stop"]
        elif self.stop is toptwo.gauss_stop:
            cs = [2 * c_gauss(round(math.log((arms - 1) / delta) / 2, 12))]
        elif self.stop is toptwo.glr_stop:
            if not math.isfinite(eps):
                raise ConfigError("epsilon", eps, f"{self.name}'s threshold needs a finite ε")
            cs = stop_constants(threshold, arms, float(eps), float(delta), exponents(budget))
        else:
            cs = [eps, delta, float(arms)]
        kinds = np.array([
            toptwo.UCB if self.leader is toptwo.ucb_leader else toptwo.HOOK,
            toptwo.TC if self.challenger is toptwo.tc_challenger else toptwo.HOOK,
            toptwo.GLR_TABLE if self.stop is toptwo.glr_stop else
            toptwo.GAUSS if self.stop is toptwo.gauss_stop else toptwo.HOOK], np.int64)
        private = not self.every_pull
        bound = (hooks.as_hook("leader", toptwo.no_leader if kinds[0] != toptwo.HOOK
                               else self.leader),
                 hooks.as_hook("challenger", toptwo.no_challenger if kinds[1] != toptwo.HOOK
                               else self.challenger),
                 hooks.as_hook("stop", toptwo.no_stop if kinds[2] != toptwo.HOOK
                               else self.stop))
        f = np.ascontiguousarray
        tables = toptwo.TopTwoTables(
            np.int64(codes.LAPLACE if private else codes.NONE),
            f(np.array([1 / eps if private else 0.0])), np.zeros(1, np.int64),
            np.int64(1 if self.every_pull else 0), np.float64(beta), kinds,
            f(np.array(cl, np.float64)), f(np.array(cc, np.float64)), f(np.array(cs, np.float64)))
        stage = dict(threshold=threshold if kinds[2] == toptwo.GLR_TABLE else
                     getattr(self.stop, "__name__", "stop"), beta=beta,
                     noise="Lap(1/ε) on each episode sum" if private else "none")
        return TopTwoPlan(tables=tables, budget=budget, hooks=bound, stages=[stage],
                          noise_scale=1 / eps if private else None)


__all__ = ["CHALLENGER_SIGNATURE", "LEADER_SIGNATURE", "STOP_SIGNATURE", "THRESHOLDS",
           "TopTwoBAI", "TopTwoPlan", "c_gauss", "stop_constants", "thr_511", "thr_514",
           "thr_gauss", "thr_heuristic"]
