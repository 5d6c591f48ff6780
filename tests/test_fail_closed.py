"""Bad input fails closed: one line naming the field and its range, exit 2, before any work.

The cases are those of ``benchmarks/bad_input.py`` (which runs each in a fresh,
memory-capped process and prints what bandsim says); here they run in-process.
"""
import dataclasses
import json

import pytest

import bandsim
from bandsim.cli import main

C1 = ["--instance", "C1", "--arms", "3"]

CLI = [
    (["run", "dp-se", *C1, "--epsilon", "0.5", "--horizon", "inf"], "horizon"),
    (["run", "dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e400"], "horizon"),
    (["run", "dp-se", *C1, "--epsilon", "inf", "--horizon", "1e5"], "epsilon"),
    (["run", "dp-se", *C1, "--epsilon", "1e-300", "--horizon", "1e5"], "epsilon"),
    (["run", "dp-se", "--instance", "C1", "--arms", "5", "--epsilon", "1e-16",
      "--horizon", "1e5"], "epsilon"),
    (["run", "dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e4", "--out",
      "{tmp}/missing/r.parquet"], "out"),
    (["reproduce", "thesis-6.3", "--out", "{tmp}/rep", "--backend", "dask", "--scheduler",
      "local"], "scheduler"),
    (["reproduce", "thesis-6.3", "--out", "{tmp}/rep", "--scheduler", "tcp://h:1"], "scheduler"),
    (["reproduce", "thesis-6.3", "--out", "{tmp}/rep", "--runs", "0"], "runs"),
    (["reproduce", "thesis-6.3", "--out", "{tmp}/rep", "--horizon", "0"], "horizon"),
    (["run", "dp-se", *C1, "--epsilon", ",", "--horizon", "1e4"], "epsilon"),
    (["audit", "dist-dp-se", "--epsilon", ",", "--batch-size", "64"], "epsilon"),
    (["audit", "dist-dp-se", "--epsilon", "0.5", "--horizon", "inf"], "horizon"),
    (["run", "batch-se", "--instance", "C1", "--means", "0.9,0.1", "--horizon", "1e4"], "means"),
    (["run", "sdp-ae", *C1, "--epsilon", "1e-6", "--delta", "1e-6", "--horizon", "1e7"],
     "epsilon"),
    (["run", "vb-sdp-ae", *C1, "--epsilon", "1e-6", "--delta", "1e-6", "--horizon", "1e7"],
     "epsilon"),
    (["run", "dp-ucb", *C1, "--epsilon", "1e-306", "--horizon", "1e4"], "epsilon"),
    (["run", "dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e5", "--runs", "1e8"], "runs"),
    (["run", "dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e5", "--runs", "1e6",
      "--memory", "64M"], "runs"),
    (["run", "dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e5", "--memory", "lots"],
     "memory"),
    (["run", "cdp-se", *C1, "--epsilon", "1e-15", "--horizon", "1e5"], "epsilon"),
    (["run", "dist-rdp-se", *C1, "--epsilon", "1", "--scale", "1e5", "--horizon", "1e7"],
     "scale"),
    (["run", "dist-cdp-se", *C1, "--epsilon", "1", "--scale", "1e14", "--horizon", "1e3"],
     "scale"),
    (["run", "dp-se", *C1, "--epsilon", "0.5", "--horizon", "abc"], "horizon"),
    (["run", "dp-ucb", *C1, "--epsilon", "0.5", "--gamma", "log2", "--horizon", "1e4"], "gamma"),
]


