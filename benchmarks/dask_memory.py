"""Peak memory of a sweep on the local backend and on the in-process Dask cluster.

Each backend runs in a fresh process; the peak resident set size
(``ru_maxrss``) of that process is reported (the in-process Dask cluster
lives in the same process, so its workers count too).

``--suite`` measures ``bandsim suite`` through the results store instead
(:func:`bandsim.studies.suite_run.run_suite_stored`, one task per configuration):
a slice of the full tier — C2 at K = 5 and K = 20, ε = 1, T = ``--horizon``,
every algorithm, ``--runs`` runs (O(T) engines ``--runs``/10).

Usage (from the repository root)::

    .venv/bin/python benchmarks/dask_memory.py            # both backends
    .venv/bin/python benchmarks/dask_memory.py --runs 10000 --jobs 20
    .venv/bin/python benchmarks/dask_memory.py --suite --runs 1000 --horizon 1e5
"""
import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STUDY = """
[study]
name = "memory"
horizon = {horizon}
runs = {runs}
seed = 1
arms = 10

[grid]
algorithm = ["dp-se", "dist-dp-se"]
instance = ["easy", "hard"]
epsilon = {eps}
"""


def child(backend, runs, jobs, horizon):
    from bandsim.studies.sweep import sweep

    with tempfile.TemporaryDirectory() as tmp:
        study = Path(tmp) / "study.toml"
        eps = [round(0.1 * 2 ** i, 4) for i in range(jobs // 4)]
        study.write_text(STUDY.format(horizon=horizon, runs=runs, eps=eps))
        t = time.perf_counter()
        rows = sweep(study, Path(tmp) / "out", backend=backend)
        seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB on Linux
    print(json.dumps(dict(backend=backend, jobs=len(rows), runs=runs, horizon=horizon,
                          peak_mib=round(peak), seconds=round(seconds, 2))))


def suite_child(backend, runs, horizon):
    from bandsim.studies import suite
    from bandsim.studies.suite_run import run_suite_stored

    tier = suite.Tier("memory", (suite.THESIS[1], suite.THESIS[5]), (1.0,), (horizon,), runs=runs,
                      step_runs=max(2, runs // 10), budget=None, long_horizon=horizon)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        rows, meta = run_suite_stored(tier, tmp, backend=backend, progress=False)
        seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(dict(backend=backend, suite=True, jobs=len(rows), runs=runs,
                          horizon=horizon, peak_mib=round(peak), seconds=round(seconds, 2),
                          core_seconds=round(meta["core_seconds"], 2))))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10_000)
    p.add_argument("--jobs", type=int, default=20)
    p.add_argument("--horizon", type=float, default=1e6)
    p.add_argument("--child", default=None)
    p.add_argument("--suite", action="store_true", help="a slice of the suite's full tier")
    a = p.parse_args()
    if a.child and a.suite:
        return suite_child(a.child, a.runs, int(a.horizon))
    if a.child:
        return child(a.child, a.runs, a.jobs, int(a.horizon))
    out = {}
    for backend in ("local", "dask"):
        r = subprocess.run([sys.executable, __file__, "--child", backend, "--runs", str(a.runs),
                            "--jobs", str(a.jobs), "--horizon", str(a.horizon)]
                           + (["--suite"] if a.suite else []),
                           capture_output=True, text=True)
        if r.returncode:
            print(r.stderr[-3000:], file=sys.stderr)
            continue
        out[backend] = json.loads(r.stdout.strip().splitlines()[-1])
        print(out[backend], flush=True)
    if len(out) == 2:
        print(f"dask / local peak memory: {out['dask']['peak_mib'] / out['local']['peak_mib']:.2f}")


if __name__ == "__main__":
    main()
