"""The data-dependent release family: the batch object a release mechanism derives.

A release mechanism (:class:`bandsim.mechanisms.families.DataDependent`:
``family="release"``, ``code=codes.RELEASE``) declares a Numba hook
``release=f`` with ``f(rng, n, k, fpar) -> float64`` (the
analyzer's estimate of the batch sum from the true count k of ones among n
binary rewards) and ``release_law(n, k, fpar) -> (values, probs)``, its exact
output law. Its ``batch(n, **params)`` returns a :class:`ReleaseBatch`: the
parameters the kernel reads (``fpar``) and the claim, plus the tail constant
σ the elimination widths use (Chowdhury & Zhou (ICLR 2023), Assumption 1:
|estimate − k| ≤ σ sqrt(log(2/p)) w.p. ≥ 1 − 2p). Audits:
:func:`bandsim.privacy.release.audit_release` (exact, from the law) and
``bandsim audit --sampled`` (the kernel's own draws against the law).
"""
from dataclasses import dataclass, field

from ..kernels import codes


@dataclass(frozen=True)
class ReleaseBatch:
    """One batch of a release mechanism.

    Attributes
    ----------
    name : str
        The mechanism's registered name.
    n : int
        Users in the batch.
    fpar : tuple of float
        What the ``release`` kernel and ``release_law`` read (≤ 4 values).
    privacy : dict
        The claim of one batch: ``guarantee`` (words) and ``epsilon``.
    sigma : float
        Sub-Gaussian tail constant of the estimate's error (reward units of
        the sum), ≥ 0.
    h : float
        Sub-exponential tail constant (0 for bounded noise).
    theorem : str
        Where the claim is proved.
    """

    name: str
    n: int
    fpar: tuple
    privacy: dict
    sigma: float = 0.0
    h: float = 0.0
    theorem: str = ""
    ipar: tuple = ()
    code: int = codes.RELEASE
    bits: int = 1
    extra: dict = field(default_factory=dict)

    def info(self) -> dict:
        """Per-batch numbers for reports."""
        return dict(n=self.n, sigma=self.sigma, h=self.h, bits=self.bits)


__all__ = ["ReleaseBatch"]
