"""Audit given mutants whatever the probe said, and keep their rows apart.

::

    python -m benchmarks.mutants_recheck ID[,ID...] --algos A[,B] [--out F]

For a mutant the table's probe called equivalent but
:mod:`benchmarks.mutants_equiv` shows changing outputs at other seeds: its row
(the audits of ``--algos``, as :func:`benchmarks.mutants_run.check` with no
probe) goes to ``F.json`` (default ``benchmarks/mutants-recheck``), which
``python -m benchmarks.mutants --merge TABLE.json,F.json`` lays over the table.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

from .mutants import _commit, _private
from .mutants_gen import ROOT, generate
from .mutants_run import WORK, check


def main(argv=None):
    """Audit the mutants (module docstring); exit 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ids")
    ap.add_argument("--algos", required=True)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--checks", default="whole-run,sampled,exact,accountant,accountant-cal,"
                    "whole-run-eps8",
                    help="checks run; a mutant already in F keeps its other checks' outcomes")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "mutants-recheck"))
    a = ap.parse_args(argv)
    out = Path(a.out).with_suffix(".json")
    old = json.loads(out.read_text()) if out.exists() else dict(meta={}, rows=[])
    rows = {r["id"]: r for r in old["rows"]}
    by_id = {m.id: m for m in generate()}
    work = Path(os.environ.get("BANDSIM_MUTANTS_WORK") or str(WORK) + "-recheck")
    t0 = time.time()
    for mid in a.ids.split(","):
        r = check(by_id[mid], a.algos.split(","), None, a.timeout, a.checks.split(","), 2,
                  _private(), work=work)
        prev = rows.get(mid)
        if prev:  # keep the outcomes of the checks run before
            for algo, res in prev["results"].items():
                r["results"][algo] = dict(res, **r["results"].get(algo, {}))
            r["caught_by"] = prev["caught_by"] + [c for c in r["caught_by"]
                                                  if c not in prev["caught_by"]]
            r["why"] = prev.get("why") or r.get("why")
            r["status"] = "caught" if r["caught_by"] else r["status"]
            r["seconds"] = round(prev["seconds"] + r["seconds"], 1)
        r["rechecked"] = "outputs differ at other seeds (benchmarks.mutants_equiv)"
        rows[mid] = r
        print(f"{mid} {r['status']} {','.join(r['caught_by']) or '-'} {r['seconds']} s",
              flush=True)
    meta = dict(argv="recheck " + " ".join(sys.argv[1:] if argv is None else argv),
                date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                generated=0, commit=_commit(), seconds=round(time.time() - t0, 1))
    out.write_text(json.dumps(dict(meta=meta, rows=list(rows.values())), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
