"""Algorithm 1 of Chowdhury & Zhou instantiated with the protocols of seed 003.

Every algorithm here is batch-based successive elimination (Algorithm 1:
l(b) = η^b users per active arm in batch b, consecutive blocks, estimates
from the current batch only, eliminate a when max μ̂ − μ̂_a > 2β(b)) whose
batch sums come from one protocol P = (R, S, A) of :mod:`bandsim.protocols`:

=====================  ==================  ==================================
algorithm              protocol            guarantee (seed 003)
=====================  ==================  ==================================
``dist-dp-se``         ``dist-dp``         ε-DP, distributed (Theorem 1)
``dist-rdp-se``        ``dist-rdp``        RDP ε̂(α), distributed (Theorem 2)
``dist-cdp-se``        ``dist-cdp``        ρ-zCDP, distributed (Theorem 4)
``cdp-se``             ``central``         ε-DP, central (Theorem 5)
``ldp-se``             ``local``           ε-DP, local (Theorem 6)
``dist-dp-se-shuffle`` ``dist-dp-shuffle`` ε-DP via shuffling (Theorem 3)
=====================  ==================  ==================================

β(b) is Lemma 2, eq. (2) (:func:`~bandsim.algorithms.batched.confidence_radius`)
with the mechanism's tail constants (σ, h) (see :mod:`bandsim.protocols`),
the number of active arms |Φ(b)| = k and the same p that sets τ. Defaults
follow the paper's experiments (Section 7, Appendix J): p = 0.1, l(b) = 4^b,
s = 10. The theorems themselves take p = 1/T; pass ``p`` to use that.

Privacy: users are unique and each contributes to one batch, so by parallel
composition the whole run has the guarantee of one batch (seed 003,
Section 6, "Privacy"); Theorem 2's ε̂(α) and Theorem 4's ε̂ are uniform over
batch sizes, and we record both the theorem's value and the per-batch one.

References
----------
seed 003, Algorithm 1, Lemma 2 eq. (2), Theorems 1–6, Section 7, Appendix J.
"""
from bandsim.kernels import regret

from .. import protocols
from .base import REQUIRED, Algorithm, Plan, build_tables
from .batched import batch_size, confidence_radius


def plan_protocol(name, params, arms, horizon):
    """Engine plan of Algorithm 1 over protocol ``name`` (see the module docstring)."""
    eps, p, growth = params["epsilon"], params["p"], params["growth"]
    scale = params.get("scale", 1.0)
    cache = {}

    def mech(n):
        if n not in cache:
            cache[n] = protocols.mechanism(name, n, eps, p, scale)
        return cache[n]

    def stage(s, k):
        b = s + 1
        n = batch_size(b, growth)
        mc = mech(n)
        w = 2 * confidence_radius(b, k, n, p, mc.sigma, mc.h)
        return n, w, mc.fpar, mc.ipar, dict(mc.info(), width=w)

    batch, width, fpar, ipar, stages = build_tables(arms, horizon, stage, n_fpar=4, n_ipar=3)
    first = mech(int(batch[0, arms]))
    privacy = dict(first.privacy, mechanism=name, theorem=first.theorem,
                   max_bits_per_user=max(st["bits"] for st in stages))
    if name == "dist-cdp":  # the per-batch ε̂ is increasing in n: report the worst
        worst = max(cache.values(), key=lambda m: m.privacy["epsilon_hat"])
        privacy.update(epsilon_hat=worst.privacy["epsilon_hat"], rho=worst.privacy["rho"],
                       xi=worst.privacy["xi"], log10_xi=worst.privacy["log10_xi"],
                       dgauss_tv_bound_max=max(m.extra["dgauss_tv_bound"]
                                               for m in cache.values()))
    if name == "dist-dp-shuffle":
        privacy["simulated"] = SHUFFLE_NOTE
    if name == "dist-rdp":
        privacy["rdp_epsilon_2_per_batch_max"] = max(m.extra["rdp_epsilon_2"]
                                                     for m in cache.values())
    return Plan(batch, width, first.code, fpar, ipar, regret.BLOCKS, False, stages,
                privacy=privacy)


def _algorithm(name, proto, summary, trust, theorem, scale=False, p_default=0.1):
    params = {"epsilon": REQUIRED, "p": p_default, "growth": 4.0}
    if scale:
        params["scale"] = 10.0
    return Algorithm(name=name, summary=summary, trust=trust,
                     reference=f"seed 003 Algorithm 1 + {theorem}", params=params,
                     plan=lambda prm, arms, horizon: plan_protocol(proto, prm, arms, horizon))


def _half_over_horizon(horizon):
    """p' = 1/(2T) of Theorem 3 (seed 003)."""
    return 1.0 / (2 * horizon)


_half_over_horizon.label = "1/(2T)"

DIST_DP_SE = _algorithm("dist-dp-se", "dist-dp",
                        "batched SE, SecAgg with Pólya noise (discrete Laplace total)",
                        "distributed ε-DP (SecAgg)", "Theorem 1")
DIST_RDP_SE = _algorithm("dist-rdp-se", "dist-rdp", "batched SE, SecAgg with Skellam noise",
                         "distributed RDP (SecAgg)", "Theorem 2", scale=True)
DIST_CDP_SE = _algorithm("dist-cdp-se", "dist-cdp",
                         "batched SE, SecAgg with discrete Gaussian noise",
                         "distributed zCDP (SecAgg)", "Theorem 4", scale=True)
CDP_SE = _algorithm("cdp-se", "central",
                    "batched SE, discrete Laplace added by the analyzer",
                    "central ε-DP", "Theorem 5")
LDP_SE = _algorithm("ldp-se", "local", "batched SE, discrete Laplace added by every user",
                    "local ε-DP", "Theorem 6")
DIST_DP_SE_SHUFFLE = _algorithm(
    "dist-dp-se-shuffle", "dist-dp-shuffle",
    "Dist-DP-SE at ε/2 over an (ε/4, 1/(2T))-relaxed SecAgg simulated by shuffling",
    "distributed ε-DP (shuffling)", "Theorem 3", p_default=_half_over_horizon)

ALGORITHMS = (DIST_DP_SE, DIST_RDP_SE, DIST_CDP_SE, CDP_SE, LDP_SE, DIST_DP_SE_SHUFFLE)

SHUFFLE_NOTE = (
    "dist-dp-se-shuffle simulates Theorem 3 at the level it is stated: the randomizer, "
    "Pólya noise at ε' = ε/2, modulus and analyzer exactly as Dist-DP-SE with p' "
    "(default 1/(2T)), and an (ε̂ = ε/4, q̂ = p')-relaxed SecAgg whose output is the "
    "correct modular sum except with probability q̂, when it is a uniform element of "
    "Z_m. Not simulated: the Cheu–Yan bit-vector randomizer and the shuffler's "
    "permutation of n·d bits (they do not change the analyzer's output beyond the "
    "q̂ event), nor the ε̂ leakage, which enters the recorded privacy only.")
