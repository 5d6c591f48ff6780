"""Privacy you can check: exact per-batch audits and accounting across batches.

- :mod:`bandsim.privacy.pmf` — exact pmfs on the integers in log space
  (discrete Laplace, Skellam, discrete Gaussian and sums, Binomial), folding
  mod m, convolution, and the divergences: max log-ratio (pure ε), Rényi
  D_α, hockey-stick δ(ε).
- :mod:`bandsim.privacy.audit` — :func:`audit`: claimed versus exact privacy
  of one batch, from the simulator's own parameter derivations.
- :mod:`bandsim.privacy.accountant` — users returning in up to B batches:
  composition with dp-accounting and the inverse (per-batch ε for a target
  total (ε, δ)).

See docs/privacy.md.
"""
import sys as _sys

from .audit import AUDITABLE, AuditReport, audit, audit_mechanism

#: The audit module itself (the name ``audit`` is the function).
audit_impl = _sys.modules[__name__ + ".audit"]

__all__ = ["AUDITABLE", "AuditReport", "audit", "audit_mechanism"]
