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

from ..guarantees import Guarantee
from ..kernels import codes
from ..privacy.pmf import DiscreteGaussianSum, DiscreteLaplace, Skellam
from ..registry import get_mechanism, register
from . import secagg
from .binary_summation import BinarySummation
from .families import Exact, InsideEngine, NoiseOnSum, SecAggProtocol, Shuffle

SAJED = "Sajed & Sheffet (ICML 2019)"
TENENBAUM = "Tenenbaum et al. (NeurIPS 2021)"


@dataclass(frozen=True, kw_only=True)
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

    def info(self) -> dict:
        return dict(n=self.n)


def batch(name, n, **params):
    """One batch of ``n`` users of the registered mechanism ``name``.

    ``params`` are the parameters its derivation takes (e.g. ``epsilon``,
    ``p``, ``scale``, ``delta``); others are ignored.
    """
    return get_mechanism(name).derive(n, params)


# --- laws, claims and costs -------------------------------------------------------

def _dlaplace_law(b):
    """Lap_Z from q = fpar[0]: what the batched, central and local samplers read."""
    return DiscreteLaplace.from_q(b.fpar[0])


def _polya_law(b):
    """Σ of n Pólya(1/n, β) pairs = Lap_Z with β = fpar[1]: what the per-user path reads."""
    return DiscreteLaplace(b.fpar[1])


def _skellam_law(b):
    return Skellam(b.fpar[0])


def _dgauss_sum_law(b):
    return DiscreteGaussianSum(b.n, b.fpar[0] / b.n)


def _skellam_claim(b, alpha):
    return (secagg.skellam_rdp(alpha, b.epsilon, b.scale),
            f"Lemma 3 per batch: {secagg.skellam_rdp(alpha, b.epsilon, b.scale, g=b.g):.6g}")


def _none_batch(n, **_):
    return SumBatch(name="none", n=int(n), fpar=(), ipar=(), code=codes.NONE,
                    privacy=dict(guarantee="none"))


def _laplace_batch(n, epsilon):
    """Lap(1/(ε r)) on a mean of r rewards = Lap(1/ε) on their sum (sensitivity 1)."""
    return SumBatch(name="laplace", n=int(n), fpar=(1.0 / epsilon,), ipar=(), code=codes.LAPLACE,
                    privacy=dict(guarantee="ε-DP per epoch, central", epsilon=epsilon,
                                 theorem=f"{SAJED}, Algorithm 9, Theorem 5.1.1"),
                    theorem=f"{SAJED}, Theorem 5.1.1")


def _binary_summation_batch(n, epsilon, delta):
    mech = _binary_summation(epsilon, delta)
    return SumBatch(name="binary-summation", n=int(n), fpar=(mech.tau,), ipar=(),
                    code=codes.SHUFFLE_BINARY,
                    privacy=dict(guarantee="(ε, δ)-DP per batch, shuffle model",
                                 epsilon=epsilon, delta=delta,
                                 theorem=f"{TENENBAUM}, Theorem A.1"),
                    theorem=f"{TENENBAUM}, Theorem A.1", extra=dict(mech=mech))


_BS_CACHE = {}


def _binary_summation(epsilon, delta):
    key = (epsilon, delta)
    if key not in _BS_CACHE:
        _BS_CACHE[key] = BinarySummation(epsilon, delta)
    return _BS_CACHE[key]


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
        return SumBatch(name=name, n=int(n), fpar=(), ipar=(), code=codes.NONE,
                        privacy=dict(guarantee="central ε-DP", epsilon=epsilon, theorem=source),
                        theorem=source)
    return derive

DIST_DP = SecAggProtocol(
    name="dist-dp", summary="SecAgg, Pólya pairs per user (discrete Laplace total)",
    source=f"{CZ}, Theorem 1", trust="distributed ε-DP (SecAgg)", code=codes.DIST_DP,
    batch=secagg.dist_dp, noise_law=_dlaplace_law, user_law=_polya_law,
    samplers=("polya (per user)", "discrete_laplace (total)"))

register(
    Exact(name="none", summary="the exact batch sum", batch=_none_batch),
    NoiseOnSum(name="laplace", summary="continuous Laplace Lap(1/ε) on each epoch sum",
               source=f"{SAJED}, Algorithm 9", trust="central ε-DP", code=codes.LAPLACE,
               batch=_laplace_batch, samplers=("Generator.laplace",)),
    InsideEngine(name="svt", summary="sparse vector technique and Laplace histogram inside epochs",
                 source=f"{THESIS}, Algorithm 10", trust="central ε-DP",
                 batch=_inside_engine("svt", f"{THESIS}, Algorithm 10 (Appendix A.1)"),
                 samplers=("Generator.laplace",), float_safe=False),
    DIST_DP,
    SecAggProtocol(name="dist-rdp", summary="SecAgg, Skellam noise per user",
                   source=f"{CZ}, Theorem 2", trust="distributed RDP (SecAgg)",
                   kind=Guarantee.RDP, code=codes.DIST_RDP, batch=secagg.dist_rdp,
                   takes=("epsilon", "p", "scale"), noise_law=_skellam_law,
                   claim=_skellam_claim, samplers=("skellam",), summarize=_summarize_dist_rdp),
    SecAggProtocol(name="dist-cdp", summary="SecAgg, discrete Gaussian noise per user",
                   source=f"{CZ}, Theorem 4", trust="distributed zCDP (SecAgg)",
                   kind=Guarantee.ZCDP, code=codes.DIST_CDP, batch=secagg.dist_cdp,
                   takes=("epsilon", "p", "scale"), noise_law=_dgauss_sum_law,
                   samplers=("discrete_gaussian (per user and batched total)",),
                   summarize=_summarize_dist_cdp),
    SecAggProtocol(name="central", summary="discrete Laplace added by the analyzer",
                   source=f"{CZ}, Theorem 5", trust="central ε-DP", code=codes.CENTRAL,
                   batch=secagg.central, noise_law=_dlaplace_law,
                   samplers=("geometric_failures (analyzer)",)),
    SecAggProtocol(name="local", summary="discrete Laplace added by every user",
                   source=f"{CZ}, Theorem 6", trust="local ε-DP", code=codes.LOCAL,
                   batch=secagg.local, noise_law=_dlaplace_law,
                   samplers=("discrete_laplace (per user)", "discrete_laplace_sum (total)"),
                   view="one user's message y_i"),
    SecAggProtocol(name="dist-dp-shuffle",
                   summary="Theorem 1 at ε/2 over an (ε/4, q̂)-relaxed SecAgg",
                   source=f"{CZ}, Theorem 3", trust="distributed ε-DP (shuffling)",
                   code=codes.DIST_DP_SHUFFLE, batch=secagg.dist_dp_shuffle,
                   noise_law=_dlaplace_law, user_law=_polya_law,
                   samplers=("polya (per user)", "discrete_laplace (total)",
                             "uniform (relaxation)"),
                   summarize=_summarize_dist_dp_shuffle),
    Shuffle(name="binary-summation", summary="shuffle binary summation of the users' bits",
            source=f"{TENENBAUM}, Algorithm 3", trust="shuffle (ε, δ)-DP",
            code=codes.SHUFFLE_BINARY, batch=_binary_summation_batch,
            samplers=("Generator.binomial",)),
)

__all__ = ["DIST_DP", "Exact", "InsideEngine", "NoiseOnSum", "SecAggProtocol", "Shuffle",
           "SumBatch", "batch", "secagg"]


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
