"""Episodic index policies and private Thompson sampling (beyond the seeds), one thread.

* every algorithm at T = 10⁷ on the paper instance (K = 5, μ = 0.75 … 0.25,
  ε = 1): simulated pulls per second, and the ratio to its per-pull Python
  reference (``tests/reference.py``) measured in this session on a shorter
  horizon (target ≥ 10³ for the episodic engine);
* ``adap-ucb`` at K = 5, T = 10⁸, 1,000 runs (target well under 2 s).

Everything goes through ``bandsim.simulate`` with one thread (the runner's
planning, privacy and bookkeeping included).
"""
import time

import numpy as np
import pytest

import bandsim
from tests import reference_beyond as reference

K = 5
MEANS = [0.75, 0.625, 0.5, 0.375, 0.25]
EPS = 1.0

#: name → (params, reference function, its extra arguments, engine runs at T = 1e7,
#: reference horizon)
CASES = {
    "adap-ucb": (dict(epsilon=EPS, alpha=3.1), reference.adap, {}, 1000, 50_000),
    "adap-klucb": (dict(epsilon=EPS, alpha=3.1), reference.adap, dict(kl=True), 1000, 50_000),
    "dp-klucb": (dict(epsilon=EPS, alpha=2.0), reference.dp_kl, {}, 1000, 50_000),
    "dp-imed": (dict(epsilon=EPS, alpha=2.0), reference.dp_kl, dict(imed=True), 1000, 50_000),
    "lazy-dp-ts": (dict(epsilon=EPS), reference.lazy_dp_ts, {}, 1, 5_000),
    "dp-ts": (dict(epsilon=EPS), reference.dp_ts, {}, 1, 5_000),
}


def simulate(name, params, horizon, runs, seed=1):
    """``bandsim.simulate`` on the paper instance, one thread; returns (regret, pulls)."""
    res = bandsim.simulate(name, means=MEANS, horizon=horizon, runs=runs, seed=seed,
                           threads=1, **params)
    return res.pseudo_regret, res.pulls


def _reference_pps(name):
    params, fn, extra, _, horizon = CASES[name]
    runs = 3
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for _ in range(runs):
        fn(rng, MEANS, horizon, checkpoints=[horizon], **params, **extra)
    return runs * horizon / (time.perf_counter() - t0)


@pytest.fixture(scope="module")
def ref_pps():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = _reference_pps(name)
        return cache[name]

    return get


@pytest.mark.parametrize("name", list(CASES))
def test_engine_vs_per_pull_reference_at_t_1e7(benchmark, ref_pps, name):
    params, _, _, runs, _ = CASES[name]
    T = 10**7
    simulate(name, params, 1000, 2)  # warm-up: JIT compile / cache load
    rounds = 3 if runs > 1 else 2
    regret, _ = benchmark.pedantic(simulate, args=(name, params, T, runs), rounds=rounds,
                                   iterations=1)
    median = benchmark.stats.stats.median
    pps = runs * T / median
    ref = ref_pps(name)
    benchmark.extra_info.update(pulls_per_second=pps, reference_pulls_per_second=ref,
                                speedup_vs_reference=pps / ref, mean_regret=regret[:, -1].mean())
    print(f"\n{name}: {runs} x T=1e7 in {median:.3f} s (median), {pps:.3g} pulls/s; "
          f"reference {ref:.3g} pulls/s; ratio {pps / ref:.3g}; "
          f"mean regret {regret[:, -1].mean():.0f}")


def test_adap_ucb_1000_runs_at_t_1e8(benchmark):
    T, runs = 10**8, 1000
    params = dict(epsilon=EPS, alpha=3.1)
    simulate("adap-ucb", params, 1000, 2)  # warm-up
    regret, pulls = benchmark.pedantic(simulate, args=("adap-ucb", params, T, runs), rounds=5,
                                       iterations=1)
    median = benchmark.stats.stats.median
    assert (pulls.sum(axis=1) == T).all()
    benchmark.extra_info.update(seconds=median, pulls_per_second=runs * T / median,
                                mean_regret=regret[:, -1].mean())
    print(f"\nadap-ucb: 1,000 runs x T=1e8 in {median:.3f} s (median), "
          f"{runs * T / median:.3g} pulls/s, mean regret {regret[:, -1].mean():.0f}")
