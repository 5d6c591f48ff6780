"""A few machine-made mutants of the kernels, each compiled in its own tree and audited.

The full table is ``python -m benchmarks.mutants`` (docs/privacy.md, "Mutation
testing of the audits"). Here: five mutants the whole-run audit catches must stay
caught, with one FAIL line, four of them of shapes it was not first built
against (noise 20 % low, one draw shared by a stage's arms, the SVT's query noise
dropped, the SVT's threshold noise logged but not compared with). A mutant
recompiles only the kernels that can reach the mutated module; the others come
from the repository's own Numba cache
(:mod:`benchmarks.mutants_cache`).
"""
import sys
from pathlib import Path

import pytest

from benchmarks.mutants_gen import ROOT, apply, generate
from benchmarks.mutants_run import check


def _pick(file, functions, site, cls, line_starts=None):
    """The first generated mutant of ``cls`` at ``site`` in ``file`` (functions tried in
    order); ``line_starts``: the site's source line must start with it."""
    ms = generate(classes=[cls], files=[file])
    lines = (ROOT / file).read_text().splitlines()
    for fn in functions:
        for m in ms:
            if m.function == fn and m.site == site and (
                    line_starts is None or lines[m.line - 1].strip().startswith(line_starts)):
                return m
    raise LookupError(f"no {cls} mutant at {site} in {file} ({functions}): the site moved")


#: (test id, mutant selector, algorithm, check that must FAIL it)
CAUGHT = [
    ("dp-ucb tree node noise dropped",
     ("kernels/sequential.py", ["tree_release", "tree_insert"], "draw:laplace", "drop"),
     "dp-ucb", "whole-run"),
    # bugs of shapes the whole-run audit was not built against: its many-run law (g) and
    # independence (h) checks
    ("dp-se Laplace scale x0.8",
     ("kernels/protocols.py", ["batch_estimate"], "draw:rng.laplace", "scale0.8"),
     "dp-se", "whole-run"),
    ("dp-se one Laplace draw per stage shared by every arm",
     ("kernels/protocols.py", ["batch_estimate"], "draw:rng.laplace", "reuse"),
     "dp-se", "whole-run"),
    ("dp-se2 SVT query noise dropped",
     ("kernels/svt.py", ["run_shard"], "draw:laplace_draw", "drop", "A = "),
     "dp-se2", "whole-run"),
    # an engine that logs its drawn SVT threshold noise and compares with B = 0: every
    # release has its law and the replays decide identically; check (x) shifts the
    # threshold releases and sees no query margin move
    ("dp-se2 SVT threshold noise dropped in control flow",
     ("kernels/svt.py", ["run_shard"], "release:LAW_SVT_THRESHOLD", "ctrl-true"),
     "dp-se2", "whole-run"),
]
def test_generator_finds_every_class_and_applies():
    ms = generate()
    kernel_classes = {m.cls for m in ms if m.file.startswith("kernels/")}
    assert {"scale0", "scale0.5", "scale0.8", "drop", "reuse", "true", "recscale",
            "ctrl-true"} <= kernel_classes
    assert any(m.cls == "count-1" for m in ms)
    for m in ms:  # every mutant is valid Python and changes its file
        src = apply(m)
        compile(src, m.file, "exec")
        assert src != (ROOT / m.file).read_text()


def test_mutant_tree_imports_the_mutant(tmp_path):
    from benchmarks.mutants_run import env_for, materialize, run

    m = _pick(*CAUGHT[0][1])
    tree = materialize(m, tmp_path / "tree")
    mod = Path(m.file).stem
    code, out, err, _ = run([sys.executable, "-c", f"import bandsim.kernels.{mod} as p; "
                             "print(p.__file__); print('_np_mut' in open(p.__file__).read())"],
                            tree, env_for(tree, tmp_path / "numba"), 120)
    assert code == 0, err
    path, mutated = out.split()
    assert Path(path).resolve().is_relative_to(tree.resolve()) and mutated == "True"


def test_stale_kernels_are_the_callers_of_the_mutated_module():
    from benchmarks.mutants_cache import call_graph, stale

    g = call_graph()
    got = stale("kernels/secagg.py", g)
    assert ("protocols", "batch_estimate") in got  # calls secagg.batched_estimate
    assert ("elimination", "run_shard") in got  # reaches it through protocols
    assert not any(mod in ("sequential", "svt", "episodic", "samplers") for mod, _ in got)
    assert stale("bandsim/privacy/accountant.py", g) == set()


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("mutants")


@pytest.mark.parametrize("selector,algo,which", [c[1:] for c in CAUGHT],
                         ids=[c[0] for c in CAUGHT])
def test_audit_catches(selector, algo, which, work):
    m = _pick(*selector)
    r = check(m, [algo], None, timeout=600, checks=(which,), work=work)
    got = r["results"][algo][which]
    assert got == "FAIL", f"{r['id']} {r['file']}:{r['line']} {r['detail']}: {which} says {got}"
    assert "FAIL" in r["why"] and "(" in r["why"], r["why"]  # one line naming the check
