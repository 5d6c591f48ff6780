"""The built-in mechanisms: one declaration each (see :class:`bandsim.Mechanism`).

========================  ============================  ==========================================
name                      source                        noise and guarantee
========================  ============================  ==========================================
``none``                  —                             the exact sum (non-private baselines)
``laplace``               Sajed & Sheffet (ICML 2019)   Lap(1/ε) on an epoch sum; central ε-DP
``dist-dp``               Chowdhury & Zhou, Thm 1       Pólya pairs → Lap_Z(g/ε); ε-DP
``dist-rdp``              Chowdhury & Zhou, Thm 2       Skellam Sk(0, g²/ε²); RDP ε̂(α)
``dist-cdp``              Chowdhury & Zhou, Thm 4       discrete Gaussian; ρ-zCDP
``central``               Chowdhury & Zhou, Thm 5       Lap_Z(g/ε) added by A; central ε-DP
``local``                 Chowdhury & Zhou, Thm 6       Lap_Z(g/ε) per user; local ε-DP
``dist-dp-shuffle``       Chowdhury & Zhou, Thm 3       Thm 1 at ε/2 over (ε/4, q̂)-SecAgg
``binary-summation``      Tenenbaum et al., Alg. 3      shuffle binary summation; (ε, δ)-DP
========================  ============================  ==========================================

:func:`batch` derives one batch of any registered mechanism.
"""
from dataclasses import dataclass, field

from ..kernels import codes
from ..registry import Mechanism, register
from . import secagg
from .binary_summation import BinarySummation

SAJED = "Sajed & Sheffet (ICML 2019)"
TENENBAUM = "Tenenbaum et al. (NeurIPS 2021)"


@dataclass(frozen=True)
class SumBatch:
    """One batch of a mechanism that adds noise to (or releases) the batch sum.

    Attributes
    ----------
    name : str
    n : int
        Users (rewards) in the batch.
    fpar, ipar : tuple
        Kernel parameters (``laplace``: (b,), the Laplace scale on the sum;
        ``binary-summation``: (τ,)).
    code : int
    privacy : dict
        The guarantee of one batch in the paper's terms.
    theorem : str
    extra : dict
        E.g. the binary-summation object (``mech``).
    """

    name: str
    n: int
    fpar: tuple
    ipar: tuple
    code: int
    privacy: dict
    theorem: str = ""
    extra: dict = field(default_factory=dict)

    def info(self):
        return dict(n=self.n)


def batch(name, n, **params):
    """One batch of ``n`` users of the registered mechanism ``name``.

    ``params`` are the parameters its derivation takes (e.g. ``epsilon``,
    ``p``, ``scale``, ``delta``); others are ignored.
    """
    from ..registry import get_mechanism

    return get_mechanism(name).derive(n, params)


# --- audits, laws and costs (lazy: the privacy toolkit loads scipy) ---------

def secagg_audit(b, algorithm, fold_max=None):
    """The exact audit of one batch of any SecAgg-family mechanism (plug-ins too)."""
    from ..privacy.audit import FOLD_MAX, audit_mechanism

    return audit_mechanism(b, algorithm, fold_max or FOLD_MAX)


def secagg_audit_points(b, fold_max=None):
    """Points :func:`secagg_audit` evaluates (its cost)."""
    from ..privacy.audit import FOLD_MAX, audit_points

    return audit_points(b, fold_max or FOLD_MAX)


def _dlaplace_law(b):
    """Lap_Z from q = fpar[0]: what the batched, central and local samplers read."""
    from ..privacy.pmf import DiscreteLaplace

    return DiscreteLaplace.from_q(b.fpar[0])


def _polya_law(b):
    """Σ of n Pólya(1/n, β) pairs = Lap_Z with β = fpar[1]: what the per-user path reads."""
    from ..privacy.pmf import DiscreteLaplace

    return DiscreteLaplace(b.fpar[1])


def _skellam_law(b):
    from ..privacy.pmf import Skellam

    return Skellam(b.fpar[0])


def _dgauss_sum_law(b):
    from ..privacy.pmf import DiscreteGaussianSum

    return DiscreteGaussianSum(b.n, b.fpar[0] / b.n)


def _skellam_claim(b, alpha):
    return (secagg.skellam_rdp(alpha, b.epsilon, b.scale),
            f"Lemma 3 per batch: {secagg.skellam_rdp(alpha, b.epsilon, b.scale, g=b.g):.6g}")


def _none_batch(n, **_):
    return SumBatch("none", int(n), (), (), codes.NONE, dict(guarantee="none"))


