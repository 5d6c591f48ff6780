"""The one place where JIT flags are set.

``cache=True`` keeps compiled machine code on disk between processes,
``nogil=True`` lets shards of runs execute on several Python threads at once,
and ``fastmath`` stays off: the noise samplers must be exact.

Numba invalidates a cached kernel only when the file that defines it
changes, not when a kernel it calls (in another module) does. So that an
edited sampler can never run through a stale caller, the on-disk cache of
this package is dropped whenever any of its sources changes (a hash of all
``kernels/*.py`` is kept next to the cache).
"""
import hashlib
from pathlib import Path

import numba


def _drop_stale_cache():
    here = Path(__file__).parent
    cache = here / "__pycache__"
    digest = hashlib.sha256()
    for src in sorted(here.glob("*.py")):
        digest.update(src.name.encode() + src.read_bytes())
    stamp = cache / "kernels-source.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # read-only install: numba then uses its own user cache
        pass


_drop_stale_cache()

jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")

#: The same flags, for small helpers called in per-pull loops: inlined at
#: Numba-IR level, so a call passing a Generator costs no reference counting.
jit_inline = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy",
                        inline="always")
