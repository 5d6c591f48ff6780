"""bandsim.backend, the public kernel API: its surface, its types, its example.

Its signatures are compared with the checked-in snapshot by
tests/test_public_api.py, with those of bandsim, bandsim.plugin and bandsim.env
(docs/backend.md, "Stability").
"""
import ast
import inspect
import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from bandsim import backend

ROOT = Path(__file__).resolve().parents[1]
STUB = ROOT / "bandsim" / "backend.pyi"
DOC = ROOT / "docs" / "backend.md"


def test_all_is_exactly_the_documented_functions_classes_and_constants():
    assert backend.__all__ == [*backend.FUNCTIONS, *backend.CLASSES, *backend.CONSTANTS]
    assert len(set(backend.__all__)) == len(backend.__all__)
    assert all(hasattr(backend, n) for n in backend.__all__)
    # every export is named in the module docstring (its dtype, units, errors, source)
    missing = [n for n in backend.__all__ if not re.search(rf"\b{n}\b", backend.__doc__)]
    assert not missing, missing


def _stub():
    tree = ast.parse(STUB.read_text())
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    names = {n.target.id for n in tree.body
             if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    return funcs, classes, names


def test_the_type_stub_types_every_export_with_the_runtime_parameters():
    funcs, classes, names = _stub()
    assert set(funcs) == set(backend.FUNCTIONS)
    assert set(classes) == set(backend.CLASSES)
    assert set(backend.CONSTANTS) <= names
    for name, node in funcs.items():
        obj = getattr(backend, name)
        sig = inspect.signature(getattr(obj, "py_func", obj))
        args = node.args.args
        assert [a.arg for a in args] == list(sig.parameters), name
        assert all(a.annotation is not None for a in args) and node.returns is not None, name
        defaults = [ast.literal_eval(d) for d in node.args.defaults]
        assert defaults == [p.default for p in sig.parameters.values()
                            if p.default is not inspect.Parameter.empty], name
    for name, node in classes.items():
        fields = [n.target.id for n in node.body if isinstance(n, ast.AnnAssign)]
        assert fields == list(getattr(backend, name)._fields), name


def test_the_package_is_marked_typed():
    import tomllib

    assert (ROOT / "bandsim" / "py.typed").exists()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {"py.typed", "*.pyi"} <= set(data["package-data"]["bandsim"])


def test_a_type_checker_reads_the_types_and_catches_a_wrong_use(tmp_path):
    pytest.importorskip("mypy")
    import subprocess

    user = tmp_path / "user.py"
    user.write_text(
        "import numpy as np\nfrom bandsim import backend as B\n"
        "rng = np.random.default_rng(0)\n"
        "x: float = B.batch_sum(rng, B.BERNOULLI, np.array([0.5]), 10)\n"
        "rec = B.recorder(B.RECORD, 10)\n"
        "v: float = B.release(rec, 0, 1, 0, 1, B.LAW_EXACT, 0, x, 0.0, x)\n"
        "k: str = B.polya(rng, 1.0, 0.5)\n")                 # wrong: polya returns int
    out = subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent",
                          "--cache-dir", str(tmp_path / "cache"), str(user), str(STUB)],
                         capture_output=True, text=True, cwd=ROOT).stdout
    assert out.count("error:") == 1 and "user.py:7:" in out, out


def _every_family(rng):
    """One call of each family of exports, in a fixed order (float64 (13,))."""
    par = np.array([0.3])
    beta = math.exp(-1 / 4)                              # DIST_DP at ε = 1, g = 4
    fpar, ipar = np.array([1 - beta, beta]), np.array([4, 20, 10 * 4 + 2 * 20 + 1])
    alpha, cum = np.zeros(8), np.zeros(8)
    return np.array([
        backend.batch_sum(rng, backend.BERNOULLI, par, 100),
        backend.encoded_sum(rng, backend.BERNOULLI, par, 100, 4),
        backend.binary_batch_sum(rng, backend.BERNOULLI, par, 100),
        backend.laplace_draw(rng, 2.0),
        backend.discrete_laplace_sum(rng, 50, 0.1),
        backend.polya(rng, 0.5, 0.7) + backend.skellam(rng, 3.0),
        backend.discrete_gaussian(rng, 9.0),
        backend.secagg_batched_estimate(rng, backend.DIST_DP, backend.BERNOULLI, par, 10,
                                        fpar, ipar, None, 0, 0, 0),
        backend.secagg_per_user_estimate(rng, backend.DIST_DP, backend.BERNOULLI, par, 10,
                                         fpar, ipar),
        backend.shuffle_batched_sum(rng, 30, 100, 50.0),
        backend.tree_insert(alpha, cum, 1, 0.5, 1.0, rng),
        backend.tree_insert(alpha, cum, 2, 0.5, 1.0, rng),
        backend.stage_pulls(backend.ROUND_ROBIN, 1, 3, 5, 7),
    ])


def test_the_exports_draw_the_same_from_python_and_from_a_users_njit_code():
    import numba

    jitted = numba.njit(_every_family)
    a = _every_family(np.random.default_rng(11))
    b = jitted(np.random.default_rng(11))
    assert np.array_equal(a, b)
    assert a[-1] == 2 and 0 <= a[0] <= 100 and a[1] % 4 == 0


@pytest.fixture(scope="module")
def example():
    """The namespace of docs/backend.md after its runnable blocks (the DP-SE example
    asserts its own KS test)."""
    from tests.test_docs import blocks

    ns = {"__name__": "docs_backend"}
    for runnable, code in blocks(DOC):
        if runnable:
            exec(compile(code, str(DOC), "exec"), ns)
    return ns


def test_the_users_dp_se_matches_the_built_in_in_law(example):
    assert example["p_value"] > 1e-3
    assert example["runs"] >= 400 and np.unique(example["theirs"]).size >= 5  # not degenerate


def test_a_dp_se_with_too_narrow_a_privacy_width_is_told_apart(example):
    # negative control: the privacy term c_e of the elimination width 30 % too small
    ns = example
    eps, T, beta, k_max = ns["eps"], ns["T"], 1 / ns["T"], ns["means"].size
    narrow = ns["width"].copy()
    for e in range(1, narrow.shape[0] + 1):
        for k in range(2, k_max + 1):
            l1, l2 = math.log(8 * k * e**2 / beta), math.log(4 * k * e**2 / beta)
            r = max(32 * l1 / 4.0**-e, 8 * l2 / (eps * 2.0**-e)) + 1
            narrow[e - 1, k] -= 0.3 * 2 * l2 / (r * eps)
    bad = ns["dp_se"](np.random.default_rng(7), ns["means"], T, eps, ns["rounds"], narrow,
                      ns["runs"])
    assert ns["stats"].ks_2samp(bad, ns["theirs"]).pvalue < 1e-10


def test_the_example_runs_inside_jitted_code(example):
    assert example["private_sum"].signatures  # compiled by Numba, not run as Python

