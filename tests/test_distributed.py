"""The algorithms of seed 003 on the elimination engine vs the per-user reference."""
import math

import numpy as np
import pytest

import bandsim
from bandsim.mechanisms import secagg as protocols
from bandsim.algorithms.elimination import batch_size, confidence_radius
from bandsim.cli import main
from tests import reference
from tests.conftest import ALPHA
from tests.stats import chi2_two_sample

ALGOS = {"dist-dp-se": ("dist-dp", {}), "dist-rdp-se": ("dist-rdp", {"scale": 10.0}),
         "dist-cdp-se": ("dist-cdp", {"scale": 10.0}), "cdp-se": ("central", {}),
         "ldp-se": ("local", {}), "dist-dp-se-shuffle": ("dist-dp-shuffle", {})}


@pytest.mark.parametrize("algo", ["dist-dp-se", "dist-rdp-se", "dist-dp-se-shuffle"])
def test_engine_matches_the_per_user_reference(algo):
    name, extra = ALGOS[algo]
    means, T, runs, eps, p, growth = [0.7, 0.5, 0.45], 2500, 300, 1.0, 0.1, 4.0
    if algo == "dist-dp-se-shuffle":
        p = 0.05
    res = bandsim.simulate(algo, means=means, epsilon=eps, p=p, growth=growth, horizon=T,
                           runs=runs, seed=3, checkpoints=[T // 3, T], **extra)
    s = extra.get("scale", 1.0)
    rng = np.random.default_rng(4)
    ref = [reference.protocol_se(rng, means, T, lambda n: protocols.mechanism(name, n, eps, p, s),
                                 p, growth, [T // 3, T]) for _ in range(runs)]
    ref_regret = np.array([r[0][-1] for r in ref])
    ref_pulls = np.array([r[1][0] for r in ref])
    assert chi2_two_sample(res.pseudo_regret[:, -1], ref_regret) > ALPHA
    assert chi2_two_sample(res.pulls[:, 0], ref_pulls) > ALPHA


@pytest.mark.parametrize("algo", list(ALGOS))
def test_plan_uses_the_protocol_parameters_and_lemma_2(algo):
    name, extra = ALGOS[algo]
    T = 10**6
    prep = bandsim.runner.prepare(algo, instance="C2", arms=5, epsilon=0.5, horizon=T,
                                  runs=1, seed=1, **extra)
    params = prep.config["params"]
    assert params["growth"] == 4.0
    assert params["p"] == (1 / (2 * T) if algo == "dist-dp-se-shuffle" else 0.1)
    plan = prep.plan
    for s, st in enumerate(prep.config["stages"]):
        n = batch_size(s + 1, 4.0)
        mech = protocols.mechanism(name, n, 0.5, params["p"], extra.get("scale", 1.0))
        assert (st["n"], st["g"], st["tau"], st["m"]) == (n, mech.g, mech.tau, mech.m)
        assert st["bits"] == math.ceil(math.log2(st["m"]))
        assert tuple(plan.ipar[s, 5]) == (mech.g, mech.tau, mech.m)
        for k in (2, 5):
            w = 2 * confidence_radius(s + 1, k, n, params["p"], mech.sigma, mech.h)
            assert plan.width[s, k] == pytest.approx(w, rel=1e-12)
    priv = prep.config["privacy"]
    assert priv["mechanism"] == name and "guarantee" in priv
    if algo == "dist-rdp-se":
        assert priv["rdp_epsilon"][0] == pytest.approx(protocols.skellam_rdp(2, 0.5, 10.0))
        assert priv["rdp_alpha"][0] == 2
    if algo == "dist-cdp-se":
        assert priv["rho"] == pytest.approx(priv["epsilon_hat"] ** 2 / 2)
        assert priv["dgauss_tv_bound_max"] == 0.0  # s = 10
    if algo in ("dist-dp-se", "cdp-se", "ldp-se", "dist-dp-se-shuffle"):
        assert priv["epsilon"] == 0.5
    if algo == "dist-dp-se-shuffle":
        assert priv["epsilon_secagg"] == 0.25 and priv["epsilon_relaxation"] == 0.125
        assert priv["relax_q"] == 1 / (2 * T) and "Not simulated" in priv["simulated"]


def test_dist_dp_tail_constants_are_those_of_section_6():
    # σ = √2/ε, h = 1/ε when g = ε√n exactly (seed 003, Section 6)
    mech = protocols.mechanism("dist-dp", 400, 0.5)
    assert mech.g == 10 and mech.sigma == pytest.approx(math.sqrt(2) / 0.5)
    assert mech.h == pytest.approx(1 / 0.5)


def test_privacy_and_stages_survive_parquet(tmp_path):
    res = bandsim.simulate("dist-rdp-se", instance="C1", arms=3, epsilon=0.5, horizon=10**5,
                           runs=10, seed=1)
    res.to_parquet(tmp_path / "r.parquet")
    back = bandsim.Result.from_parquet(tmp_path / "r.parquet")
    assert back.config["privacy"]["rdp_alpha"][:2] == [2, 3]
    assert back.config["stages"][0]["g"] == res.config["stages"][0]["g"]


def test_cli_prints_the_per_batch_table(capsys):
    assert main(["run", "dist-dp-se", "--instance", "easy", "--arms", "4", "--epsilon", "0.5",
                 "--horizon", "1e5", "--runs", "20", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "per-batch protocol parameters" in out and "bits/user" in out
    assert "305" in out  # m of batch 3: n = 64, g = 4, τ = 24


def test_more_privacy_means_more_regret_and_local_is_worst():
    kw = dict(instance="C2", arms=5, horizon=10**6, runs=300, seed=2)
    r = {a: bandsim.simulate(a, epsilon=0.5, **kw).pseudo_regret[:, -1].mean()
         for a in ("dist-dp-se", "dist-rdp-se", "ldp-se")}
    assert r["dist-rdp-se"] < r["dist-dp-se"] < r["ldp-se"]
    lo = bandsim.simulate("dist-dp-se", epsilon=0.1, **kw).pseudo_regret[:, -1].mean()
    assert lo > r["dist-dp-se"]
