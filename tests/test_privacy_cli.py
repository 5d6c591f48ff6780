"""`bandsim audit` and the privacy every simulation result carries."""
import json

import pytest

import bandsim
from bandsim.cli import main


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_audit_one_batch_prints_claimed_vs_exact(capsys):
    rc, out, _ = run(capsys, "audit", "dist-dp-se", "--epsilon", "0.5", "--batch-size", "1024")
    assert rc == 0
    assert "claimed" in out and "exact" in out and "PASS" in out and "m = 16,577" in out


def test_audit_grid_summary_and_json(capsys):
    rc, out, _ = run(capsys, "audit", "dist-dp-se,dist-rdp-se,sdp-ae", "--epsilon", "0.1,1",
                     "--batch-size", "16", "--delta", "1e-6")
    assert rc == 0 and out.count("PASS") == 6 and "sdp-ae" in out
    rc, out, _ = run(capsys, "audit", "dist-cdp-se", "--epsilon", "1", "--batch-size", "16",
                     "--json")
    d = json.loads(out)
    assert rc == 0 and d["passed"] and d["rows"][0]["short"] == "ρ"


def test_audit_all_skips_shuffle_without_delta(capsys):
    rc, out, _ = run(capsys, "audit", "all", "--epsilon", "1", "--batch-size", "16")
    assert rc == 0 and "sdp-ae, vb-sdp-ae skipped" in out


def test_audit_exit_status_1_on_fail(monkeypatch, capsys):
    from bandsim.privacy import audit as audit_impl

    real = audit_impl.audit_laplace
    monkeypatch.setattr(audit_impl, "audit_laplace",
                        lambda b, eps, n, **k: real(b / 100, eps, n, **k))  # 100× less noise
    rc, out, _ = run(capsys, "audit", "dp-se", "--epsilon", "0.5", "--batch-size", "10")
    assert rc == 1 and "FAIL" in out


def test_returning_users_compose_and_calibrate(capsys):
    rc, out, _ = run(capsys, "audit", "dist-rdp-se", "--epsilon", "0.1", "--batch-size", "256",
                     "--returning", "10", "--target-delta", "1e-6")
    assert rc == 0 and "Theorem 2" in out and "total ε" in out
    rc, out, _ = run(capsys, "audit", "dist-dp-se,dist-cdp-se", "--returning", "10",
                     "--target-epsilon", "1", "--target-delta", "1e-6", "--batch-size", "256",
                     "--json")
    rows = json.loads(out)
    assert rc == 0 and {r["algorithm"] for r in rows} == {"dist-dp-se", "dist-cdp-se"}
    basic = [r for r in rows if r["method"].startswith("basic")][0]
    assert basic["epsilon_per_batch"] == pytest.approx(0.1, rel=1e-4)


@pytest.mark.parametrize("argv,field", [
    (["audit", "dist-dp-se", "--batch-size", "64"], "epsilon"),
    (["audit", "nope", "--epsilon", "1"], "algorithm"),
    (["audit", "dist-dp-se", "--epsilon", "1", "--target-epsilon", "1"], "target_epsilon"),
    (["audit", "--returning", "4", "--target-epsilon", "1"], "target_delta"),
    (["audit", "sdp-ae", "--epsilon", "1"], "delta"),
])
def test_bad_input_exits_2_with_one_message(capsys, argv, field):
    rc, _, err = run(capsys, *argv)
    assert rc == 2 and field in err and "Traceback" not in err


def test_results_carry_the_claim_and_the_audit_of_the_largest_batch(tmp_path):
    res = bandsim.simulate("dist-dp-se", instance="C1", arms=3, epsilon=0.5, horizon=20_000,
                           runs=4, seed=1)
    priv = res.config["privacy"]
    a = priv["audit"]
    assert priv["epsilon"] == 0.5 and priv["theorem"].endswith("Theorem 1")
    assert a["batch_size"] == max(st["n"] for st in res.config["stages"])
    assert a["passed"] and a["matches_plan"] and a["exact"] == pytest.approx(0.5, abs=1e-9)
    assert a["command"].startswith("bandsim audit dist-dp-se --epsilon 0.5 --batch-size")
    res.to_parquet(tmp_path / "r.parquet")
    back = bandsim.Result.from_parquet(tmp_path / "r.parquet")
    assert back.config["privacy"]["audit"] == json.loads(json.dumps(a))


def test_results_privacy_for_other_trust_models():
    def priv(name, **kw):
        return bandsim.runner.prepare(name, instance="C1", arms=3, horizon=10_000, runs=2,
                                      seed=1, **kw).config["privacy"]

    assert priv("ucb1") == {"guarantee": "none"}
    p = priv("dp-se", epsilon=0.25)
    assert p["epsilon"] == 0.25 and p["audit"]["passed"]
    p = priv("sdp-ae", epsilon=0.5, delta=1e-6)
    assert p["delta"] == 1e-6 and p["audit"]["passed"] and p["audit"]["matches_plan"]
    p = priv("dist-cdp-se", epsilon=0.5)
    assert "rho" in p and p["audit"]["passed"]  # H's window: cheap at n = 4096
    assert priv("dp-ucb", epsilon=0.5)["audit"]["passed"]  # the tree's composition
    assert "skipped" in priv("dp-se2", epsilon=0.5)["audit"]  # SVT: no exact audit
    p = bandsim.runner.prepare("dist-rdp-se", instance="C1", arms=3, horizon=10**8, runs=2,
                               seed=1, epsilon=0.5).config["privacy"]
    assert "not cheap" in p["audit"]["skipped"] and p["audit"]["command"]


@pytest.mark.parametrize("extra", [[], ["--sampled"], ["--returning", "3", "--target-delta", "1e-6"]])
def test_a_batch_larger_than_any_horizon_is_refused_in_one_line(extra, capsys):
    """A batch holds at most T ≤ 10¹⁰ users: --batch-size 1e40 was audited (PASS at
    n = 10⁴⁰ for dp-se, whose law does not depend on n) or blamed on ε elsewhere."""
    assert main(["audit", "dp-se", "--epsilon", "1", "--batch-size", "1e40", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: batch_size=") and err.endswith("at most 10,000,000,000"), err
