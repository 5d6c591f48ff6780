"""The one place where JIT flags are set.

``cache=True`` keeps compiled machine code on disk between processes,
``nogil=True`` lets shards of runs execute on several Python threads at once,
and ``fastmath`` stays off: the noise samplers must be exact.
"""
import numba

jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")

#: The same flags, for small helpers called in per-pull loops: inlined at
#: Numba-IR level, so a call passing a Generator costs no reference counting.
jit_inline = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy",
                        inline="always")
