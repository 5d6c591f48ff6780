"""Seconds per run of every built-in algorithm with the current engines: the figures
behind each declaration's ``run_cost`` (:class:`bandsim.costs.RunCost`).

For each algorithm and point (instance, K, T) the script plans one configuration
(``prepare``: planning and the exact audit, timed apart as the per-configuration
overhead), then times ``Prepared.run`` on one thread (CPU time of the process, so
other work on a shared machine does not inflate it; the JIT is warmed first on a
tiny run) and prints seconds per run and nanoseconds per unit of the
algorithm's declared cost model (``T·K`` for the O(T) engines, ``K²·√K·log₂T`` for
Lazy-DP-TS's event-driven engine, ``K·log₂T`` or ``K²`` for the episodic and
batched ones), next to the declared figure.

Points: C2 at K = 5 and the Open Bandit Dataset's 80 arms (the suite's smallest
and largest K), T = 10⁶ and 10⁸ (only T = 10⁶, with a T = 10⁷ point at K = 5, for
the O(T) engines, whose cost is linear in T by construction; `--arms` adds other K, e.g.
``--arms 5,10,20,80``). ε = 1.

Usage (from the repository root; takes a few minutes on one core)::

    .venv/bin/python benchmarks/run_cost.py [--only dp-ts,ucb1] [--arms 5,10,80] [--json out.json]
"""
import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bandsim import registry  # noqa: E402
from bandsim.costs import run_cost, units  # noqa: E402
from bandsim.runner import prepare  # noqa: E402
from bandsim.studies.suite import OBD  # noqa: E402

#: (seconds of simulation to aim at per point, most runs, fewest runs).
AIM, MOST, FEWEST = 1.0, 200, 1


def instance_kw(K):
    if K == 80:
        kw, _, _ = OBD.resolve()
        return kw
    return dict(instance="C2", arms=K)


def params_of(algo):
    out = {}
    if algo.param("epsilon"):
        out["epsilon"] = 1.0
    if algo.param("delta"):
        out["delta"] = 1e-6
    return out


def time_point(name, K, T, runs):
    algo = registry.get_algorithm(name)
    t0 = time.perf_counter()
    prep = prepare(name, horizon=T, runs=runs, seed=1, threads=1, checkpoints=16,
                   **instance_kw(K), **params_of(algo))
    planning = time.perf_counter() - t0
    t0 = time.process_time()
    prep.run()
    return planning, (time.process_time() - t0) / runs


def measure(name, points):
    algo = registry.get_algorithm(name)
    time_point(name, 5, 1000, 2)  # compile
    rows = []
    for K, T in points:
        declared = run_cost(algo, K, T)
        runs = int(max(FEWEST, min(MOST, AIM / declared))) if declared else MOST
        planning, per_run = time_point(name, K, T, runs)
        cost = algo.run_cost if not callable(algo.run_cost) else algo.run_cost({})
        u = units(cost.unit, K, T) if cost else float("nan")
        rows.append(dict(algorithm=name, K=K, T=T, runs=runs, planning_s=round(planning, 3),
                         s_per_run=per_run, ns_per_unit=per_run * 1e9 / u,
                         unit=cost.unit if cost else "", declared_s=declared))
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default=None, help="comma-separated algorithms")
    p.add_argument("--json", default=None, help="write the rows here")
    p.add_argument("--arms", default="5,80",
                   help="K of the points, comma-separated (C2 with K arms; 80: the OBD "
                        "instance); default the suite's smallest and largest")
    a = p.parse_args()
    names = a.only.split(",") if a.only else [n for n in registry.algorithms()
                                               if registry.is_builtin(n)]
    rows = []
    for name in names:
        algo = registry.get_algorithm(name)
        if "bernoulli" not in algo.rewards:
            continue
        linear = algo.cost == "horizon" and run_cost(algo, 5, 10**8) > 5
        arms = [int(k) for k in a.arms.split(",")]
        points = ([(5, 10**7)] if linear and 5 in arms else []) + [
            (k, t) for k in arms for t in ((10**6,) if linear else (10**6, 10**8))]
        points.sort()
        rows += measure(name, points)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
