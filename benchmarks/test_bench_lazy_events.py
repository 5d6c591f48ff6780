"""Event-driven Lazy-DP-TS against its per-round reference at T = 10⁸, same run.

K = 5, μ = (0.75, 0.625, 0.5, 0.375, 0.25), ε = 1, one thread, the plans'
kernels (no whole-run audit): one run of the per-round engine (≈ 20–30 s) and
20 runs of the event-driven one (median of 3 rounds), wall time in this
session; the ratio of seconds per run is the speed-up (target ≥ 10³). Equality in law is checked in
tests/test_lazy_events.py and, on a larger grid, by benchmarks/lazy_events.py.
"""
import time

import numpy as np

from tests.test_lazy_events import SPREAD, engine_outputs

T = 10**8


def test_events_engine_vs_per_round_engine_at_t_1e8(benchmark):
    engine_outputs("events", SPREAD, 1.0, 1000, 2, seed=1)  # warm-up: JIT cache load
    engine_outputs("per-round", SPREAD, 1.0, 1000, 2, seed=1)
    runs = 20
    out = benchmark.pedantic(engine_outputs, args=("events", SPREAD, 1.0, T, runs, 7),
                             rounds=3, iterations=1)
    events = benchmark.stats.stats.median / runs
    t0 = time.perf_counter()
    engine_outputs("per-round", SPREAD, 1.0, T, 1, seed=7)
    per_round = time.perf_counter() - t0
    benchmark.extra_info.update(events_seconds_per_run=events,
                                per_round_seconds_per_run=per_round, ratio=per_round / events,
                                ns_per_round=events / T * 1e9, mean_regret=float(np.mean(out[1])))
    print(f"\nlazy-dp-ts T=1e8: events {events * 1e3:.2f} ms/run "
          f"({events / T * 1e9:.3f} ns/round); per-round {per_round:.1f} s/run; "
          f"ratio {per_round / events:.0f}x")
