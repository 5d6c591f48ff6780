"""The whole-run privacy audit: record every release of a run, replay it on neighbours.

:func:`audit` (:mod:`bandsim.wholerun.checks`) runs an algorithm's real
engine in its recording specialisation (:mod:`kernels.record`, driven by
:mod:`bandsim.wholerun.driver`) and checks decisions, sensitivities, scales
and the composition of what one user's reward enters against the
algorithm's declared participation.
"""
from . import cache
from .checks import WholeRunReport, audit

__all__ = ["WholeRunReport", "audit", "cache"]
