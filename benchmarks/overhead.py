"""Where the time of a study goes: simulation kernels versus everything else.

Runs each built-in figure (``bandsim reproduce``) at a small scale and a
100-job sweep at a small horizon, each in a fresh process (imports and the
Numba cache load count, as they do for a user), and splits the wall time into

- ``kernel``: the simulation proper (:func:`bandsim.runner._execute`: the
  per-run reward tables and the engines' shards);
- ``berry_esseen``, ``privacy``: the Gaussian batch-sum note and the result's
  privacy claim/audit, both computed while a job is prepared;
- ``prepare``: all of a job's preparation (validation, instance, plan, the two above);
- ``other``: the rest (imports, planning bookkeeping, writing Parquet,
  plotting, printing).

Usage (from the repository root)::

    .venv/bin/python benchmarks/overhead.py all --label after   # every figure + the sweep
    .venv/bin/python benchmarks/overhead.py figure cz-fig2 --runs 20 --horizon 2e5
    .venv/bin/python benchmarks/overhead.py sweep --jobs 100 --runs 20 --horizon 1e5

``all`` prints a table and writes ``benchmarks/overhead-LABEL.json``.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

T0 = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent

SWEEP = """
[study]
name = "overhead"
horizon = {horizon}
runs = {runs}
seed = 1
rewards = "gaussian"
arms = 10

[grid]
algorithm = ["dp-se", "dist-dp-se", "dist-rdp-se", "cdp-se", "ldp-se"]
instance = ["easy", "hard"]
epsilon = {eps}
"""


def _instrument():
    """Wrap the functions whose time is reported; returns the accumulator."""
    import bandsim.privacy.results as pr
    import bandsim.runner as runner

    acc = {"kernel": 0.0, "berry_esseen": 0.0, "privacy": 0.0, "prepare": 0.0}

    def timed(mod, name, key):
        fn = getattr(mod, name)

        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                acc[key] += time.perf_counter() - t

        setattr(mod, name, wrapper)

    timed(runner, "_execute", "kernel")
    timed(runner, "berry_esseen_bound", "berry_esseen")
    timed(pr, "result_privacy", "privacy")
    # prepare is looked up through the modules that call it
    import bandsim.studies.jobs as jobs

    fn = runner.prepare

    def prep(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            acc["prepare"] += time.perf_counter() - t

    runner.prepare = prep
    jobs.prepare = prep
    return acc


def _mslr_file(tmp):
    sys.path.insert(0, str(ROOT))
    from bandsim.datasets import build_mslr
    from tests.test_datasets import write_letor

    letor = Path(tmp) / "train.txt"
    write_letor(letor, n=600, seed=1)
    out = Path(tmp) / "mslr.parquet"
    build_mslr([letor], out, clusters=6, seed=0)
    return str(out)


def one(argv):
    """Run one figure or the sweep in this process; print a JSON line of timings."""
    acc = _instrument()
    from bandsim.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        if argv.what == "figure":
            from bandsim.studies.figures import FIGURES

            extra = []
            if any(p.needs_instance_file for p in FIGURES[argv.name].panels):
                extra = ["--instance-file", _mslr_file(tmp)]
            args = ["reproduce", argv.name, "--out", tmp + "/out", "--runs", str(argv.runs),
                    "--horizon", str(argv.horizon)] + extra
        else:
            n_eps = argv.jobs // 10
            eps = [round(0.1 * 1.5 ** i, 4) for i in range(n_eps)]
            study = Path(tmp) / "study.toml"
            study.write_text(SWEEP.format(horizon=argv.horizon, runs=argv.runs, eps=eps))
            args = ["sweep", str(study), "--out", tmp + "/out"]
        t = time.perf_counter()
        with open(os.devnull, "w") as null:
            stdout, sys.stdout = sys.stdout, null
            try:
                code = main(args)
            finally:
                sys.stdout = stdout
        command = time.perf_counter() - t
    wall = time.perf_counter() - T0
    acc = {k: round(v, 3) for k, v in acc.items()}
    print(json.dumps(dict(what=argv.name if argv.what == "figure" else f"sweep-{argv.jobs}",
                          code=code, wall=round(wall, 3), command=round(command, 3),
                          imports=round(wall - command, 3), **acc,
                          other=round(wall - acc["kernel"] - acc["prepare"], 3))))


def run_all(argv):
    from bandsim.studies.figures import FIGURES

    rows = []
    cases = [["figure", name, "--runs", str(argv.runs), "--horizon", str(argv.horizon)]
             for name in FIGURES]
    cases.append(["sweep", "--jobs", "100", "--runs", str(argv.runs),
                  "--horizon", str(argv.sweep_horizon)])
    for case in cases:
        out = subprocess.run([sys.executable, __file__] + case, capture_output=True, text=True,
                             cwd=ROOT)
        if out.returncode:
            print(out.stderr[-2000:], file=sys.stderr)
            continue
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)
        print(f"{row['what']:>14}  wall {row['wall']:6.2f} s  kernel {row['kernel']:6.2f} s  "
              f"prepare {row['prepare']:6.2f} s (berry-esseen {row['berry_esseen']:.2f}, "
              f"privacy {row['privacy']:.2f})  imports {row['imports']:.2f} s  "
              f"other {row['other']:6.2f} s", flush=True)
    path = ROOT / "benchmarks" / f"overhead-{argv.label}.json"
    path.write_text(json.dumps(dict(runs=argv.runs, horizon=argv.horizon,
                                    sweep_horizon=argv.sweep_horizon, rows=rows), indent=1))
    print(f"wrote {path}")


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="what", required=True)
    f = sub.add_parser("figure")
    f.add_argument("name")
    s = sub.add_parser("sweep")
    s.add_argument("--jobs", type=int, default=100)
    a = sub.add_parser("all")
    a.add_argument("--label", default="now")
    a.add_argument("--sweep-horizon", type=float, default=1e5)
    for q in (f, s, a):
        q.add_argument("--runs", type=int, default=20)
        q.add_argument("--horizon", type=float, default=2e5)
    s.set_defaults(name=None)
    return p.parse_args(argv)


if __name__ == "__main__":
    args = parse()
    if args.what == "all":
        run_all(args)
    else:
        args.horizon = int(args.horizon)
        one(args)
