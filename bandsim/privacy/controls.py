"""Negative controls: deliberately broken twins of a batch, to show the audits bite.

An audit that never fails proves nothing. These helpers build the bugs an
implementation can have, so that the exact audit (:mod:`bandsim.privacy.audit`)
and the sampled audit (:mod:`bandsim.privacy.sampled`) can be seen to FAIL:

- :func:`under_noised` — the same batch with its noise scale (standard
  deviation) a fraction ``f`` too small, in the parameters the kernels read;
- :func:`inverted_polya_parameter` — the per-user Pólya sampler handed
  1 − β instead of β (what the inverted Gamma scale (1 − β)/β computes);
- :func:`inverted_polya_mechanism` — the same bug in the *kernel code*: a copy
  of a Pólya mechanism whose per-user noise kernel is recompiled
  (:func:`bandsim.kernels._jit.rebind`) around a Pólya sampler with the
  inverted scale, the source left untouched. Only the sampled audit can see
  it: the exact audit certifies the law of the parameters, which are right.

``benchmarks/audit_controls.py`` prints the table of verdicts.
"""
import dataclasses
import math

from ..errors import ConfigError
from ..guarantees import Guarantee
from ..kernels import secagg as ksecagg
from ..kernels._jit import rebind
from ..registry import get_mechanism, register


def under_noised(b, f):
    """A copy of batch ``b`` whose noise standard deviation is (1 − f) times its own.

    Parameters
    ----------
    b : batch object
        A derived batch of a built-in mechanism (or of a plug-in that declares
        ``noise_scale_fpar`` in its batch's ``extra``: the index of the fpar
        entry that is a variance).
    f : float
        Fraction of under-noise, 0 ≤ f < 1 (0.1 = 10 % less noise).

    Raises
    ------
    ConfigError
        For a mechanism whose noise parameters are unknown here.
    """
    if not 0 <= f < 1:
        raise ConfigError("f", f, "must lie in [0, 1)")
    spec = get_mechanism(b.name)
    k = 1.0 - f
    fpar = tuple(b.fpar)
    if spec.kind is Guarantee.LAPLACE:  # Lap(b) on the sum: fpar = (b,)
        return dataclasses.replace(b, fpar=(fpar[0] * k,) + fpar[1:])
    if spec.family == "shuffle":  # Var ∝ τ: fpar = (τ,), and the mechanism object
        import copy

        mech = copy.copy(b.extra["mech"])
        mech.tau *= k * k
        return dataclasses.replace(b, fpar=(mech.tau,) + fpar[1:], extra=dict(b.extra, mech=mech))
    if spec.noise_law is not None and len(fpar) >= 2 and spec.kind is Guarantee.PURE:
        # discrete Laplace family: fpar = (q, β, …), scale g/ε = −1/log β
        log_beta = math.log1p(-fpar[0]) / k
        return dataclasses.replace(b, fpar=(-math.expm1(log_beta), math.exp(log_beta))
                                   + fpar[2:])
    idx = b.extra.get("noise_scale_fpar") if hasattr(b, "extra") else None
    if spec.kind in (Guarantee.RDP, Guarantee.ZCDP) and idx is None:
        idx = 0  # Skellam μ (variance 2μ), discrete Gaussian σ²: a variance
    if idx is None:
        raise ConfigError("mechanism", b.name, "has no known noise scale to reduce")
    fpar = list(fpar)
    fpar[idx] *= k * k
    return dataclasses.replace(b, fpar=tuple(fpar))


def inverted_polya_parameter(b):
    """Batch ``b`` (a Pólya mechanism: fpar = (q, β, …)) whose per-user β is 1 − β."""
    fpar = tuple(b.fpar)
    return dataclasses.replace(b, fpar=(fpar[0], 1.0 - fpar[1]) + fpar[2:])


def _polya_inverted_kernel():
    import numba

    @numba.njit(nogil=True, error_model="numpy")  # not cached: a throwaway control
    def polya(rng, r, beta):
        """Pólya(r, β) with the Gamma scale inverted: (1 − β)/β instead of β/(1 − β)."""
        return rng.poisson(rng.gamma(r, (1.0 - beta) / beta))

    return polya


_INVERTED = {}


def inverted_polya_mechanism(name="dist-dp"):
    """Register (once) and return the name of ``name`` with the inverted Pólya kernel.

    The mechanism is a copy of ``name`` (same derivation, laws, claims) whose
    per-user noise kernel :func:`bandsim.kernels.secagg.user_noise` is rebound
    to a Pólya sampler drawing Poisson(Gamma(r, (1 − β)/β)). Derive its
    batches with :meth:`bandsim.Mechanism.derive` as usual.
    """
    bug = f"{name}-inverted-polya"
    if bug not in _INVERTED:
        spec = get_mechanism(name)
        user_noise = rebind(ksecagg.user_noise, {"polya": _polya_inverted_kernel()})

        def batch(n, **params):
            return dataclasses.replace(spec.batch(n, **params), name=bug)

        register(dataclasses.replace(
            spec, name=bug, batch=batch, summary=f"{name} with an inverted Pólya kernel "
            "(a negative control)", kernels={"user_noise": user_noise,
                                            "total_noise": ksecagg.total_noise}),
            replace=True)
        _INVERTED[bug] = True
    return bug


__all__ = ["inverted_polya_mechanism", "inverted_polya_parameter", "under_noised"]
