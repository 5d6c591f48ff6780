"""Privacy you can check: exact per-batch audits and accounting across batches.

- :mod:`bandsim.privacy.pmf` — exact pmfs on the integers in log space
  (discrete Laplace, Skellam, discrete Gaussian and sums, Binomial), folding
  mod m, convolution, and the divergences: max log-ratio (pure ε), Rényi
  D_α, hockey-stick δ(ε).
- :mod:`bandsim.privacy.audit` — :func:`~bandsim.privacy.audit.audit`:
  claimed versus exact privacy of one batch, from the mechanism's own
  declaration.
- :mod:`bandsim.privacy.accountant` — users returning in up to B batches:
  composition with dp-accounting and the inverse (per-batch ε for a target
  total (ε, δ)).

See docs/privacy.md.
"""
