"""Numba kernels of bandsim: samplers, protocols, engines, regret bookkeeping.

This package never imports :mod:`bandsim`. Only C-contiguous numpy arrays,
scalars and ``numpy.random.Generator`` objects cross its boundary. Importing
it compiles nothing: every kernel is compiled lazily (and cached on disk) at
its first call.
"""
