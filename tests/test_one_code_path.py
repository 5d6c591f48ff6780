"""One code path: production and the recording mode differ only inside kernels/record.py.

Every engine takes a last argument ``rec`` (``None`` in a simulation, a
recorder in the whole-run privacy audit). The audit certifies the code it
runs, so an engine that branched on ``rec`` would run, in production, code
the audit never saw: a release whose noise is dropped in the production
branch only would pass it by construction. The branch lives in the record
primitives (:mod:`kernels.record`), each resolved by Numba while compiling;
these tests parse ``kernels/`` and fail on any other read of ``rec`` that can
steer control flow: a comparison (``rec is None``, ``rec is not None``,
``rec == …``), a truth test (``if rec``, ``rec and …``, ``x if rec else y``),
a field of the recorder (``rec.mode``), or a type test (``isinstance(rec, …)``).
Passing ``rec`` on to a call is the one allowed use.
"""
import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
#: The one module where production and recording may differ.
PRIMITIVES = "record.py"
NAME = "rec"
#: Calls that read the type or identity of their argument.
TYPE_CALLS = {"isinstance", "type", "typeof", "id", "literally", "bool"}


def _call_name(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _free_reads(expr):
    """The reads of ``rec`` in ``expr`` that are not an argument handed to a call
    (a type test such as ``isinstance(rec, …)`` counts as a read)."""
    out = []

    def visit(node):
        if isinstance(node, ast.Name) and node.id == NAME:
            out.append(node)
            return
        if isinstance(node, ast.Call) and _call_name(node) not in TYPE_CALLS:
            visit(node.func)  # ``rec.x(…)`` reads rec; its arguments are handed on
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(expr)
    return out


def branches_on_rec(source, filename="<kernel>"):
    """(line, text) of every place ``source`` branches on, compares or inspects ``rec``."""
    tree = ast.parse(source, filename)
    lines = source.splitlines()
    hits = set()
    for node in ast.walk(tree):
        exprs = []
        if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            exprs.append(node.test)
        elif isinstance(node, ast.comprehension):
            exprs += node.ifs
        elif isinstance(node, (ast.Compare, ast.BoolOp)):
            exprs.append(node)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            exprs.append(node.operand)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == NAME:
            exprs.append(node.value)  # a field of the recorder, read by the engine
        elif isinstance(node, ast.Call) and _call_name(node) in TYPE_CALLS:
            exprs += node.args
        elif isinstance(node, ast.Match):
            exprs.append(node.subject)
        for e in exprs:
            for read in _free_reads(e):
                hits.add((read.lineno, lines[read.lineno - 1].strip()))
    return sorted(hits)


def test_no_kernel_branches_on_rec_outside_the_record_primitives():
    found = []
    for path in sorted(KERNELS.glob("*.py")):
        if path.name == PRIMITIVES:
            continue
        found += [f"kernels/{path.name}:{ln}: {text}"
                  for ln, text in branches_on_rec(path.read_text(), str(path))]
    assert not found, ("production and recording must share one code path; branch on rec "
                       "only inside kernels/record.py:\n" + "\n".join(found))


def test_the_record_primitives_are_where_the_branches_are():
    # the check sees the branches that are allowed: they exist, so it can find them
    assert len(branches_on_rec((KERNELS / PRIMITIVES).read_text())) >= 5


@pytest.mark.parametrize("snippet", [
    "def f(rng, rec):\n    if rec is None:\n        return 1\n    return 2\n",
    "def f(rng, rec):\n    if rec is not None:\n        g(rec)\n",
    "def f(rng, rec):\n    x = 1.0 if rec is None else h(rec)\n",
    "def f(rng, rec):\n    if rec:\n        pass\n",
    "def f(rng, rec):\n    if not rec:\n        pass\n",
    "def f(rng, rec, a):\n    while a and rec is None:\n        a -= 1\n",
    "def f(rng, rec):\n    if rec.mode == 1:\n        pass\n",
    "def f(rng, rec):\n    y = rec.counts[0]\n",
    "def f(rng, rec):\n    if isinstance(rec, int):\n        pass\n",
    "def f(rng, rec):\n    ok = rec == None\n",
])
def test_the_check_catches_a_branch_on_rec(snippet):
    assert branches_on_rec(snippet)


@pytest.mark.parametrize("snippet", [
    "def f(rng, rec):\n    return release(rec, 0, 1.0)\n",
    "def f(rng, rec, q):\n    above = release(rec, 0, q - 1.0) > 0.0\n",
    "def f(rng, rec, p):\n    if p and draw(rng, rec, 1) < 0.5:\n        pass\n",
    "def f(rng, rec):\n    return g(rec) if h(rec) else 0\n",
])
def test_passing_rec_on_to_a_primitive_is_allowed(snippet):
    assert branches_on_rec(snippet) == []
