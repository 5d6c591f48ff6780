"""Mutation testing of the privacy audits: machine-made mutants of ``kernels/``, and a score.

::

    python -m benchmarks.mutants [--class C,...] [--file F,...] [--limit N] [--sample N]
                                 [--max-algos 2] [--timeout 300] [--jobs 1]
                                 [--out benchmarks/mutants-latest]

The generator (:mod:`benchmarks.mutants_gen`) makes one mutant per class at
every noise draw and release site of ``kernels/`` (and every participation or
accountant count). For each mutant (:mod:`benchmarks.mutants_run`) a mutated
copy of the code is compiled with its own Numba cache; the algorithms that
run the site (line coverage of a short simulation and a recorded run of every
private built-in, Numba off) are compared with the unmutated code on
fixed-seed outputs — equal outputs mean the mutant is *equivalent*, listed
apart — and otherwise audited: ``bandsim audit ALGO --whole-run``, the
sampled audit (``--sampled``) and, where the algorithm has one, the exact
audit. A mutant is *caught* when one audit FAILs (exit 1 without a
traceback), *crash* when the code raises, *survived* when every audit passes.

Writes ``OUT.md`` (table, score per class and per engine, survivors) and
``OUT.json``. ``--sample N`` keeps at most N mutants per (class, engine) cell
(chosen by a hash of the mutant id: a stratified sample, the same every time).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .mutants_gen import CLASSES, ROOT, generate
from .mutants_cache import seed
from .mutants_report import report
from .mutants_run import WORK, check, env_for, materialize, signature


def _private():
    from bandsim.registry import algorithms

    from .mutants_run import NOT_AUDITED

    def engine(a):  # an ``engine`` parameter's default is the engine the audit records
        p = next((p for p in a.params if p.name == "engine" and getattr(p, "choices", None)),
                 None)
        return a.engine if p is None else str(p.default)

    out = {n: engine(a) for n, a in algorithms().items() if a.private}
    return dict(out, **{n: e for n, e in NOT_AUDITED.items() if n not in out})


def _hash(s):
    return hashlib.sha1(s.encode()).hexdigest()


def baseline(algos, timeout, accountant=False):
    """Unmutated output digests of ``algos`` (dict), computed in the mutant tree's place
    with the baseline Numba cache (which this warms); ``accountant``: with the
    accountant's outputs."""
    tree = WORK / "tree"
    if tree.exists():
        shutil.rmtree(tree)
    materialize(None, tree)
    seed(WORK / "numba-base", tree)
    sig, _ = signature(tree, env_for(tree, WORK / "numba-base"), algos, timeout, accountant)
    bad = {a: d for a, d in sig.items() if not d.isalnum()}
    if bad:
        raise RuntimeError(f"the unmutated code fails the probe: {bad}")
    return sig


def _save(out, rows, engines, meta):
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(dict(meta=meta, rows=rows), indent=1))
    os.replace(tmp, out.with_suffix(".json"))
    out.with_suffix(".md").write_text(report(rows, engines, meta))


