"""The event-driven Lazy-DP-TS engine (kernels.lazy_events) against the per-round reference.

* its incomplete beta functions are SciPy's, bit for bit;
* it equals the per-round engine in law: two-sample KS on the regret at T/2 and T and on
  every N_a(T), two configurations (K, ε, T), fixed seeds, each p-value ≥ 1e-4;
* negative control: the same KS family rejects (some p < 1e-6) a reference whose
  optimism c_shift is 20 % too small — the size of a realistic mistake.

The larger comparison (more T, ε and K) and the speed ratio at T = 10⁸ are in
benchmarks/lazy_events.py.
"""
import numpy as np
import pytest
from scipy import special, stats

from bandsim.algorithms import episodic
from bandsim.kernels import lazy_events
from bandsim.kernels.codes import BERNOULLI
from bandsim.kernels.shard import make_shard

SPREAD = [0.75, 0.625, 0.5, 0.375, 0.25]
#: (means, ε, T, runs per engine)
CASES = [([0.7, 0.6, 0.5], 1.0, 2000, 2000), (SPREAD, 0.5, 3000, 800)]


def test_incomplete_beta_is_scipys_bit_for_bit():
    lazy_events.bind_special_functions()
    rng = np.random.default_rng(3)
    for scale in (1.0, 1e2, 1e4, 1e7):
        a, b = 1.0 + scale * rng.random(20), 1.0 + scale * rng.random(20)
        x = rng.random(20)
        for k in range(20):
            assert lazy_events.betainc(a[k], b[k], x[k]) == special.betainc(a[k], b[k], x[k])
            assert lazy_events.betaincc(a[k], b[k], x[k]) == special.betaincc(a[k], b[k], x[k])
            assert (lazy_events.betaincinv(a[k], b[k], x[k])
                    == special.betaincinv(a[k], b[k], x[k]))
            assert (lazy_events.betainccinv(a[k], b[k], x[k])
                    == special.betainccinv(a[k], b[k], x[k]))


def engine_outputs(engine, means, eps, horizon, runs, seed, constants=None):
    """Regret at T/2 and T and every N_a(T) of ``runs`` runs of one engine (the plan's
    kernel on one shard; no whole-run audit, which ``bandsim.simulate`` would add)."""
    plan = episodic.plan_lazy_dp_ts(dict(epsilon=eps, engine=engine), len(means), horizon)
    if constants is not None and engine == "events":
        plan.c_shift = constants["c_shift"]
    elif constants is not None:  # the per-round engine: the posterior sampler's constants
        plan.c = np.array([0.0, constants["c_shift"] * constants["log_factor"]])
    K = len(means)
    gaps = np.tile(max(means) - np.asarray(means, float), (runs, 1))
    rpar = np.zeros((runs, K, 4))
    rpar[:, :, 0] = means
    cps = np.array([horizon // 2, horizon], np.int64)
    out, pulls = np.zeros((runs, 2)), np.zeros((runs, K), np.int64)
    plan.run_shard(np.random.default_rng(seed),
                   make_shard(gaps, BERNOULLI, rpar, horizon, cps, out, pulls,
                              np.zeros((runs, K), np.int64)))
    assert np.all(pulls.sum(1) == horizon)
    return [out[:, 0], out[:, 1]] + [pulls[:, a] for a in range(K)]


def _ks(x, y):
    return [stats.ks_2samp(u, v).pvalue for u, v in zip(x, y)]


@pytest.mark.parametrize("means, eps, horizon, runs", CASES)
def test_events_engine_equals_the_per_round_engine_in_law(means, eps, horizon, runs):
    events = engine_outputs("events", means, eps, horizon, runs, seed=21)
    reference = engine_outputs("per-round", means, eps, horizon, runs, seed=22)
    p = _ks(events, reference)
    assert min(p) >= 1e-4, p


def test_the_law_test_detects_too_little_optimism():
    means, eps, horizon, runs = CASES[0]
    events = engine_outputs("events", means, eps, horizon, runs, seed=21)
    k = episodic.lazy_dp_ts_constants(eps)
    weak = engine_outputs("per-round", means, eps, horizon, runs, seed=22,
                  constants=dict(k, c_shift=0.8 * k["c_shift"]))
    p = _ks(events, weak)
    assert min(p) < 1e-6, p
