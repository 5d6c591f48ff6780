"""Event-driven Lazy-DP-TS against its per-round reference: equality in law and speed.

Law: for each configuration (means, ε, T, runs) both engines run ``runs`` runs
(different seeds) through the plan's kernel (``tests.test_lazy_events.engine_outputs``:
no whole-run audit), and a two-sample KS test compares the regret at T/2 and at T
and every N_a(T). The family of all tests is judged at level 0.01 with Bonferroni
(every p-value ≥ 0.01 / number of tests).

Speed: K = 5, μ = (0.75, 0.625, 0.5, 0.375, 0.25), ε = 1, T = 10⁸, one thread,
process CPU time: ``--ref-runs`` runs of the per-round engine and ``--runs`` runs
of the event-driven one in the same process; ns per round and the ratio.

Usage (from the repository root)::

    .venv/bin/python benchmarks/lazy_events.py                  # law table + speed
    .venv/bin/python benchmarks/lazy_events.py --skip-law --ref-runs 1
    .venv/bin/python benchmarks/lazy_events.py --json out.json
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.test_lazy_events import engine_outputs  # noqa: E402

SPREAD = [0.75, 0.625, 0.5, 0.375, 0.25]
#: (means, ε, T, runs per engine)
LAW_CASES = [
    ([0.6, 0.5], 4.0, 20_000, 2000),
    ([0.7, 0.6, 0.5], 1.0, 100_000, 1000),
    (SPREAD, 0.5, 20_000, 2000),
    (SPREAD, 1.0, 1_000_000, 200),
    (list(np.linspace(0.9, 0.45, 10)), 0.25, 10_000, 2000),
]
LEVEL = 0.01


def law(cases=LAW_CASES):
    """KS p-values of every case; returns (rows, number of tests)."""
    rows = []
    for means, eps, horizon, runs in cases:
        t = time.process_time()
        ev = engine_outputs("events", means, eps, horizon, runs, seed=101)
        t_ev = time.process_time() - t
        t = time.process_time()
        ref = engine_outputs("per-round", means, eps, horizon, runs, seed=202)
        t_ref = time.process_time() - t
        p = [stats.ks_2samp(x, y).pvalue for x, y in zip(ev, ref)]
        rows.append(dict(K=len(means), epsilon=eps, T=horizon, runs=runs, p=p,
                         mean_regret=(float(ev[1].mean()), float(ref[1].mean())),
                         cpu=(t_ev, t_ref)))
        print(f"K={len(means):2d} ε={eps:<4g} T={horizon:<9,d} runs={runs:5d}  min p "
              f"{min(p):.3f}  (regret T/2, T, N_1..N_K: {' '.join(f'{x:.2f}' for x in p)})  "
              f"mean regret {ev[1].mean():.1f} / {ref[1].mean():.1f}  "
              f"cpu {t_ev:.1f} s / {t_ref:.1f} s", flush=True)
    return rows, sum(len(r["p"]) for r in rows)


def speed(horizon=10**8, runs=20, ref_runs=2):
    """CPU seconds per run of each engine at T (K = 5, ε = 1), same process."""
    engine_outputs("events", SPREAD, 1.0, 1000, 2, seed=1)  # JIT cache load
    engine_outputs("per-round", SPREAD, 1.0, 1000, 2, seed=1)
    out = {}
    for engine, n in (("events", runs), ("per-round", ref_runs)):
        t = time.process_time()
        engine_outputs(engine, SPREAD, 1.0, horizon, n, seed=7)
        out[engine] = (time.process_time() - t) / n
    ratio = out["per-round"] / out["events"]
    print(f"T = {horizon:.0e}, K = 5, ε = 1: events {out['events'] * 1e3:.2f} ms/run "
          f"({out['events'] / horizon * 1e9:.3f} ns/round, {runs} runs); per-round "
          f"{out['per-round']:.2f} s/run ({out['per-round'] / horizon * 1e9:.1f} ns/round, "
          f"{ref_runs} runs); ratio {ratio:.0f}×", flush=True)
    return dict(horizon=horizon, events_s=out["events"], per_round_s=out["per-round"],
                ratio=ratio, runs=runs, ref_runs=ref_runs)


def main(argv=None):
    """Run the law table and/or the speed comparison; print them (and write ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-law", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--ref-runs", type=int, default=2)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    result = {}
    if not args.skip_law:
        rows, n = law()
        worst = min(min(r["p"]) for r in rows)
        verdict = "equal in law" if worst >= LEVEL / n else "DIFFERENT"
        print(f"{n} KS tests, smallest p {worst:.4f}; Bonferroni at {LEVEL}: threshold "
              f"{LEVEL / n:.2e} → {verdict}")
        result["law"] = dict(rows=rows, tests=n, smallest_p=worst, level=LEVEL, verdict=verdict)
    if not args.skip_speed:
        result["speed"] = speed(runs=args.runs, ref_runs=args.ref_runs)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
