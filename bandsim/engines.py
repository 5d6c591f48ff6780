"""One kernel path for built-in and plug-in mechanisms: cached engines plus first-class hooks.

Every engine and SecAgg kernel is compiled once, cached on disk, and takes a
:class:`bandsim.kernels.hooks.Hooks` tuple as its last argument. A built-in
mechanism passes the unbound hooks (each raises if called; built-in codes
never call them), or ``None`` to the elimination engine, which prunes its
plug-in branch then (no first-class functions to unbox on every shard). A plug-in mechanism's ``kernels`` (Numba functions) are
wrapped as first-class functions of fixed signatures and passed in: the
engine is not recompiled for them, so a plug-in's first ``simulate`` in a
fresh process costs only its own small kernels (cached too when Numba can
locate the plug-in's source file).

Mechanism families and the kernel keys they consume
(:data:`bandsim.registry.KERNEL_KEYS`; anything else is refused at
registration by :mod:`bandsim.validation`, as is a missing key):

``secagg`` (code ``PLUGIN``)
    ``total_noise(rng, mech, n, fpar) -> int64`` and
    ``user_noise(rng, mech, n, fpar) -> int64``: the closed-form total noise
    of a batch and one user's noise (encoded units). bandsim's protocol
    P = (R, S, A) of Chowdhury & Zhou does the rest (batched and per-user
    paths, hence the per-user reference).
``sum`` (code ``PLUGIN_SUM``)
    ``sum_noise(rng, n, fpar) -> float64``: noise added to the exact sum.
``release`` (code ``RELEASE``)
    ``release(rng, n, k, params) -> float64`` (an int64 result is cast): the
    analyzer's estimate of the batch sum drawn from the true count k of ones
    among the n binary rewards; ``params`` is the batch's ``fpar``.

An algorithm on the batched decision-rule engine
(:class:`bandsim.algorithms.families.BatchedDecision`) declares ``decide`` (see
:mod:`bandsim.kernels.decisions`).
"""
from functools import lru_cache

from . import registry
from .kernels import elimination, hooks, protocols, secagg


@lru_cache(maxsize=None)
def _hooks(mechanism):
    """``mechanism``'s bound hooks, or ``None`` for a mechanism without kernels (built-ins)."""
    spec = registry.get_mechanism(mechanism)
    kernels = dict(spec.kernels or {})
    for field in type(spec).hooks:  # a family's own hook fields (e.g. DataDependent.release)
        if field in hooks.SIGNATURES and getattr(spec, field, None) is not None:
            kernels[field] = getattr(spec, field)
    return hooks.bind(**kernels) if kernels else None


def hooks_for(mechanism, decide=None):
    """The :class:`~bandsim.kernels.hooks.Hooks` an engine gets for ``mechanism``.

    Parameters
    ----------
    mechanism : str
        A registered mechanism's name.
    decide : numba dispatcher, optional
        A decision rule (batched decision-rule engine).
    """
    h = _hooks(mechanism) or hooks.unbound()
    if decide is not None:
        h = h._replace(decide=hooks.as_hook("decide", decide))
    return h


def clear():
    """Forget every bound hook tuple (after a plug-in mechanism is replaced or removed)."""
    _hooks.cache_clear()


def _with_hooks(kernel, mechanism, none=False):
    """``kernel`` with ``mechanism``'s hooks appended; with ``none``, a mechanism without
    kernels passes ``None`` (a kernel that prunes its plug-in branch on ``hooks is None``
    then unboxes no first-class functions per call), else the unbound hooks."""
    h = _hooks(mechanism)
    if h is None and not none:
        h = hooks.unbound()

    def call(*args):
        return kernel(*args, h)

    call.__name__ = kernel.__name__
    call.__doc__ = kernel.__doc__
    return call


registry.on_change(clear)


def secagg_kernel(mechanism, name):
    """The :mod:`bandsim.kernels.secagg` kernel ``name`` with ``mechanism``'s hooks appended."""
    return _with_hooks(getattr(secagg, name), mechanism)


def protocol_kernel(mechanism, name):
    """The :mod:`bandsim.kernels.protocols` kernel ``name`` with ``mechanism``'s hooks appended."""
    return _with_hooks(getattr(protocols, name), mechanism)


def elimination_engine(mechanism):
    """The elimination engine (:func:`bandsim.kernels.elimination.run_shard`) for ``mechanism``:
    ``engine(rng, shard, tables, rec=None)`` (``rec``: a :class:`bandsim.kernels.record.Recorder`
    in the whole-run privacy audit)."""
    h = _hooks(mechanism)  # None for a built-in: the engine prunes its plug-in branch

    def engine(rng, shard, tables, rec=None):
        return elimination.run_shard(rng, shard, tables, h, rec)

    return engine


__all__ = ["clear", "elimination_engine", "hooks_for", "protocol_kernel", "secagg_kernel"]