def _laplace_batch(n, epsilon):
    """Lap(1/(ε r)) on a mean of r rewards = Lap(1/ε) on their sum (sensitivity 1)."""
    return SumBatch("laplace", int(n), (1.0 / epsilon,), (), codes.LAPLACE,
                    dict(guarantee="ε-DP per epoch, central", epsilon=epsilon,
                         theorem=f"{SAJED}, Algorithm 9, Theorem 5.1.1"),
                    f"{SAJED}, Theorem 5.1.1")


def _audit_laplace(b, algorithm, fold_max=None):
    from ..privacy.audit import audit_laplace

    return audit_laplace(b.fpar[0], b.privacy["epsilon"], b.n, algorithm=algorithm)


def _binary_summation_batch(n, epsilon, delta):
    mech = _binary_summation(epsilon, delta)
    return SumBatch("binary-summation", int(n), (mech.tau,), (), codes.SHUFFLE_BINARY,
                    dict(guarantee="(ε, δ)-DP per batch, shuffle model", epsilon=epsilon,
                         delta=delta, theorem=f"{TENENBAUM}, Theorem A.1"),
                    f"{TENENBAUM}, Theorem A.1", dict(mech=mech))


_BS_CACHE = {}


def _binary_summation(epsilon, delta):
    key = (epsilon, delta)
    if key not in _BS_CACHE:
        _BS_CACHE[key] = BinarySummation(epsilon, delta)
    return _BS_CACHE[key]


def _audit_binary_summation(b, algorithm, fold_max=None):
    """The exact audit of the shuffle's count, with τ = fpar[0] (what the kernels read)."""
    import copy

    from ..privacy.audit import audit_shuffle

    mech = b.extra["mech"]
    if mech.tau != b.fpar[0]:
        mech = copy.copy(mech)
        mech.tau = float(b.fpar[0])
    return audit_shuffle(mech, b.n, algorithm)


def _summarize_dist_cdp(batches):
    """The per-batch ε̂ grows with n: report the worst batch."""
    worst = max(batches, key=lambda b: b.privacy["epsilon_hat"])
    return dict(epsilon_hat=worst.privacy["epsilon_hat"], rho=worst.privacy["rho"],
                xi=worst.privacy["xi"], log10_xi=worst.privacy["log10_xi"],
                dgauss_tv_bound_max=max(b.extra["dgauss_tv_bound"] for b in batches))


def _summarize_dist_rdp(batches):
    return dict(rdp_epsilon_2_per_batch_max=max(b.extra["rdp_epsilon_2"] for b in batches))


SHUFFLE_NOTE = (
    "dist-dp-se-shuffle simulates Theorem 3 at the level it is stated: the randomizer, "
    "Pólya noise at ε' = ε/2, modulus and analyzer exactly as Dist-DP-SE with p' "
    "(default 1/(2T)), and an (ε̂ = ε/4, q̂ = p')-relaxed SecAgg whose output is the "
    "correct modular sum except with probability q̂, when it is a uniform element of "
    "Z_m. Not simulated: the Cheu–Yan bit-vector randomizer and the shuffler's "
    "permutation of n·d bits (they do not change the analyzer's output beyond the "
    "q̂ event), nor the ε̂ leakage, which enters the recorded privacy only.")


def _summarize_dist_dp_shuffle(batches):
    return dict(simulated=SHUFFLE_NOTE)


CZ = "Chowdhury & Zhou (ICLR 2023)"
THESIS = "Sajed, MSc thesis (2019)"


def _inside_engine(name, source):
    """A mechanism its engine draws itself (no batch kernel): the claim only."""
    def derive(n, epsilon):
        return SumBatch(name, int(n), (), (), codes.NONE,
                        dict(guarantee="central ε-DP", epsilon=epsilon, theorem=source), source)
    return derive
SECAGG_SAMPLERS = {
    "dist-dp": ("polya (per user)", "discrete_laplace (total)"),
    "central": ("geometric_failures (analyzer)",),
    "local": ("discrete_laplace (per user)", "discrete_laplace_sum (total)"),
    "dist-dp-shuffle": ("polya (per user)", "discrete_laplace (total)", "uniform (relaxation)"),
    "dist-rdp": ("skellam",),
    "dist-cdp": ("discrete_gaussian (per user and batched total)",),
}

