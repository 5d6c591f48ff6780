"""Mechanism families: the bases a mechanism declaration (built-in or plug-in) starts from.

Each base fixes what its family shares — the engines' kernel hooks, the
exact audit the privacy layer supplies for it (``Mechanism.default_audit``),
the accountant — so a declaration gives only what is
its own: name, summary, source, trust, guarantee, the per-batch derivation
``batch(n, **params)`` and the exact law of its noise. Everything is a
keyword (``SecAggProtocol(name=..., batch=..., noise_law=...)``).

=====================  =====================================================
base                   family
=====================  =====================================================
:class:`SecAggProtocol`  protocol P = (R, S, A) of Chowdhury & Zhou:
                         randomized rounding at precision g, noise per user,
                         reduction mod m, secure aggregation, the analyzer's
                         window τ; batched and per-user paths, exact audit of
                         the analyzer's view, accountant. Plug-in kernels:
                         ``total_noise``, ``user_noise``.
:class:`NoiseOnSum`      noise added to the exact batch sum (Laplace on an
                         epoch sum). Plug-in kernel: ``sum_noise``.
:class:`DataDependent`   a data-dependent release from the batch's true
                         count (randomized response and the like): the numba
                         hook ``release(rng, n, k, params)`` and its exact
                         law ``release_law``; exact and sampled audits.
:class:`Shuffle`         the shuffle model (binary summation).
:class:`InsideEngine`    noise the engine draws itself (tree, SVT, DP-TS):
                         the declaration carries the claim and its audit.
:class:`Exact`           no noise (non-private baselines).
=====================  =====================================================

``float_safe`` (shown by ``bandsim list``) defaults to True for
:class:`SecAggProtocol`, :class:`Shuffle` and :class:`DataDependent` (integer or finite
discrete releases) and to False
for :class:`NoiseOnSum` (float64 noise on an exact sum, Mironov, CCS 2012);
an :class:`InsideEngine` mechanism declares it.

A family's numba hook is a field listed in the class attribute ``hooks``
(field → (numba argument types or None, signature text)), which registration
checks (:mod:`bandsim.validation`); a family that takes plug-in kernels lists
their keys in :data:`bandsim.registry.KERNEL_KEYS` and its kernel code in
``kernels.codes.PLUGIN_CODES``.

References
----------
Chowdhury & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits"
(ICLR 2023), Section 4 (protocol P = (R, S, A)), Theorems 1–6.
"""
from dataclasses import dataclass
from typing import Callable

from ..errors import ConfigError
from ..guarantees import Guarantee
from ..kernels import codes
from ..registry import Mechanism


@dataclass(frozen=True, kw_only=True)
class SecAggProtocol(Mechanism):
    """A mechanism inside the SecAgg protocol P = (R, S, A) (see the module docstring).

    Give ``name``, ``summary``, ``source``, ``trust``, ``batch`` (returning
    :func:`bandsim.mechanisms.secagg.finish`'s batch) and ``noise_law``;
    a plug-in also gives ``kernels={"total_noise": f, "user_noise": g}``.
    """

    kind: Guarantee = Guarantee.PURE
    code: int = codes.PLUGIN
    takes: tuple = ("epsilon", "p")
    family: str = "secagg"
    float_safe: bool = True  # integers end to end (int64 kernels, reduction mod m)


@dataclass(frozen=True, kw_only=True)
class NoiseOnSum(Mechanism):
    """Noise added to the exact batch sum; a plug-in gives ``kernels={"sum_noise": f}``."""

    kind: Guarantee = Guarantee.LAPLACE
    code: int = codes.PLUGIN_SUM
    family: str = "sum"
    float_safe: bool = False  # float64 noise on an exact sum (Mironov, CCS 2012)


def _release_types():
    from numba.core import types

    gen = types.NumPyRandomGeneratorType("NumPyRandomGeneratorType")
    return (gen, types.int64, types.int64, types.float64[::1])


#: The release hook's signature (:mod:`bandsim.kernels.hooks`): argument types (built
#: when a plug-in registers: importing bandsim loads no numba) and text.
RELEASE_SIGNATURE = (_release_types, "(rng: Generator, n: int64, k: int64, "
                                     "params: float64[::1]) -> float64")


