"""The privacy guarantee a mechanism declares, and what audits and accounting do with it.

Each :class:`Guarantee` member carries its own strategy, so the privacy
layer asks the guarantee (``g.audit``, ``g.composition``, ``g.windowed``)
instead of comparing strings.

References
----------
Dwork & Roth, "The Algorithmic Foundations of Differential Privacy" (2014),
Definitions 2.4 and Theorem 3.16 (pure and approximate DP, composition);
Mironov, "Rényi Differential Privacy", CSF 2017 (RDP); Bun & Steinke,
"Concentrated Differential Privacy", TCC 2016 (zCDP).
"""
from enum import Enum


class Guarantee(str, Enum):
    """A mechanism's guarantee (its members compare equal to their names: ``"pure"``).

    Attributes of each member
    -------------------------
    private : bool
        Any privacy at all.
    audit : str
        The exact audit's statistic: ``max-log-ratio`` (ε of a discrete view),
        ``laplace-ratio`` (ε of a continuous Laplace view), ``hockey-stick``
        (δ(ε) of an (ε, δ) view), ``renyi`` (ε(α) for α = 2, 3, …),
        ``renyi/alpha`` (ρ = max_α D_α/α), or ``none``.
    composition : str
        How B batches compose in the accountant: ``pld`` (privacy-loss
        distributions), ``rdp`` (Rényi curves), ``zcdp`` (ρ adds up),
        ``approx`` (advanced composition), ``none``.
    windowed : bool
        Its audit of a large modulus keeps the tails (a window of the
        integers wide enough for a divergence, not only the shifts).
    expensive : bool
        Its exact audit evaluates divergences at many orders (the cheap audit
        budget of a result is smaller).
    """

    NONE = "none"
    PURE = "pure"
    LAPLACE = "laplace"
    RDP = "rdp"
    ZCDP = "zcdp"
    APPROX = "approx"

    def __str__(self):
        return self.value

    @property
    def private(self):
        return self is not Guarantee.NONE

    @property
    def audit(self):
        return _AUDIT[self]

    @property
    def composition(self):
        return _COMPOSITION[self]

    @property
    def windowed(self):
        return self in (Guarantee.RDP, Guarantee.ZCDP, Guarantee.APPROX)

    @property
    def expensive(self):
        return self in (Guarantee.RDP, Guarantee.ZCDP)

    @property
    def epsilon_dp(self):
        """Pure ε-DP (discrete or continuous view): ε composes by addition."""
        return self in (Guarantee.PURE, Guarantee.LAPLACE)


_AUDIT = {Guarantee.NONE: "none", Guarantee.PURE: "max-log-ratio",
          Guarantee.LAPLACE: "laplace-ratio", Guarantee.RDP: "renyi",
          Guarantee.ZCDP: "renyi/alpha", Guarantee.APPROX: "hockey-stick"}
_COMPOSITION = {Guarantee.NONE: "none", Guarantee.PURE: "pld", Guarantee.LAPLACE: "pld",
                Guarantee.RDP: "rdp", Guarantee.ZCDP: "zcdp", Guarantee.APPROX: "approx"}

__all__ = ["Guarantee"]
