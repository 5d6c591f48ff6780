"""Dist-DP-SE and Dist-RDP-SE at scale (issue 3): K=10, T=5e7, 10,000 runs, one thread.

Figures go to ``extra_info``: simulated pulls per second, and the ratio to
the per-user path of the same protocol measured in this session — both the
compiled per-user kernel (every user encodes, draws her own noise, reduces
mod m; S sums mod m) and the plain-Python per-user reference of Algorithm 1
(``tests/reference.py``).
"""
import time

import numpy as np
import pytest

import bandsim
from bandsim.mechanisms import secagg as protocols
from bandsim.kernels import rewards, secagg
from bandsim.kernels.hooks import unbound
from tests import reference

T, RUNS = 50_000_000, 10_000
SETUP = {"dist-dp-se": ("dist-dp", 1.0), "dist-rdp-se": ("dist-rdp", 10.0)}


def _per_user_kernel_pps(name, scale):
    """Users per second through the compiled per-user path (n = 4^7 batches)."""
    mech = protocols.mechanism(name, 4**7, 0.5, 0.1, scale)
    fpar = np.zeros(4)
    fpar[:len(mech.fpar)] = mech.fpar
    ipar = np.array(mech.ipar, np.int64)
    rng = np.random.default_rng(0)
    par = np.array([0.6, 0, 0, 0])
    h = unbound()
    secagg.draw(rng, mech.code, rewards.BERNOULLI, par, mech.n, fpar, ipar, 1, True, h)
    t0 = time.perf_counter()
    secagg.draw(rng, mech.code, rewards.BERNOULLI, par, mech.n, fpar, ipar, 40, True, h)
    return 40 * mech.n / (time.perf_counter() - t0)


def _python_reference_pps(name, scale):
    """Pulls per second of the plain-Python per-user Algorithm 1 (tests/reference.py)."""
    T_ref, runs = 20_000, 3
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(runs):
        reference.protocol_se(rng, [0.75, 0.7, 0.7, 0.7, 0.7], T_ref,
                              lambda n: protocols.mechanism(name, n, 0.5, 0.1, scale),
                              0.1, 4.0, [T_ref])
    return runs * T_ref / (time.perf_counter() - t0)


@pytest.mark.parametrize("algo", list(SETUP))
def test_distributed_at_scale(benchmark, algo):
    name, scale = SETUP[algo]
    kw = dict(instance="easy", arms=10, epsilon=0.5, horizon=T, runs=RUNS, seed=1, threads=1)
    if algo == "dist-rdp-se":
        kw["scale"] = scale
    bandsim.simulate(algo, **{**kw, "runs": 10})  # warm-up: JIT compile / cache load
    benchmark.pedantic(bandsim.simulate, args=(algo,), kwargs=kw, rounds=3, iterations=1)
    median = benchmark.stats.stats.median
    pps = RUNS * T / median
    kernel = _per_user_kernel_pps(name, scale)
    python = _python_reference_pps(name, scale)
    benchmark.extra_info.update(pulls_per_second=pps, per_user_kernel_users_per_second=kernel,
                                python_reference_pulls_per_second=python,
                                speedup_vs_per_user_kernel=pps / kernel,
                                speedup_vs_python_reference=pps / python)
    print(f"\n{algo}: median {median:.3f} s for {RUNS:,} runs × T = {T:.0e}; {pps:.3g} pulls/s; "
          f"per-user kernel {kernel:.3g} users/s (ratio {pps / kernel:.3g}); "
          f"Python per-user reference {python:.3g} pulls/s (ratio {pps / python:.3g})")
