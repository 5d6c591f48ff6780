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
:class:`Shuffle`         the shuffle model (binary summation).
:class:`InsideEngine`    noise the engine draws itself (tree, SVT, DP-TS):
                         the declaration carries the claim and its audit.
:class:`Exact`           no noise (non-private baselines).
=====================  =====================================================

Data-dependent releases (randomized response and the like: a numba
``release(rng, n, k, params)`` drawing the analyzer's view from the true
count) get their own base next to these: a field for the hook, listed in the
class attribute ``hooks`` (field → (numba argument types or None, signature
text)), which registration checks (:mod:`bandsim.validation`) and which
satisfies ``code=codes.PLUGIN`` without ``kernels``; a family that takes
plug-in kernels lists their keys in :data:`bandsim.registry.KERNEL_KEYS`.

References
----------
Chowdhury & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits"
(ICLR 2023), Section 4 (protocol P = (R, S, A)), Theorems 1–6.
"""
from dataclasses import dataclass
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


@dataclass(frozen=True, kw_only=True)
class NoiseOnSum(Mechanism):
    """Noise added to the exact batch sum; a plug-in gives ``kernels={"sum_noise": f}``."""

    kind: Guarantee = Guarantee.LAPLACE
    code: int = codes.PLUGIN
    family: str = "sum"


@dataclass(frozen=True, kw_only=True)
class Shuffle(Mechanism):
    """A shuffle-model mechanism ((ε, δ)-DP of the shuffled multiset)."""

    kind: Guarantee = Guarantee.APPROX
    takes: tuple = ("epsilon", "delta")
    family: str = "shuffle"


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


__all__ = ["Exact", "InsideEngine", "NoiseOnSum", "SecAggProtocol", "Shuffle"]
