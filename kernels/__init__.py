"""Numba kernels of bandsim: samplers, protocols, engines, regret bookkeeping.

This package never imports the Python layer of bandsim (it is installed as
``bandsim.kernels`` and uses relative imports only). Only C-contiguous numpy
arrays, scalars, ``numpy.random.Generator`` objects and NamedTuples of those
(:mod:`.shard`) cross its boundary. Importing
it compiles nothing: every kernel is compiled lazily (and cached on disk) at
its first call.
"""