def main(argv=None):
    """Run the mutation table (module docstring); returns the exit status (0)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--class", dest="classes", default="", help=f"comma list of {CLASSES}")
    ap.add_argument("--file", default="", help="comma list of file suffixes (e.g. svt.py)")
    ap.add_argument("--ids", default="", help="comma list of mutant ids (default: all)")
    ap.add_argument("--limit", type=int, default=0, help="at most N mutants (0: all)")
    ap.add_argument("--max-algos", type=int, default=2, help="algorithms audited per mutant")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per command")
    ap.add_argument("--checks",
                    default="whole-run,sampled,exact,accountant,accountant-cal,whole-run-eps8",
                    help="audits, in the order they are tried")
    ap.add_argument("--all-checks", action="store_true",
                    help="run every check (default: stop at the first FAIL)")
    ap.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    ap.add_argument("--note", default="", help="a line written under the header")
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows of OUT.json and run only the other mutants")
    ap.add_argument("--budget", type=float, default=0,
                    help="start no mutant after this many seconds (0: no limit)")
    ap.add_argument("--merge", default="",
                    help="comma list of OUT.json files of other runs: write OUT from their "
                    "rows (a later file's row of a mutant replaces an earlier one), run nothing")
    ap.add_argument("--later", default="",
                    help="an earlier OUT.json: its caught mutants (same id: same site) run last, "
                    "so a budget spends itself on new sites and earlier survivors first")
    ap.add_argument("--carry", default="",
                    help="with --merge: an earlier OUT.json whose rows of mutants not run here "
                    "are added, marked carried, where it caught them, the mutated file is "
                    "unchanged since its "
                    "commit and the mutant is still generated")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "mutants-latest"))
    a = ap.parse_args(argv)
    t0 = time.time()
    engines = _private()
    if a.merge:
        runs = [json.loads(Path(f).read_text()) for f in a.merge.split(",") if f]
        meta = dict(runs[0]["meta"], argv=" | ".join(r["meta"]["argv"] for r in runs),
                    seconds=sum(r["meta"]["seconds"] for r in runs),
                    generated=len(generate()), note=a.note or " ".join(
                        r["meta"].get("note", "") for r in runs))
        rows = list({row["id"]: row for r in runs for row in r["rows"]}.values())  # last wins
        if a.carry:
            rows += carried(json.loads(Path(a.carry).read_text()), rows)
        _save(Path(a.out), rows, engines, meta)
        return 0
    mutants = generate(classes=[c for c in a.classes.split(",") if c] or None,
                       files=[f for f in a.file.split(",") if f] or None)
    generated = len(mutants)
    if a.ids:
        want = {i for i in a.ids.split(",") if i}
        missing = want - {m.id for m in mutants}
        if missing:
            ap.error(f"--ids: no such mutant {sorted(missing)} (the site or code moved: "
                     "--list shows the ids)")
        mutants = [m for m in mutants if m.id in want]
    if a.limit:
        mutants = mutants[:a.limit]
    if a.list:
        for m in mutants:
            print(f"{m.id:22} {m.file}:{m.line:<4} {m.function:22} {m.site:26} {m.detail}")
        return 0
    out = Path(a.out)
    old = (json.loads(out.with_suffix(".json").read_text())["rows"]
           if a.resume and out.with_suffix(".json").exists() else [])
    done = {r["id"] for r in old}
    mutants = [m for m in mutants if m.id not in done]
    later = ({r["id"] for r in json.loads(Path(a.later).read_text())["rows"]
              if r["status"] == "caught"} if a.later else set())
    mutants.sort(key=lambda m: (m.id in later, _hash(m.id)))  # a budget cuts an unbiased subset
    algos = list(engines)
    t_base = time.time()
    base = {False: baseline(algos, a.timeout * 4)}
    if any(m.cls == "count-1" for m in mutants):
        base[True] = baseline(algos, a.timeout * 4, accountant=True)
    meta = dict(argv=" ".join(sys.argv[1:] if argv is None else argv),
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), generated=generated,
                commit=_commit(), baseline_seconds=round(time.time() - t_base, 1),
                seconds=0.0, note=a.note)
    checks = tuple(c for c in a.checks.split(",") if c)
    rows = list(old)
    for m in mutants:
        if a.budget and time.time() - t0 > a.budget:
            break
        r = check(m, algos, base[m.cls == "count-1"], a.timeout, checks, a.max_algos, engines, a.all_checks)
        print(f"{r['id']:22} {r['status']:10} {','.join(r['caught_by']) or '-':40} "
              f"{r['seconds']:7.1f} s", flush=True)
        rows.append(r)
        meta["seconds"] = round(time.time() - t0, 1)
        _save(out, rows, engines, meta)  # a checkpoint: a partial run is a usable table
    meta["seconds"] = round(time.time() - t0, 1)
    _save(out, rows, engines, meta)
    print(f"wrote {out.with_suffix('.md')} and .json")
    return 0


def carried(prior, rows):
    """Rows of an earlier table (``prior``: its JSON) for the mutants it caught, or found
    equivalent or not run in a function no built-in calls (a ``fn:`` note of
    ``mutants-notes.json``), or count mutants that survived (no check reads what they
    change but the accountant check), that are still generated and not in ``rows``, whose file is unchanged between the earlier table's commit and HEAD
    (same id: same site, same code), each marked ``carried`` with that commit (list)."""
    from .mutants_report import notes

    have, why = {r["id"] for r in rows}, notes()
    now = {m.id for m in generate()}
    commit = prior["meta"].get("commit", "")
    out, same = [], {}
    for r in prior["rows"]:
        structural = (r["status"] in ("equivalent", "not run")
                      and f"fn:{r['file']}:{r['function']}" in why)
        if (r["id"] in have or r["id"] not in now or not commit
                or not (r["status"] == "caught" or structural
                        or (r["status"] == "survived" and r["cls"] == "count-1"))):
            continue
        if r["file"] not in same:
            same[r["file"]] = subprocess.run(
                ["git", "diff", "--quiet", commit, "HEAD", "--", r["file"]], cwd=ROOT).returncode == 0
        if same[r["file"]]:
            out.append(dict(r, carried=commit))
    return out


def _commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True).stdout.strip()
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
