"""The three privacy audits of the fixed-confidence engines, and hand-made mutants they FAIL.

Exact: the top-two engine's episode sums are audited at the scale its plan hands
the kernel (a plan at 0.8/ε FAILs). Sampled: the release primitive at that scale.
Whole run (:mod:`bandsim.bai.wholerun`): a mutant of the release both engines call
(:func:`kernels._jit.rebind`, compiled once per engine, the mutation chosen by an
extra entry of the plan's ``fpar``) with its noise drawn at 80 % of the recorded
scale, the true sum released, arm 1 reusing the noise of arm 0's last episode
(epoch) of its size, or the engine reading the true sum where it reads the
release: each FAILs with a line naming the check and (for the laws) the release
class.
"""
import numpy as np
import pytest
from numba import njit

from bandsim.bai import audit, declarations
from bandsim.cli import main
from bandsim.kernels import bai, codes, record, toptwo
from bandsim.kernels._jit import rebind

C3 = audit.C3


def _plan(name="adap-tt", eps=1.0, budget=10**6):
    algo = declarations.get(name)
    return algo.plan(algo.resolve({"epsilon": eps, "delta": 0.01}, budget), 5, budget)


def test_exact_audit_reads_the_top_two_plan_and_fails_a_thin_one(capsys):
    assert main(["audit", "adap-tt", "--epsilon", "0.1"]) == 0
    assert "adap-tt ε=0.1 Lap(10): PASS" in capsys.readouterr().out
    plan = _plan(eps=0.1)
    assert audit.plan_scales(plan) == [(pytest.approx(10.0), 1)]
    plan.tables.fpar[0] *= 0.8  # negative control: 20 % too little noise on every episode
    rep, = audit.exact("adap-tt", 0.1, plan=plan)
    assert not rep.passed and rep.rows[0].exact == pytest.approx(0.125)
    # ... and one that releases the episode sums exactly (mechanism code NONE)
    plan.tables = plan.tables._replace(mech=np.int64(codes.NONE))
    none, = audit.exact("adap-tt", 0.1, plan=plan)
    assert not none.passed and none.params["noise"] == "none"
    assert audit.has_exact(declarations.get("adap-tt-star"))
    assert not audit.has_exact(declarations.get("tt-ucb"))  # not private


def test_sampled_audit_of_the_release_primitive_at_the_plans_scale():
    good, = audit.sampled("adap-tt", 0.5, draws=10**6, seed=1)
    assert good.code == 0, good.verdict()
    plan = _plan(eps=0.5)
    plan.tables.fpar[0] *= 0.8  # the primitive draws Lap(1.6): ε = 0.625 > 0.5
    bad, = audit.sampled("adap-tt", 0.5, draws=10**6, seed=1, plan=plan)
    assert bad.code == 1 and bad.bounds[0].epsilon_lb > 0.5


def test_whole_run_passes_and_states_its_power():
    r = audit.whole_run("adap-tt", 1.0, runs=400, seed=2, budget=10**6)
    assert r["verdict"] == "PASS", r["failures"]
    assert r["scale_ok"] and r["blocks_ok"] and r["replay_ok"]
    assert r["epsilon_replay"] == pytest.approx(1.0)  # one release moved by one reward
    assert r["power"]["min_floor"] >= 1000 and "pair class" in r["power_text"]
    e = audit.whole_run("dp-se-bai", 1.0, runs=200, seed=2)
    assert e["verdict"] in ("PASS", "inconclusive") and not e["failures"]