@dataclass(frozen=True, kw_only=True)
class DataDependent(Mechanism):
    """A data-dependent release from the batch's true count (randomized response and the like).

    Give ``name``, ``summary``, ``source``, ``trust``, ``batch`` (returning a
    :class:`bandsim.mechanisms.release.ReleaseBatch`), ``release`` and
    ``release_logpmf`` (or ``release_law``). The elimination engine runs it on binary
    rewards; the exact audit (:func:`bandsim.privacy.release.audit_release`) reads
    that law and ``bandsim audit --sampled`` tests the hook's own
    draws against it.

    Attributes
    ----------
    release : numba function (rng, n: int64, k: int64, params: float64[::1]) -> float64
        The analyzer's estimate of the batch sum drawn from the true count
        ``k`` of ones among ``n`` binary rewards; ``params`` is the batch's
        ``fpar`` (an int64 result is cast). Compiled against this signature
        when a plug-in registers; the engines call it as the kernel hook
        ``release`` (:mod:`bandsim.kernels.hooks`).
    release_logpmf : callable (n, k, fpar) -> (values float64 (V,), logprobs float64 (V,))
        The exact law of ``release`` in log space (values strictly
        increasing, natural-log probabilities whose exponentials sum to 1;
        −inf for a value the release never takes). Preferred: the exact audit
        works in log space throughout, so tails far below 10⁻³⁰⁸ (randomized
        response at n ≳ 550) keep their exact ratios.
    release_law : callable (n, k, fpar) -> (values float64 (V,), probs float64 (V,))
        The same law as probabilities (values strictly increasing, probs
        summing to 1); give one of the two. A probability that underflows to
        0 (or is subnormal) where the neighbouring law's is not cannot be
        audited: the audit then reports a lower bound (INCONCLUSIVE), never
        an ε = inf from underflow.
    report_probs : callable (fpar) -> (q0, q1), optional
        The release is a function of the count of independent binary reports,
        a user reporting 1 with probability q0 when her bit is 0 and q1 when it
        is 1 (randomized response: (p, 1 − p)). The exact audit then holds at
        any n in closed form (:func:`bandsim.privacy.release.report_epsilon`)
        after matching ``release_logpmf`` to it, so the largest batches are
        audited too; without it the audit evaluates the n + 1 laws (n ≲ 5,800).

    Raises
    ------
    ConfigError
        ``kernels={"release": f}`` together with another ``release`` (give the hook once).
    """

    kind: Guarantee = Guarantee.PURE
    code: int = codes.RELEASE
    family: str = "release"
    float_safe: bool = True  # the view is the finite discrete law release_law declares
    release: Callable = None
    release_law: Callable = None
    release_logpmf: Callable = None
    report_probs: Callable = None

    hooks = {"release": RELEASE_SIGNATURE}

    def __post_init__(self):
        super().__post_init__()
        if self.kernels and "release" in self.kernels:  # the hook given as a kernel key
            fn = self.kernels["release"]
            if self.release is not None and self.release is not fn:
                raise ConfigError(f"mechanism {self.name!r} kernels", "release",
                                  "give the release hook once: release=f")
            rest = {k: v for k, v in self.kernels.items() if k != "release"}
            object.__setattr__(self, "release", fn)
            object.__setattr__(self, "kernels", rest or None)


@dataclass(frozen=True, kw_only=True)
class Shuffle(Mechanism):
    """A shuffle-model mechanism ((ε, δ)-DP of the shuffled multiset)."""

    kind: Guarantee = Guarantee.APPROX
    takes: tuple = ("epsilon", "delta")
    family: str = "shuffle"
    float_safe: bool = True  # counts of bits


@dataclass(frozen=True, kw_only=True)
class InsideEngine(Mechanism):
    """Noise its engine draws itself: the declaration holds the claim (and an audit)."""

    kind: Guarantee = Guarantee.PURE
    code: int = codes.NONE
    family: str = "engine"


@dataclass(frozen=True, kw_only=True)
class Exact(Mechanism):
    """No noise: the exact batch sum (non-private baselines)."""

    kind: Guarantee = Guarantee.NONE
    code: int = codes.NONE
    source: str = "—"
    trust: str = "none"
    takes: tuple = ()
    family: str = "none"


__all__ = ["Exact", "InsideEngine", "NoiseOnSum", "RELEASE_SIGNATURE", "DataDependent",
           "SecAggProtocol", "Shuffle"]
