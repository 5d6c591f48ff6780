"""The built-in algorithms, by engine family; each declared once and registered.

- :mod:`~bandsim.algorithms.elimination` — batched elimination engine:
  ``batch-se``, ``dp-se`` and Algorithm 1 of Chowdhury & Zhou over every
  SecAgg-family mechanism;
- :mod:`~bandsim.algorithms.arm_elimination` — the same engine with
  cumulative estimates: ``sdp-ae``, ``vb-sdp-ae`` (shuffle model);
- :mod:`~bandsim.algorithms.per_step` — per-step engines: ``ucb1``, ``se``,
  ``dp-ucb``;
- :mod:`~bandsim.algorithms.svt` — the SVT engine: ``dp-se2``,
  ``dp-se2-modified``.

Look algorithms up through :mod:`bandsim.registry`.
"""
from ..registry import register
from . import arm_elimination, elimination, episodic, per_step, svt
from .base import Plan

register(per_step.TREE, *per_step.ALGORITHMS[:2], elimination.ALGORITHMS[0],
         per_step.ALGORITHMS[2],
         elimination.ALGORITHMS[1], *svt.ALGORITHMS, arm_elimination.SDP_AE,
         arm_elimination.VB_SDP_AE, *elimination.ALGORITHMS[2:])
episodic.register()

__all__ = ["Plan"]
