"""Machine-made mutants of the noise draws and releases of ``kernels/`` (an AST pass of ours).

:func:`generate` parses every module of ``kernels/`` (and, for the count
class, ``bandsim/privacy/participation.py`` and ``accountant.py``) and makes
one mutant per class at every site; :func:`apply` returns the mutated source
of the one file a mutant changes. Nothing here imports bandsim or Numba.

Sites
-----
noise draw
    a call to a noise sampler: ``laplace`` / ``laplace_draw`` / ``rng.laplace``
    (continuous Laplace), the discrete samplers of ``kernels/samplers.py``
    (``polya``, ``skellam``, ``discrete_gaussian``, ``discrete_laplace``,
    ``discrete_laplace_sum``, ``geometric_failures``; a difference of two
    draws of one sampler is one site), and the shuffle binary summation's
    noise bits ``noise_ones`` (centred on ``noise_mean``). The samplers'
    own definitions (``samplers.py``) and the recording primitives
    (``record.py``) are not sites: their call sites are.
release
    a call ``release(rec, run, t, arm, n, law, tag, true, scale, value)`` of
    :mod:`kernels.record` whose law is not ``LAW_EXACT``.
production-only branch
    the body of an ``if rec is None:`` outside ``record.py``.

Classes
-------
``scale0``, ``scale0.5``, ``scale0.8``
    the draw's noise multiplied by 0, 0.5, 0.8 (the draws still made; integer
    noise rounded with ``rint``; binary summation: its deviation from the mean, the
    count of ones rounded back to an integer).
``drop``
    the noise removed (no draw).
``reuse``
    correlated draws: inside a loop, every second release at the site takes the
    previous one's noise; outside a loop (a function called once per release
    with ``run`` and ``t0``), the Laplace noise is a function of (run, t0), so
    every release of one stage (the elimination engine passes the stage's
    start as ``t0``) shares one draw; a draw inside the released value of a
    function called once per release with ``run`` but no ``t0`` (Lazy-DP-TS's
    chunk close) is a function of (run, the release's tag), so every arm's
    r-th chunk shares one draw.
``true``
    the release's value is its true statistic (SecAgg: Σ x̂ / g).
``recscale``
    the scale recorded is twice the scale drawn.
``prod-only``
    inside an ``if rec is None:`` branch, a release's arithmetic halved (its
    noise, a ``tree_insert`` scale, or a noise variable it reads).
``ctrl-true``
    the engine reads the true statistic where it reads the release (the
    recorder still logs the noisy value): every comparison downstream reads a
    true sum.
``count-1``
    a participation count or the accountant's number of batches B, minus one.
"""
import ast
import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "kernels"
#: Python modules of the count class (repository-relative).
COUNT_FILES = ("bandsim/privacy/participation.py", "bandsim/privacy/accountant.py")
#: Mutant classes, in table order.
CLASSES = ("scale0", "scale0.5", "scale0.8", "drop", "reuse", "true", "recscale", "prod-only",
           "ctrl-true", "count-1")
SCALES = {"scale0": 0.0, "scale0.5": 0.5, "scale0.8": 0.8}
#: Float samplers: name → index of the scale argument.
FLOAT_SAMPLERS = {"laplace": 1, "laplace_draw": 1}
INT_SAMPLERS = ("polya", "skellam", "discrete_gaussian", "discrete_laplace",
                "discrete_laplace_sum", "geometric_failures")
#: Samplers drawn around a mean: name → the function giving it, of the same arguments
#: but the generator (the first).
CENTRED = {"noise_ones": "noise_mean"}
#: Modules whose definitions are the primitives (their call sites are the sites).
SKIP = ("samplers.py", "record.py", "__init__.py", "_jit.py", "codes.py")
#: Names of B and counts in the accountant and the participation list.
COUNT_NAMES = ("B", "returning")
COUNT_CALLS = ("self_compose", "compose", "advanced_composition", "_rdp_epsilon",
               "_pld_epsilon_from_views")
NP = "_np_mut"


@dataclass(frozen=True)
class Mutant:
    """One mutant: the class applied at one site of one file.

    Attributes
    ----------
    id : str
        Stable id (file, line, column, class: a hash prefix).
    file : str
        Repository-relative path of the mutated file.
    line, col : int
        Position of the site (1-based line, 0-based column).
    end_line : int
        Last line of the site.
    function : str
        The enclosing function.
    site : str
        ``draw:<sampler>``, ``release:<LAW>``, ``branch:rec is None`` or ``count:<name>``.
    cls : str
        One of :data:`CLASSES`.
    kind : str
        Node kind the transform matches (internal).
    detail : str
        What the mutation does, one line.
    """

    id: str
    file: str
    line: int
    col: int
    end_line: int
    function: str
    site: str
    cls: str
    kind: str
    detail: str

    def to_dict(self):
        """The fields as a dict."""
        return asdict(self)


