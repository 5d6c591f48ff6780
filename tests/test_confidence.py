"""The confidence parameter is one declared notion: comparisons name it, run at it, or warn."""
import json

import numpy as np
import pytest

import bandsim
from bandsim import confidence, registry
from bandsim.cli import main
from bandsim.errors import ConfigError
from bandsim.params import CONFIDENCE, P, Param
from bandsim.studies.sweep import plan_grid

C2 = ["--instance", "C2", "--arms", "5", "--horizon", "1e5", "--runs", "20", "--seed", "3"]


def test_every_beta_and_p_is_the_confidence_and_no_algorithm_has_two():
    for a in registry.algorithms().values():
        named = [p.name for p in a.params if p.name in ("beta", "p")]
        assert [p.name for p in a.params if p.role == CONFIDENCE] == named, a.name
    assert confidence.param_of("dp-se") == "beta" and confidence.param_of("cdp-se") == "p"
    assert confidence.param_of("ucb1") is None


def test_a_declaration_with_two_confidences_is_refused():
    from bandsim.validation import check_params

    with pytest.raises(ConfigError, match="already"):
        check_params("algorithm 'x'", (P, Param("q", 0.1, lo=0, hi=1, role=CONFIDENCE)))
    with pytest.raises(ConfigError, match="role"):
        check_params("algorithm 'x'", (Param("q", 0.1, lo=0, hi=1, role="trust"),))


def test_single_run_defaults_are_the_papers():
    """DP-SE keeps β = 1/T (the thesis, Chapter 6); Chowdhury & Zhou keep p = 0.1."""
    s = bandsim.simulate("dp-se", instance="C2", arms=5, epsilon=0.5, horizon=10**4, runs=2,
                         seed=1).summary()
    assert (s["confidence_param"], s["confidence"]) == ("beta", 1e-4)
    s = bandsim.simulate("dist-dp-se", instance="C2", arms=5, epsilon=0.5, horizon=10**4,
                         runs=2, seed=1).summary()
    assert (s["confidence_param"], s["confidence"]) == ("p", 0.1)


def test_run_confidence_is_each_algorithms_own_parameter(capsys):
    assert main(["run", "dp-se,dist-dp-se", *C2, "--epsilon", "0.1", "--confidence", "0.1",
                 "--json"]) == 0
    out = capsys.readouterr()
    rows = json.loads(out.out)
    assert [(r["confidence_param"], r["confidence"]) for r in rows] == [("beta", 0.1),
                                                                         ("p", 0.1)]
    assert "warning" not in out.err
    assert main(["run", "dp-se", *C2, "--epsilon", "0.1", "--beta", "0.1", "--json"]) == 0
    same = json.loads(capsys.readouterr().out)[0]
    assert same["regret_mean"] == rows[0]["regret_mean"]  # the same simulation


def test_a_mixed_comparison_says_so_in_its_table(capsys):
    assert main(["run", "dp-se,dist-dp-se", *C2, "--epsilon", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "1e-05 (beta)" in out and "0.1 (p)" in out
    assert "different confidences (dp-se beta=1e-05, dist-dp-se p=0.1)" in out.replace("\n", " ")
    # one algorithm alone, or a confidence swept alike for every algorithm: no warning
    rows = [dict(algorithm=a, confidence=c, confidence_param=n) for a, n in
            (("dp-se", "beta"), ("cdp-se", "p")) for c in (0.1, 0.01)]
    assert confidence.mixed(rows) is None
    assert confidence.mixed(rows[:1] + rows[2:3]) is None  # same value
    assert confidence.mixed(rows[:1] + rows[3:]) is not None


def test_confidence_flag_fails_closed(capsys):
    for argv, text in ((["ucb1", "--confidence", "0.1"], "declares a confidence"),
                       (["dp-se", "--epsilon", "1", "--confidence", "0.1", "--beta", "0.2"],
                        "not both"),
                       (["dp-se", "--epsilon", "1", "--confidence", "2"], "(0, 1)")):
        assert main(["run", *argv, *C2]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: confidence=") and text in err, err


def test_a_sweep_key_confidence_sets_each_algorithms_parameter():
    _, jobs, _ = plan_grid("s", {"horizon": 10**5, "confidence": 0.1},
                           {"algorithm": ["dp-se", "cdp-se", "ucb1"], "instance": ["C2"]})
    by = {j["algorithm"]: j for j in jobs}
    assert by["dp-se"]["beta"] == 0.1 and by["cdp-se"]["p"] == 0.1
    assert "confidence" not in by["ucb1"] and "beta" not in by["ucb1"]
    with pytest.raises(ConfigError, match="confidence"):
        plan_grid("s", {"horizon": 10**5, "confidence": 0.1}, {"algorithm": ["ucb1"]})


def test_results_table_names_the_confidences(tmp_path, capsys):
    assert main(["run", "dp-se,cdp-se", *C2, "--epsilon", "0.5", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["results", str(tmp_path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted(r["confidence"] for r in rows) == [1e-5, 0.1]
    assert main(["results", str(tmp_path)]) == 0
    assert "different confidences" in capsys.readouterr().out.replace("\n", " ")
    assert np.isfinite([r["regret_mean"] for r in rows]).all()


def test_the_suite_sets_one_confidence_and_its_board_states_it():
    from bandsim.studies import leaderboard, suite

    p = suite.plan("quick")
    for job in p.jobs:
        declares = registry.get_algorithm(job.algorithm).confidence is not None
        assert job.confidence == (suite.CONFIDENCE if declares else None), job.algorithm
    job = next(j for j in p.jobs if j.algorithm == "dp-se")
    res, secs = suite.run_job(suite.Job("dp-se", job.instance, 10**4, 4, 1, 0.5,
                                        confidence=suite.CONFIDENCE))
    assert res.config["params"]["beta"] == suite.CONFIDENCE  # not the single-run 1/T
    row = suite.row_of(job, res, secs)
    assert (row["confidence"], row["confidence_param"]) == (0.1, "beta")
    assert leaderboard.confidence_text([row]) == "0.1 (beta)"
    other = dict(row, algorithm="cdp-se", confidence=1e-4, confidence_param="p")
    lines = leaderboard.confidence_lines({"confidence": 0.1}, [row, other])
    assert lines[0].startswith("confidence 0.1") and "different confidences" in lines[1]


def test_simulate_takes_the_one_name_too():
    kw = dict(instance="C2", arms=5, epsilon=0.5, horizon=10**4, runs=4, seed=2)
    a = bandsim.simulate("dp-se", confidence=0.05, **kw)
    b = bandsim.simulate("dp-se", beta=0.05, **kw)
    assert a.config["params"]["beta"] == 0.05
    assert np.array_equal(a.pseudo_regret, b.pseudo_regret)
    with pytest.raises(ConfigError, match="confidence"):
        bandsim.simulate("dp-se", confidence=0.05, beta=0.1, **kw)
    with pytest.raises(ConfigError, match="declares no confidence"):
        bandsim.simulate("ucb1", confidence=0.05, instance="C2", arms=5, horizon=100, runs=2)
