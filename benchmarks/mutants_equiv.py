"""Is a mutant equivalent? Its outputs against the unmutated code's over more seeds and ε.

::

    python -m benchmarks.mutants_equiv ID[,ID...] --algos A,B [--seeds 1-12]
                                       [--epsilon 0.5,4] [--horizon T]

The table's probe (:mod:`benchmarks.mutants_run`) compares two seeds at
ε = 0.5; a mutant it calls equivalent, or a survivor said to change nothing
that matters, is compared here on the same outputs (production runs of every
given algorithm and of each engine it declares, one recorded run, the
declared releases) over ``--seeds`` and each ``--epsilon``, in a tree of its
own (``BANDSIM_MUTANTS_WORK`` or a directory next to the table's). Prints,
per mutant, ε and algorithm, ``same`` or ``differs``; exit 0.
"""
import argparse
import os
import shutil
import sys
from pathlib import Path

from .mutants_cache import harvest, prepare, seed, stale
from .mutants_gen import generate
from .mutants_run import WORK, env_for, materialize, signature


def _seeds(text):
    if "-" in text:
        lo, hi = map(int, text.split("-"))
        return ",".join(str(s) for s in range(lo, hi + 1))
    return text


def digests(m, algos, seeds, eps, work, timeout=1800, horizon=""):
    """{algo: digest} of mutant ``m`` (None: the unmutated code) at ``seeds`` and ε."""
    tree, base, cache = work / "tree", work / "numba-base", work / "numba"
    if tree.exists():
        shutil.rmtree(tree)
    materialize(m, tree)
    seed(base, tree)
    drop = stale(m.file) if m is not None else set()
    prepare(base, cache, drop)
    env = dict(env_for(tree, cache), BANDSIM_MUTANTS_SEEDS=seeds, BANDSIM_MUTANTS_EPSILON=eps,
               BANDSIM_MUTANTS_HORIZON=horizon)
    try:
        sig, _ = signature(tree, env, algos, timeout)
    finally:
        harvest(base, cache, drop)
    return sig


def main(argv=None):
    """Compare the mutants' digests with the unmutated ones (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ids")
    ap.add_argument("--algos", required=True)
    ap.add_argument("--seeds", default="1-12")
    ap.add_argument("--epsilon", default="0.5")
    ap.add_argument("--horizon", default="", help="T of the per-step algorithms' runs "
                    "(default the probe's, 20,000)")
    a = ap.parse_args(argv)
    work = Path(os.environ.get("BANDSIM_MUTANTS_WORK") or str(WORK) + "-equiv")
    algos = a.algos.split(",")
    seeds = _seeds(a.seeds)
    by_id = {m.id: m for m in generate()}
    for eps in a.epsilon.split(","):
        ref = digests(None, algos, seeds, eps, work, horizon=a.horizon)
        for mid in a.ids.split(","):
            got = digests(by_id[mid], algos, seeds, eps, work, horizon=a.horizon)
            for algo in algos:
                print(f"{mid} ε={eps} seeds {a.seeds} T={a.horizon or 'probe'} {algo}: "
                      f"{'same' if got[algo] == ref[algo] else 'differs'}"
                      + ("" if got[algo].isalnum() else f" ({got[algo]})"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
