"""Fixed-confidence best-arm identification: engine law, censoring, correctness, summary, bounds.

References: Sajed & Sheffet (ICML 2019) DP-SE, used as a fixed-confidence identifier by
Azize, Jourdan, Al Marjani & Basu (NeurIPS 2023); lower bound of Azize's PhD thesis
(2024), Cor. 4.25 / Prop. 4.26.
"""
import math

import numpy as np
import pytest
from scipy import stats

from bandsim.bai import BAIResult, bounds, declarations, simulate_bai
from bandsim.errors import ConfigError

C3 = [0.75, 0.53125, 0.375, 0.28125, 0.25]


def per_pull_dp_se(mu, eps, delta, runs, rng):
    """Obvious per-pull DP-SE (one uniform per pull, one Laplace per epoch mean)."""
    mu = np.asarray(mu)
    taus = np.zeros(runs, np.int64)
    recs = np.zeros(runs, np.int64)
    for r in range(runs):
        active = list(range(mu.size))
        t, e = 0, 1
        while len(active) > 1:
            k = len(active)
            d = 2.0 ** -e
            l1, l2 = math.log(8 * k * e * e / delta), math.log(4 * k * e * e / delta)
            R = max(32 * l1 / d**2, 8 * l2 / (eps * d)) + 1
            n = int(math.floor(R))
            m = {a: (rng.random(n) < mu[a]).sum() / n + rng.laplace(0, 1 / (eps * n))
                 for a in active}
            t += k * n
            w = 2 * (math.sqrt(l1 / (2 * R)) + l2 / (R * eps))
            best = max(m.values())
            active = [a for a in active if best - m[a] <= w]
            e += 1
        taus[r], recs[r] = t, active[0]
    return taus, recs


def test_stopping_time_law_matches_a_per_pull_reference():
    # C3 at ε = 0.1 stops after 2-4 epochs: τ takes a few values; two-sample KS at 1e-3
    runs = 400
    res = simulate_bai("dp-se-bai", means=C3, epsilon=0.1, delta=0.01, runs=runs, seed=3,
                       threads=1)
    ref, recs = per_pull_dp_se(C3, 0.1, 0.01, runs, np.random.default_rng(4))
    assert res.stopped.all()
    assert np.unique(res.tau).size >= 2  # not a degenerate law
    assert stats.ks_2samp(res.tau, ref).pvalue > 1e-3
    # negative control: 30 % too little noise on the epoch means changes the law
    low, _ = per_pull_dp_se(C3, 0.1 / 0.7, 0.01, runs, np.random.default_rng(5))
    assert stats.ks_2samp(res.tau, low).pvalue < 1e-3
    assert (recs == 0).all() and res.correct.all()


def test_tiny_budget_censors_every_run_and_the_summary_says_so():
    res = simulate_bai("dp-se-bai", instance="C1", arms=5, epsilon=1, delta=0.01, runs=20,
                       budget=1000, seed=1, threads=1)
    s = res.summary()
    assert s["censored"] == 20 and s["stopped"] == 0
    assert (res.recommended == -1).all() and not res.correct.any()
    assert math.isnan(s["tau_mean"]) and math.isnan(s["tau_median"])
    assert s["tau_mean_lower"] == 1000  # min(τ, T_max) over all runs: a lower bound on E[τ]


def not_above(errors, n, delta):
    """The error rate is not significantly above δ: Clopper–Pearson 99.9 % lower limit ≤ δ."""
    return stats.binomtest(errors, n).proportion_ci(0.999).low <= delta


def test_error_rate_at_most_delta_on_a_two_arm_instance():
    mu, delta, runs = [0.52, 0.5], 0.1, 600
    res = simulate_bai("se-bai", means=mu, delta=delta, runs=runs, seed=2, threads=1)
    s = res.summary()
    assert s["censored"] == 0 and not_above(s["errors"], s["stopped"], delta)
    # negative control: the same schedule without confidence width (eliminate the lower
    # epoch-1 mean) errs ≈ 23 % of the time, and the check above catches it
    plan = declarations.get("se-bai").plan(dict(delta=delta), 2, 10**8)
    plan.tables = plan.tables._replace(width=plan.tables.width * 0.0)
    rpar = np.broadcast_to(np.array(mu)[None, :, None], (runs, 2, 1)).copy()
    tau, arm, st = np.zeros(runs, np.int64), np.zeros(runs, np.int64), np.zeros(runs, np.bool_)
    plan.run_shard(np.random.default_rng(1), 0, rpar, tau, arm, st)
    assert st.all() and not not_above(int((arm != 0).sum()), runs, delta)


def test_clopper_pearson_interval_and_censored_median():
    stopped = np.array([True] * 50 + [False] * 10)
    correct = stopped.copy()
    correct[:3] = False
    tau = np.where(stopped, np.arange(60) + 100, 10**6)
    res = BAIResult(tau=tau.astype(np.int64), recommended=np.zeros(60, np.int64),
                    correct=correct, stopped=stopped, config={"budget": 10**6})
    s = res.summary()
    ci = stats.binomtest(3, 50).proportion_ci(0.95, method="exact")
    assert s["error_ci95"] == [ci.low, ci.high] and s["errors"] == 3
    assert s["tau_median"] == np.median(np.r_[np.arange(50) + 100, [np.inf] * 10])
    assert s["tau_mean"] == np.mean(np.arange(50) + 100)


