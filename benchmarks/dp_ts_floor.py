"""DP-TS per pull against its Beta-sampling floor, measured in the same run.

DP-TS (Hu & Hegde, UAI 2022, Algorithm 1) changes an arm's private sum after
every pull, so every round needs K fresh Beta samples: K Beta draws per round
is the floor of any exact per-round engine. This script times, in one process
(CPU time, one thread, K = 5, μ = (0.75, 0.625, 0.5, 0.375, 0.25), ε = 1):

* the engine (``kernels.thompson.run_dp_ts_shard`` through the plan, no audit);
* the floor: a Numba loop drawing, per round, the K Betas the engine draws —
  ``beta_pseudo`` at the same (m̄, O) as a converged run (the leader at
  O = t, the others at their final counts) — and taking their argmax;

and prints ns per pull of each and their ratio.

Usage::

    .venv/bin/python benchmarks/dp_ts_floor.py [--horizon 2000000] [--runs 3]
"""
import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bandsim.algorithms import episodic  # noqa: E402
from bandsim.kernels.codes import BERNOULLI  # noqa: E402
from bandsim.kernels.shard import make_shard  # noqa: E402
from bandsim.kernels.thompson import beta_pseudo  # noqa: E402

MEANS = [0.75, 0.625, 0.5, 0.375, 0.25]


def engine(horizon, runs, seed=3):
    """Final pulls of ``runs`` runs of DP-TS (plan kernel, ε = 1)."""
    plan = episodic.plan_dp_ts(dict(epsilon=1.0), len(MEANS), horizon)
    K = len(MEANS)
    gaps = np.tile(max(MEANS) - np.asarray(MEANS), (runs, 1))
    rpar = np.zeros((runs, K, 4))
    rpar[:, :, 0] = MEANS
    out, pulls = np.zeros((runs, 1)), np.zeros((runs, K), np.int64)
    plan.run_shard(np.random.default_rng(seed), make_shard(
        gaps, BERNOULLI, rpar, horizon, np.array([horizon], np.int64), out, pulls,
        np.zeros((runs, K), np.int64)))
    return pulls, plan


@njit(cache=False)
def floor_loop(rng, means, counts, horizon, c):
    """K Beta draws per round at a converged run's (m̄, O), argmax; returns the leader's wins."""
    K = means.shape[0]
    wins = 0
    for t in range(1, horizon + 1):
        lt = c * math.log(t)
        best, J = -1.0, 0
        for j in range(K):
            O = counts[j] if j > 0 else max(1.0, float(t))
            m = min(1.0, max(0.0, means[j] + lt * math.log(O + 1.0) / O))
            th = beta_pseudo(rng, m, O)
            if th > best:
                best, J = th, j
        wins += J == 0
    return wins


def main(argv=None):
    """Time the engine and the floor; print ns per pull and the ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--horizon", type=int, default=2_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    T, runs = args.horizon, args.runs
    pulls, plan = engine(1000, 1)  # warm-up
    c = plan.c_shift * plan.log_factor ** 2
    t0 = time.process_time()
    pulls, _ = engine(T, runs)
    t_engine = (time.process_time() - t0) / (runs * T)
    counts = pulls.mean(0).astype(float)
    means = np.asarray(MEANS, float)
    floor_loop(np.random.default_rng(0), means, counts, 1000, c)  # compile
    t0 = time.process_time()
    for r in range(runs):
        floor_loop(np.random.default_rng(r), means, counts, T, c)
    t_floor = (time.process_time() - t0) / (runs * T)
    print(f"DP-TS K=5 ε=1 T={T:,}: engine {t_engine * 1e9:.1f} ns/pull, Beta floor "
          f"{t_floor * 1e9:.1f} ns/pull (K Beta draws + argmax), ratio "
          f"{t_engine / t_floor:.2f}; final N_a mean {counts.round(0).tolist()}")


if __name__ == "__main__":
    main()