@pytest.mark.parametrize("argv,field", CLI, ids=[" ".join(a[:2] + a[-2:]) for a, _ in CLI])
def test_cli_bad_input_is_one_line_and_exit_2(argv, field, capsys, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and field in err and "Traceback" not in err
    assert len(err.strip().replace("\n", " ").split("error:")) == 2  # one message
    assert not list(tmp_path.rglob("*.parquet"))  # nothing was written


API = [
    (dict(means="0.9,0.1"), "means"),
    (dict(means=[[0.9, 0.1], [0.5, 0.4]]), "means"),
    (dict(means=[0.9, 0.1], instance="C1"), "means"),
    (dict(instance_file=3), "instance_file"),
    (dict(instance="C1", arms=3, algorithm="dist-dp-se", epsilon=1, growth=float("inf")),
     "growth"),
    (dict(instance="C1", arms=3, algorithm="dist-rdp-se", epsilon=1, scale=float("inf")),
     "scale"),
    (dict(instance="C1", arms=3, horizon=float("inf")), "horizon"),
]


@pytest.mark.parametrize("kw,field", API, ids=[f for _, f in API])
def test_api_bad_input_raises_config_error(kw, field):
    kw = dict(dict(algorithm="batch-se", horizon=10**4, runs=4), **kw)
    with pytest.raises(bandsim.ConfigError) as e:
        bandsim.simulate(kw.pop("algorithm"), **kw)
    assert e.value.field == field


def test_an_unregistered_algorithm_object_is_refused_a_registered_one_accepted():
    from bandsim.registry import get_algorithm

    se = get_algorithm("batch-se")
    res = bandsim.simulate(se, instance="C1", arms=3, horizon=1000, runs=2, seed=1)
    assert res.config["algorithm"] == "batch-se"
    with pytest.raises(bandsim.ConfigError, match="register"):
        bandsim.simulate(dataclasses.replace(se, name="my-se"), instance="C1", arms=3,
                         horizon=1000, runs=2)


def test_out_with_a_trailing_slash_is_a_directory(tmp_path, capsys):
    out = tmp_path / "newdir"
    assert main(["run", "batch-se", *C1, "--horizon", "1e4", "--runs", "4", "--json",
                 "--out", f"{out}/"]) == 0
    assert out.is_dir() and len(list(out.glob("*.parquet"))) == 1
    assert json.loads(capsys.readouterr().out)[0]["out"].startswith(str(out) + "/")


def test_formerly_crashing_inputs_now_run_or_skip_their_audit(capsys):
    """Large ε of the shuffle (e^ε overflow), subnormal δ, a dist-cdp batch whose exact law
    is too large to tabulate, and the discrete-Gaussian ξ of a huge scale."""
    for argv in (["run", "sdp-ae", *C1, "--epsilon", "178", "--delta", "1e-6"],
                 ["run", "vb-sdp-ae", *C1, "--epsilon", "1000", "--delta", "1e-6"],
                 ["run", "sdp-ae", *C1, "--epsilon", "0.5", "--delta", "1e-310"],
                 ["run", "dist-cdp-se", "--means", "0.1,0", "--epsilon", "0.1", "--scale", "1"]):
        assert main(argv + ["--horizon", "1e5", "--runs", "2", "--json"]) == 0, argv
        json.loads(capsys.readouterr().out)
    p = bandsim.runner.prepare("dist-cdp-se", means=[0.1, 0.0], epsilon=0.1, scale=1,
                               horizon=10**5, runs=2).config["privacy"]["audit"]
    assert "too large to tabulate" in p["skipped"]
    from bandsim.mechanisms.noise_bounds import dgauss_xi_log

    assert dgauss_xi_log(2**28, 9e6) < -1e7  # O(1) memory, ξ = 0


def test_audit_pmf_too_large_exits_2_and_json_is_strict(capsys):
    assert main(["audit", "dist-cdp-se", "--epsilon", "0.1", "--batch-size", "65536",
                 "--scale", "1"]) == 2
    assert "cannot audit" in capsys.readouterr().out
    assert main(["audit", "sdp-ae", "--epsilon", "100", "--delta", "1e-6", "--batch-size", "1",
                 "--json"]) == 1
    out = capsys.readouterr().out
    d = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-strict JSON: {c}"))
    assert d["rows"][1]["exact"] is None and "Infinity" not in out


def test_run_json_is_strict(capsys):
    assert main(["run", "batch-se", *C1, "--horizon", "1e4", "--runs", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out,
                   parse_constant=lambda c: pytest.fail(f"non-strict JSON: {c}"))
    assert d[0]["regret_ci95"] is None
