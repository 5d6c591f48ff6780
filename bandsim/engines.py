"""Which compiled kernel serves a mechanism: the cached built-in kernels, or the
same kernels rebound to a plug-in mechanism's own samplers.

A plug-in mechanism declares ``kernels`` (numba functions) and a ``family``:

``secagg``
    ``total_noise(rng, mech, n, fpar)`` and ``user_noise(rng, mech, n, fpar)``
    (int64): the closed-form total noise of a batch and one user's noise. The
    protocol P = (R, S, A) of Chowdhury & Zhou (encoding at precision g,
    reduction mod m, secure aggregation, the analyzer's τ) is bandsim's own:
    batched and per-user paths, hence the per-user reference, come for free.
``sum``
    ``sum_noise(rng, n, fpar)`` (float64): noise added to the exact batch sum.

Every engine and SecAgg kernel is rebound once per process (see
:func:`bandsim.kernels._jit.rebind`); built-in mechanisms use the cached
kernels unchanged.
"""
from functools import lru_cache

from . import registry
from .errors import ConfigError


def _replacements(spec):
    from .kernels import protocols, secagg
    from .kernels._jit import rebind

    if spec.family == "secagg":
        need = ("total_noise", "user_noise")
    elif spec.family == "sum":
        need = ("sum_noise",)
    else:
        raise ConfigError("family", spec.family,
                          f"plug-in mechanism {spec.name} must be of family 'secagg' or 'sum'")
    missing = [k for k in need if k not in spec.kernels]
    if missing:
        raise ConfigError("kernels", sorted(spec.kernels),
                          f"plug-in mechanism {spec.name} must give {', '.join(need)}")
    kernels = {k: spec.kernels[k] for k in need}
    if spec.family == "secagg":
        estimate = rebind(secagg.batched_estimate, kernels)
    else:
        estimate = rebind(protocols.noisy_sum, kernels)
    return {**kernels, "batch_estimate": estimate}


@lru_cache(maxsize=None)
def _bound(mechanism, module, name):
    import importlib

    from .kernels._jit import rebind

    kernel = getattr(importlib.import_module(f"bandsim.kernels.{module}"), name)
    spec = registry.get_mechanism(mechanism)
    if not spec.kernels:
        return kernel
    return rebind(kernel, _replacements(spec))


def clear():
    """Forget every rebound kernel (after a plug-in mechanism is replaced or removed)."""
    _bound.cache_clear()


registry.on_change(clear)


def secagg_kernel(mechanism, name):
    """The :mod:`bandsim.kernels.secagg` kernel ``name`` for ``mechanism``."""
    return _bound(mechanism, "secagg", name)


def protocol_kernel(mechanism, name):
    """The :mod:`bandsim.kernels.protocols` kernel ``name`` for ``mechanism``."""
    return _bound(mechanism, "protocols", name)


def elimination_engine(mechanism):
    """The elimination engine (:func:`bandsim.kernels.elimination.run_shard`) for ``mechanism``."""
    return _bound(mechanism, "elimination", "run_shard")


__all__ = ["clear", "elimination_engine", "protocol_kernel", "secagg_kernel"]
