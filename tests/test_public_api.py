"""The public API is a promise: its signatures are compared with a checked-in snapshot.

bandsim follows semantic versioning with one minor release of deprecation
warnings before anything public changes (docs/backend.md, "Stability"). This
test compares every public name of ``bandsim``, ``bandsim.plugin``,
``bandsim.backend`` and ``bandsim.env`` — its kind and its signature (a Numba
kernel's is its Python function's) — with ``tests/data/public_api.json``, so a
change to the public API fails here until the snapshot is updated with it: a
decision, never an accident. Regenerate with
``BANDSIM_UPDATE_API=1 pytest tests/test_public_api.py``.
"""
import importlib
import inspect
import json
import os
import re
import types
from pathlib import Path

import pytest

SNAPSHOT = Path(__file__).parent / "data" / "public_api.json"
MODULES = ("bandsim", "bandsim.plugin", "bandsim.backend", "bandsim.env")


def describe(obj):
    """(kind, signature) of one public object, as text (memory addresses dropped)."""
    return re.sub(r" at 0x[0-9a-f]+", "", _describe(obj))


def _describe(obj):
    if isinstance(obj, types.ModuleType):
        return "module " + obj.__name__
    py = getattr(obj, "py_func", None)
    if py is None and type(obj).__module__.startswith("numba"):  # a primitive typed by rec's type
        py = getattr(obj, "__wrapped__", None)                   # (kernels.record._by_rec)
    if py is not None:
        return "njit " + str(inspect.signature(py))
    if isinstance(obj, type):
        fields = getattr(obj, "_fields", None)
        if fields is not None:  # a NamedTuple: its fields are its signature
            return "namedtuple (" + ", ".join(fields) + ")"
        try:
            return "class " + str(inspect.signature(obj))
        except (TypeError, ValueError):
            return "class"
    if callable(obj):
        return "function " + str(inspect.signature(obj))
    if isinstance(obj, (bool, int, float, str)):
        return f"constant {type(obj).__name__} = {obj!r}"
    return "object " + type(obj).__name__


def public_api():
    out = {}
    for name in MODULES:
        mod = importlib.import_module(name)
        out[name] = {n: describe(getattr(mod, n)) for n in sorted(mod.__all__)}
    return out


def test_public_signatures_match_the_snapshot():
    if os.environ.get("BANDSIM_UPDATE_API"):
        SNAPSHOT.write_text(json.dumps(public_api(), indent=1, ensure_ascii=False,
                                       sort_keys=True) + "\n")
    compare()


def compare():
    now = public_api()
    saved = json.loads(SNAPSHOT.read_text())
    diff = [f"{m}.{n}: {saved.get(m, {}).get(n)!r} -> {now[m].get(n)!r}"
            for m in sorted(set(now) | set(saved))
            for n in sorted(set(now.get(m, {})) | set(saved.get(m, {})))
            if saved.get(m, {}).get(n) != now.get(m, {}).get(n)]
    assert not diff, ("the public API changed (semantic versioning: deprecate for one minor "
                      "release first; then update tests/data/public_api.json): " + "; ".join(diff))


def test_a_changed_signature_is_caught(monkeypatch):
    import bandsim.backend as B

    before = describe(B.batch_sum)

    def batch_sum(rng, code, par, n, extra=0):  # a new parameter: a public change
        return 0.0

    monkeypatch.setattr(B, "batch_sum", batch_sum)
    assert describe(B.batch_sum) != before
    with pytest.raises(AssertionError, match="bandsim.backend.batch_sum"):
        compare()


def test_every_backend_function_runs_in_a_user_njit_function():
    import numba
    import numpy as np

    from bandsim import backend as B

    @numba.njit
    def user(rng):
        s = B.batch_sum(rng, B.BERNOULLI, np.array([0.5]), 100)
        s += B.discrete_laplace_sum(rng, 10, 0.5) + B.skellam(rng, 2.0)
        s += B.polya(rng, 1.0, 0.5) + B.discrete_gaussian(rng, 4.0)
        return B.release(None, 0, 100, 0, 100, B.LAW_EXACT, 0, s, 0.0, s)

    assert np.isfinite(user(np.random.default_rng(0)))