def test_lower_bound_against_hand_computation():
    c2 = [0.75, 0.625, 0.5, 0.375, 0.25]
    assert bounds.t_star_tv(c2) == pytest.approx(8 + 8 + 4 + 8 / 3 + 2)
    lb = bounds.lower_bound(c2, 0.1, 0.01)
    assert lb["bound"] == pytest.approx(246.6667 * math.log(1 / 0.03), rel=1e-5)
    # two arms: T*_KL⁻¹ = max_w w kl(μ1, x) + (1 − w) kl(μ2, x) at the weighted mean x
    w = np.linspace(1e-4, 1 - 1e-4, 200001)
    x = w * 0.6 + (1 - w) * 0.4
    g = bounds._kl(0.6, x) * w + bounds._kl(0.4, x) * (1 - w)
    assert bounds.t_star_kl([0.6, 0.4]) == pytest.approx(1 / g.max(), rel=1e-6)


def test_parquet_round_trip(tmp_path):
    res = simulate_bai("se-bai", instance="C3", arms=5, delta=0.01, runs=70, seed=9, threads=2)
    res.to_parquet(tmp_path / "r.parquet")
    back = BAIResult.from_parquet(tmp_path / "r.parquet")
    assert back == res
    assert simulate_bai("se-bai", instance="C3", arms=5, delta=0.01, runs=70, seed=9,
                        threads=1) == res  # bit-identical for any number of threads
    assert list(back.to_pandas().columns) == ["run", "tau", "recommended", "correct", "stopped"]


@pytest.mark.parametrize("kw, field", [(dict(delta=2), "delta"), (dict(delta=0.01, epsilon=-1),
                                       "epsilon"), (dict(delta=0.01, budget=0), "budget"),
                                       (dict(delta=0.01, instance="C9"), "instance")])
def test_bad_input_is_one_line(kw, field):
    kw = dict(dict(instance="C1", arms=5, epsilon=1.0), **kw)
    with pytest.raises(ConfigError) as e:
        simulate_bai("dp-se-bai", runs=1, **kw)
    assert e.value.field == field and "\n" not in str(e.value)


def test_unknown_algorithm_names_the_known_ones():
    with pytest.raises(ConfigError, match="dp-se-bai"):
        declarations.get("no-such-identifier")


def test_cli_prints_the_table_and_writes_parquet(tmp_path, capsys):
    from bandsim.cli import main

    out = tmp_path / "b.parquet"
    assert main(["bai", "dp-se-bai", "--instance", "C3", "--epsilon", "1", "--delta", "0.01",
                 "--runs", "20", "--seed", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "dp-se-bai" in text and "E[τ]/bound" in text and "163" in text
    assert BAIResult.from_parquet(out).runs == 20


@pytest.mark.parametrize("argv", [["dp-se-bai", "--instance", "C1", "--epsilon", "1",
                                   "--delta", "1.5"],
                                  ["se-bai", "--instance", "C1", "--epsilon", "1",
                                   "--delta", "0.01"],
                                  ["dp-se-bai", "--instance", "C1", "--delta", "0.01"]])
def test_cli_bad_input_is_one_line_exit_2(argv, capsys):
    from bandsim.cli import main

    assert main(["bai", *argv, "--runs", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err


def test_every_epoch_mean_is_released_through_the_recorded_primitive():
    # one recorded run: one Laplace release of scale 1/ε per active arm per epoch, on the
    # epoch sum of ⌊R_e⌋ rewards; the engine's τ is the pulls of the recorded blocks
    from bandsim.kernels import codes, record

    eps, delta = 0.5, 0.01
    plan = declarations.get("dp-se-bai").plan(dict(epsilon=eps, delta=delta), 5, 10**7)
    rec = record.recorder(codes.RECORD, 200)
    rpar = np.array(C3)[None, :, None].copy()
    tau, arm, stopped = np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.bool_)
    plan.run_shard(np.random.default_rng(0), 0, rpar, tau, arm, stopped, rec)
    n_rel = int(rec.counts[1])
    rel, val = rec.rel[:n_rel], rec.val[:n_rel]
    assert stopped[0] and n_rel >= 5
    assert (rel[:, record.REL_LAW] == codes.LAW_LAPLACE).all()
    assert np.allclose(val[:, record.VAL_SCALE], 1 / eps)
    assert rel[:n_rel, record.REL_N].sum() == tau[0]
    assert rel[0, record.REL_N] == plan.stages[0]["n"] == math.floor(plan.stages[0]["R_e"])


@pytest.mark.parametrize("name", sorted(declarations.ALGORITHMS))
def test_declarations_pass_the_registry_validation(name):
    from bandsim import registry, validation

    validation.check(declarations.get(name), registry.mechanisms(),
                     kernel_keys=registry.KERNEL_KEYS, reward_models=registry.REWARD_MODELS,
                     costs=registry.COSTS, compile_hooks=False)