@njit
def _mutant_estimate(rng, mech, rcode, rpar, n, fpar, ipar, rec, run, t0, arm):
    """``kernels.protocols.batch_estimate`` (Laplace) with mutation ``fpar[1]``."""
    s = record.rsum(rng, rec, run, t0, arm, rcode, rpar, n)
    z = rng.laplace(0.0, fpar[0])
    mode = fpar[1]
    if mode == 1.0:  # noise drawn at 80 % of the recorded scale
        z *= 0.8
    elif mode == 2.0:  # the true sum released
        z = 0.0
    elif mode == 3.0:  # arm 1 reuses the noise of arm 0's last episode (epoch) of its size
        k = np.int64(np.log2(n) + 0.5)
        if arm == 0:
            fpar[2 + k] = z
        elif arm == 1 and fpar[2 + k] != 0.0:  # once arm 0 has had a k-th episode
            z = fpar[2 + k]
    v = record.release(rec, run, t0 + n, arm, n, codes.LAW_LAPLACE, 0, s, fpar[0], s + z)
    return s if mode == 4.0 else v  # 4: the engine reads the true sum


@pytest.fixture(scope="module")
def mutant_engines():
    return {m: rebind(m.run_shard, {"batch_estimate": _mutant_estimate}) for m in (toptwo, bai)}


@pytest.mark.parametrize("name, kernel", [("adap-tt", toptwo), ("dp-se-bai", bai)])
@pytest.mark.parametrize("mode, start", [
    (1.0, "(g) law: release class laplace (n = "),
    (2.0, "(g) law: release class laplace (n = "),
    (3.0, "(h) independence: pair class across arms, the k-th release of one tag (laplace"),
    (4.0, "(r) replay: every other reward mirrored"),
])
def test_hand_made_mutants_fail_with_a_line_naming_class_and_check(mutant_engines, monkeypatch,
                                                                   name, kernel, mode, start):
    monkeypatch.setattr(kernel, "run_shard", mutant_engines[kernel])
    plan = _plan(name)
    f = plan.tables.fpar  # (1,) top two, (S, K + 1, F) elimination: the mode beside the scale
    fpar = np.zeros(f.shape[:-1] + (72,))
    fpar[..., 0], fpar[..., 1] = f[..., 0], mode
    plan.tables = plan.tables._replace(fpar=fpar)
    r = audit.whole_run(name, 1.0, runs=300, seed=3, plan=plan)
    assert r["verdict"] == "FAIL"
    assert any(line.startswith(start) for line in r["failures"]), r["failures"]


def test_participation_catches_a_cumulative_release():
    # a release that covers its arm's earlier rewards again (a cumulative sum): n > drawn
    rec, tau, _, _ = audit.record_replay.record(_plan(), np.array(C3), 20,
                                                np.random.default_rng(0))
    rel, _, blk = audit.record_replay._rows(rec)
    assert audit.record_replay.participation(rel, blk, tau) == []
    bad = rel.copy()
    bad[7, record.REL_N] += 1
    line, = audit.record_replay.participation(bad, blk, tau)
    assert line.startswith("(p) participation: release class laplace (n = ")


@pytest.mark.parametrize("flags, field", [(["--returning", "3", "--target-delta", "1e-6"],
                                           "returning"), (["--horizon", "100"], "horizon"),
                                          (["--draws", "5000"], "draws"),
                                          (["--sampled", "--whole-run"], "sampled")])
def test_audit_refuses_regret_flags_in_one_line(flags, field, capsys):
    assert main(["audit", "adap-tt", "--epsilon", "0.1", *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {field}=")


def test_identification_names_in_regret_lookups_and_the_suite(capsys, tmp_path):
    from bandsim.errors import ConfigError
    from bandsim.registry import get_algorithm

    with pytest.raises(ConfigError, match="is a best-arm identification algorithm: "
                                          "bandsim.simulate_bai"):
        get_algorithm("adap-tt")
    # BAI names only: no (empty) regret board; its flags refused in one line
    assert main(["suite", "--algorithms", "adap-tt", "--dry-run"]) == 0
    assert "no regret configurations: --algorithms names best-arm identification" in \
        capsys.readouterr().out
    assert main(["suite", "--algorithms", "adap-tt", "--compare", str(tmp_path)]) == 2
    assert "--compare is for the regret board" in capsys.readouterr().err