register(
    Mechanism("none", "the exact batch sum", "—", "none", "none", codes.NONE, _none_batch,
              takes=(), family="none"),
    Mechanism("laplace", "continuous Laplace Lap(1/ε) on each epoch sum", f"{SAJED}, Algorithm 9",
              "central ε-DP", "laplace", codes.LAPLACE, _laplace_batch, audit=_audit_laplace,
              audit_points=lambda b, fold_max=None: 20001, samplers=("Generator.laplace",),
              family="sum", float_safe=False),
    Mechanism("tree", "tree-based binary mechanism: Lap((⌈log₂ T⌉ + 1)/ε) on every node",
              f"{THESIS}, Algorithm 5", "central ε-DP", "pure", codes.NONE,
              _inside_engine("tree", f"{THESIS}, Algorithms 5-6 (Mishra & Thakurta 2015)"),
              samplers=("Generator.standard_exponential (Laplace as a difference)",),
              family="engine", float_safe=False),
    Mechanism("svt", "sparse vector technique and Laplace histogram inside epochs",
              f"{THESIS}, Algorithm 10", "central ε-DP", "pure", codes.NONE,
              _inside_engine("svt", f"{THESIS}, Algorithm 10 (Appendix A.1)"),
              samplers=("Generator.laplace",), family="engine", float_safe=False),
    Mechanism("dist-dp", "SecAgg, Pólya pairs per user (discrete Laplace total)",
              f"{CZ}, Theorem 1", "distributed ε-DP (SecAgg)", "pure", codes.DIST_DP,
              secagg.dist_dp, ("epsilon", "p"), secagg_audit, secagg_audit_points, _dlaplace_law,
              samplers=SECAGG_SAMPLERS["dist-dp"], user_law=_polya_law, float_safe=True),
    Mechanism("dist-rdp", "SecAgg, Skellam noise per user", f"{CZ}, Theorem 2",
              "distributed RDP (SecAgg)", "rdp", codes.DIST_RDP, secagg.dist_rdp,
              ("epsilon", "p", "scale"), secagg_audit, secagg_audit_points, _skellam_law,
              claim=_skellam_claim, samplers=SECAGG_SAMPLERS["dist-rdp"],
              summarize=_summarize_dist_rdp, float_safe=True),
    Mechanism("dist-cdp", "SecAgg, discrete Gaussian noise per user", f"{CZ}, Theorem 4",
              "distributed zCDP (SecAgg)", "zcdp", codes.DIST_CDP, secagg.dist_cdp,
              ("epsilon", "p", "scale"), secagg_audit, secagg_audit_points, _dgauss_sum_law,
              samplers=SECAGG_SAMPLERS["dist-cdp"], summarize=_summarize_dist_cdp,
              float_safe=True),
    Mechanism("central", "discrete Laplace added by the analyzer", f"{CZ}, Theorem 5",
              "central ε-DP", "pure", codes.CENTRAL, secagg.central, ("epsilon", "p"),
              secagg_audit, secagg_audit_points, _dlaplace_law, samplers=SECAGG_SAMPLERS["central"],
              float_safe=True),
    Mechanism("local", "discrete Laplace added by every user", f"{CZ}, Theorem 6",
              "local ε-DP", "pure", codes.LOCAL, secagg.local, ("epsilon", "p"),
              secagg_audit, secagg_audit_points, _dlaplace_law, samplers=SECAGG_SAMPLERS["local"],
              view="one user's message y_i", float_safe=True),
    Mechanism("dist-dp-shuffle", "Theorem 1 at ε/2 over an (ε/4, q̂)-relaxed SecAgg",
              f"{CZ}, Theorem 3", "distributed ε-DP (shuffling)", "pure", codes.DIST_DP_SHUFFLE,
              secagg.dist_dp_shuffle, ("epsilon", "p"), secagg_audit, secagg_audit_points,
              _dlaplace_law, samplers=SECAGG_SAMPLERS["dist-dp-shuffle"],
              summarize=_summarize_dist_dp_shuffle, user_law=_polya_law, float_safe=True),
    Mechanism("binary-summation", "shuffle binary summation of the users' bits",
              f"{TENENBAUM}, Algorithm 3", "shuffle (ε, δ)-DP", "approx", codes.SHUFFLE_BINARY,
              _binary_summation_batch, ("epsilon", "delta"), _audit_binary_summation,
              lambda b, fold_max=None: 4 * b.n, samplers=("Generator.binomial",),
              family="shuffle", float_safe=True),
)

__all__ = ["SumBatch", "batch", "secagg", "secagg_audit", "secagg_audit_points"]


def _discover():
    """Import every module of this package, so a new mechanism is one new file here.

    A module that declares a mechanism (and, if it likes, the algorithms that
    use it) registers them at import; nothing else needs editing.
    """
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


_discover()