def _parents(tree):
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child._parent = node
    return tree


def _callee(call):
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        return f"{f.value.id}.{f.attr}"
    return None


def _draw_kind(node):
    """(sampler, type) of a noise-draw node, or None. type: float, int, centred."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
        a, b = node.left, node.right
        if (isinstance(a, ast.Call) and isinstance(b, ast.Call) and _callee(a) == _callee(b)
                and _callee(a) in INT_SAMPLERS):
            return _callee(a), "int"
        return None
    if not isinstance(node, ast.Call):
        return None
    name = _callee(node)
    if name in FLOAT_SAMPLERS or name == "rng.laplace":
        return name, "float"
    if name in INT_SAMPLERS:
        p = getattr(node, "_parent", None)
        if isinstance(p, ast.BinOp) and isinstance(p.op, ast.Sub) and _draw_kind(p):
            return None  # half of a difference site
        return name, "int"
    if name in CENTRED:
        return name, "centred"
    return None


def _release_law(node):
    if isinstance(node, ast.Call) and _callee(node) == "release" and len(node.args) == 10:
        law = node.args[5]
        name = law.id if isinstance(law, ast.Name) else ast.unparse(law)
        return None if name == "LAW_EXACT" else name
    return None


def _release_of(node):
    """The ``release(...)`` call whose released value contains ``node``, or None."""
    p, child = getattr(node, "_parent", None), node
    while p is not None and not isinstance(p, ast.stmt):
        if _release_law(p) and child is p.args[9]:
            return p
        p, child = getattr(p, "_parent", None), p
    return None


def _is_rec_none(test):
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "rec" and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None)


def _enclosing(node, types):
    p = getattr(node, "_parent", None)
    while p is not None and not isinstance(p, types):
        p = getattr(p, "_parent", None)
    return p


def _in_loop(node):
    """True if ``node`` lies in a for/while body of its own function (not a while test)."""
    p, child = getattr(node, "_parent", None), node
    while p is not None and not isinstance(p, (ast.FunctionDef, ast.Lambda)):
        if isinstance(p, (ast.For, ast.While)) and child in p.body:
            return True
        p, child = getattr(p, "_parent", None), p
    return False


def _hoistable(node):
    """The statement to insert before, if evaluating ``node`` there keeps its conditions."""
    p, child = getattr(node, "_parent", None), node
    while p is not None and not isinstance(p, ast.stmt):
        if isinstance(p, (ast.IfExp, ast.BoolOp, ast.Lambda, ast.comprehension)):
            return None
        p, child = getattr(p, "_parent", None), p
    if p is None or isinstance(p, (ast.While, ast.For)):
        return None
    if isinstance(p, ast.If) and child is not p.test:
        return None
    return p


def _params(fn):
    return [a.arg for a in fn.args.args]


def _id(*parts):
    return hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()[:8]


def _mk(rel, node, fn, site, cls, kind, detail):
    return Mutant(f"{cls}-{_id(rel, node.lineno, node.col_offset, cls, kind)}", rel,
                  node.lineno, node.col_offset, node.end_lineno, fn.name if fn else "<module>", site, cls, kind,
                  detail)


def _kernel_mutants(rel, tree):
    out = []
    for node in ast.walk(tree):
        fn = _enclosing(node, ast.FunctionDef)
        dk = _draw_kind(node)
        if dk and fn is not None:
            sampler, typ = dk
            site = f"draw:{sampler}"
            for cls, f in SCALES.items():
                out.append(_mk(rel, node, fn, site, cls, "draw", f"{sampler} noise × {f:g}"))
            out.append(_mk(rel, node, fn, site, "drop", "draw", f"{sampler} noise removed"))
            stmt = _hoistable(node)
            if stmt is not None and _in_loop(node):
                out.append(_mk(rel, node, fn, site, "reuse", "draw-pair",
                                f"every 2nd {sampler} draw at this site reuses the previous one"))
            elif (stmt is not None and typ == "float" and "run" in _params(fn)
                  and "t0" in _params(fn)):
                out.append(_mk(rel, node, fn, site, "reuse", "draw-keyed",
                                f"{sampler} noise a function of (run, t0): one draw per stage"))
            elif (stmt is not None and typ == "float" and "run" in _params(fn)
                  and _release_of(node) is not None):
                out.append(_mk(rel, node, fn, site, "reuse", "draw-keyed-tag",
                                f"{sampler} noise a function of (run, release tag): one draw "
                                "shared by every arm's release of one tag"))
        law = _release_law(node)
        if law and fn is not None:
            site = f"release:{law}"
            out.append(_mk(rel, node, fn, site, "true", "release", "value ← true statistic"))
            out.append(_mk(rel, node, fn, site, "recscale", "release", "recorded scale × 2"))
            out.append(_mk(rel, node, fn, site, "ctrl-true", "release",
                           "the engine reads the true statistic (noisy one recorded)"))
        if isinstance(node, ast.If) and _is_rec_none(node.test) and fn is not None:
            noise_vars = {t.id for a in ast.walk(fn) if isinstance(a, ast.Assign)
                          for t in a.targets if isinstance(t, ast.Name) and _draw_kind(a.value)}
            for stmt in node.body:
                for sub in ast.walk(stmt):
                    what = None
                    if _draw_kind(sub):
                        what = ("prod-draw", f"{_draw_kind(sub)[0]} noise × 0.5 in production only")
                    elif isinstance(sub, ast.Call) and _callee(sub) == "tree_insert":
                        what = ("prod-tree", "tree_insert scale × 0.5 in production only")
                    elif (isinstance(sub, ast.Name) and sub.id in noise_vars
                          and isinstance(sub.ctx, ast.Load)):
                        what = ("prod-var", f"noise {sub.id} × 0.5 in production only")
                    if what:
                        out.append(_mk(rel, sub, fn, "branch:rec is None", "prod-only", *what))
    return out


def _count_mutants(rel, tree):
    out = []
    for node in ast.walk(tree):
        fn = _enclosing(node, ast.FunctionDef)
        hit = None
        if isinstance(node, ast.Attribute) and node.attr == "count" and isinstance(node.ctx,
                                                                                   ast.Load):
            hit = "count"
        elif isinstance(node, ast.Name) and node.id in COUNT_NAMES and isinstance(node.ctx,
                                                                                  ast.Load):
            hit = node.id
        if not hit:
            continue
        p = node._parent
        used = ((isinstance(p, ast.BinOp) and isinstance(p.op, ast.Mult))
                or (isinstance(p, ast.Call) and node in p.args
                    and (_callee(p) or "").split(".")[-1] in COUNT_CALLS)
                or (isinstance(p, ast.Call) and isinstance(p.func, ast.Attribute)
                    and p.func.attr in COUNT_CALLS and node in p.args))
        if used:
            out.append(_mk(rel, node, fn, f"count:{hit}", "count-1", "count",
                           f"{ast.unparse(node)} − 1"))
    return out


def generate(root=ROOT, classes=None, files=None):
    """Every mutant of the current sources, sorted by file, line and class.

    Parameters
    ----------
    root : Path
        Repository root.
    classes : iterable of str, optional
        Keep these classes only.
    files : iterable of str, optional
        Keep mutants of files whose path ends with one of these.

    Returns
    -------
    list of Mutant
    """
    root = Path(root)
    out = []
    for path in sorted((root / "kernels").glob("*.py")):
        if path.name in SKIP:
            continue
        tree = _parents(ast.parse(path.read_text()))
        out += _kernel_mutants(f"kernels/{path.name}", tree)
    for rel in COUNT_FILES:
        out += _count_mutants(rel, _parents(ast.parse((root / rel).read_text())))
    if classes:
        out = [m for m in out if m.cls in set(classes)]
    if files:
        out = [m for m in out if any(m.file.endswith(f) for f in files)]
    seen, uniq = set(), []
    for m in sorted(out, key=lambda m: (m.file, m.line, m.col, CLASSES.index(m.cls))):
        if m.id not in seen:
            seen.add(m.id)
            uniq.append(m)
    return uniq


# ---------------------------------------------------------------- applying a mutant

def _find(tree, m):
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) == m.line and getattr(node, "col_offset", None) == m.col:
            if m.kind in ("draw", "draw-pair", "draw-keyed", "draw-keyed-tag",
                          "prod-draw") and _draw_kind(node):
                return node
            if m.kind == "release" and _release_law(node):
                return node
            if m.kind == "prod-tree" and isinstance(node, ast.Call):
                return node
            if m.kind in ("prod-var", "count") and isinstance(node, (ast.Name, ast.Attribute)):
                return node
    raise LookupError(f"{m.file}:{m.line}:{m.col}: site not found (the source changed?)")


def _expr(text):
    return ast.parse(text, mode="eval").body


def _replace(node, new):
    p = node._parent
    for field, value in ast.iter_fields(p):
        if value is node:
            setattr(p, field, new)
            new._parent = p
            return
        if isinstance(value, list) and node in value:
            value[value.index(node)] = new
            new._parent = p
            return
    raise LookupError("node not under its parent")


def _scaled(node, f):
    src = ast.unparse(node)
    sampler, typ = _draw_kind(node)
    if typ == "float":
        return _expr(f"({src}) * {f!r}")
    if typ == "int":
        return _expr(f"{NP}.int64({NP}.rint(({src}) * {f!r}))")
    mean = ast.unparse(ast.Call(ast.Name(CENTRED[sampler]), node.args[1:], []))
    return _expr(f"{NP}.int64({NP}.rint({mean} + {f!r} * (({src}) - {mean})))")


def _dropped(node):
    sampler, typ = _draw_kind(node)
    if typ == "float":
        return _expr("0.0")
    if typ == "int":
        return _expr(f"{NP}.int64(0)")
    return _expr(f"{NP}.int64({NP}.rint("
                 f"{ast.unparse(ast.Call(ast.Name(CENTRED[sampler]), node.args[1:], []))}))")


def _insert_before(stmt, new_stmts):
    p = stmt._parent
    for field, value in ast.iter_fields(p):
        if isinstance(value, list) and stmt in value:
            i = value.index(stmt)
            value[i:i] = new_stmts
            return
    raise LookupError("statement not in a body")


def _prologue(fn, stmts):
    body = fn.body
    i = 1 if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
              and isinstance(body[0].value.value, str)) else 0
    body[i:i] = stmts


def _reuse(node, m):
    fn = _enclosing(node, ast.FunctionDef)
    stmt = _hoistable(node)
    src = ast.unparse(node)
    if m.kind in ("draw-keyed", "draw-keyed-tag"):
        scale = ast.unparse(node.args[FLOAT_SAMPLERS.get(_callee(node), 1)])
        key = "t0" if m.kind == "draw-keyed" else f"({ast.unparse(_release_of(node).args[6])} + 17)"
        pre = ast.parse(f"{NP}.random.seed((run * 1000003 + {key}) % 2147483647)\n"
                        f"_mut_x = {NP}.random.laplace(0.0, {scale})").body
    else:
        zero = "0.0" if _draw_kind(node)[1] == "float" else f"{NP}.int64(0)"
        _prologue(fn, ast.parse(f"_mut_have = False\n_mut_prev = {zero}").body)
        pre = ast.parse(f"if _mut_have:\n    _mut_have = False\n    _mut_x = _mut_prev\n"
                        f"else:\n    _mut_x = {src}\n    _mut_prev = _mut_x\n"
                        f"    _mut_have = True").body
    _insert_before(stmt, pre)
    _replace(node, ast.Name("_mut_x", ast.Load()))


def _release(node, m):
    true, scale, tag = node.args[7], node.args[8], node.args[6]
    plain = ast.unparse(true)
    if not (isinstance(tag, ast.Constant) or (isinstance(tag, ast.Name) and tag.id == "epoch")
            or isinstance(tag, ast.UnaryOp)):
        if isinstance(tag, ast.Subscript) and ast.unparse(tag).startswith("ipar"):
            plain = f"({plain}) / {ast.unparse(tag)}"  # SecAgg: Σ x̂ in encoded units (tag g)
    if m.cls == "true":
        node.args[9] = _expr(plain)
    elif m.cls == "recscale":
        node.args[8] = _expr(f"({ast.unparse(scale)}) * 2.0")
    else:  # ctrl-true
        _replace(node, _expr(f"({ast.unparse(node)}) * 0.0 + ({plain})"))


def apply(m, root=ROOT):
    """The source of ``m.file`` with mutant ``m`` applied (str).

    Raises
    ------
    LookupError
        If the site is not in the current source.
    """
    tree = _parents(ast.parse((Path(root) / m.file).read_text()))
    node = _find(tree, m)
    if m.cls in SCALES:
        _replace(node, _scaled(node, SCALES[m.cls]))
    elif m.cls == "drop":
        _replace(node, _dropped(node))
    elif m.cls == "reuse":
        _reuse(node, m)
    elif m.cls in ("true", "recscale", "ctrl-true"):
        _release(node, m)
    elif m.kind == "prod-draw":
        _replace(node, _scaled(node, 0.5))
    elif m.kind == "prod-tree":
        node.args[4] = _expr(f"({ast.unparse(node.args[4])}) * 0.5")
    elif m.kind == "prod-var":
        _replace(node, _expr(f"(0.5 * {node.id})"))
    elif m.cls == "count-1":
        _replace(node, _expr(f"({ast.unparse(node)} - 1)"))
    else:
        raise ValueError(f"unknown mutant class {m.cls!r}")
    body = tree.body
    i = 1 if body and isinstance(body[0], ast.Expr) and isinstance(
        getattr(body[0], "value", None), ast.Constant) else 0
    while i < len(body) and isinstance(body[i], ast.ImportFrom) and body[i].module == "__future__":
        i += 1
    body.insert(i, ast.parse(f"import numpy as {NP}").body[0])
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
