"""Fixed-confidence best-arm identification (ε-global DP): results, bounds, engines.

:func:`simulate_bai` runs a declared algorithm (:mod:`~bandsim.bai.declarations`:
``dp-se-bai``, ``se-bai``; the top-two ``adap-tt``, ``adap-tt-star``, ``tt-ucb`` of
:mod:`~bandsim.bai.toptwo`) and returns a :class:`~bandsim.bai.result.BAIResult`
(stopping times, recommendations, censoring, summary with the lower bound of
:mod:`~bandsim.bai.bounds`). See docs/bai.md.
"""
from .bounds import lower_bound, t_star_kl, t_star_tv
from .declarations import ALGORITHMS
from .result import BAIResult
from .runner import simulate_bai

__all__ = ["ALGORITHMS", "BAIResult", "lower_bound", "simulate_bai", "t_star_kl", "t_star_tv"]
