"""The whole-run privacy audit: record every release of a run, replay it on a neighbour.

See :mod:`bandsim.wholerun.driver` (recorded runs) and :mod:`kernels.record`
(the engines' recording mode).
"""
