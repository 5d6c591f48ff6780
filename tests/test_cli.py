import json
import subprocess
import sys

import numpy as np

from bandsim import Result
from bandsim.cli import main


def test_list_names_every_algorithm_and_instance(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("dp-se", "batch-se", "C1", "C4", "easy", "hard"):
        assert name in out


def test_run_json_and_parquet(tmp_path, capsys):
    path = tmp_path / "r.parquet"
    code = main(["run", "dp-se", "--instance", "C2", "--arms", "5", "--epsilon", "0.25",
                 "--horizon", "1e6", "--runs", "200", "--seed", "1", "--json",
                 "--out", str(path)])
    assert code == 0
    s, = json.loads(capsys.readouterr().out)  # always a list, also for one configuration
    assert s["algorithm"] == "dp-se" and s["runs"] == 200 and s["horizon"] == 10**6
    res = Result.from_parquet(path)
    assert res.summary()["regret_mean"] == s["regret_mean"]
    assert res.config["seed"] == 1


def test_run_grid_prints_one_table(tmp_path, capsys):
    code = main(["run", "dp-se,batch-se", "--instance", "C1,C3", "--arms", "3",
                 "--epsilon", "0.5,1", "--horizon", "1e5", "--runs", "64", "--seed", "2",
                 "--out", str(tmp_path)])
    assert code == 0
    out = capsys.readouterr().out
    table = "\n".join(line for line in out.splitlines() if line.startswith("│"))
    assert table.count("dp-se") == 4 and table.count("batch-se") == 2  # ε irrelevant to it
    assert "different confidences (dp-se beta=1e-05, batch-se p=0.1)" in out  # and says so
    assert len(list(tmp_path.glob("*.parquet"))) == 6


def test_bad_input_exits_2_with_one_clear_line(capsys):
    code = main(["run", "dp-se", "--instance", "C1", "--arms", "5", "--epsilon", "-1",
                 "--horizon", "1e6"])
    assert code == 2
    err = capsys.readouterr().err
    assert "epsilon=-1.0 is invalid" in err and "Traceback" not in err


def test_param_of_no_requested_algorithm_is_rejected(capsys):
    assert main(["run", "batch-se", "--instance", "C1", "--arms", "3", "--beta", "0.1",
                 "--horizon", "1e4"]) == 2
    assert "beta" in capsys.readouterr().err


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "bandsim.cli", "run", "batch-se",
                          "--means", "0.9,0.5", "--horizon", "1000", "--runs", "10",
                          "--json"], capture_output=True, text=True, check=True).stdout
    s, = json.loads(out)
    assert s["instance"] == "means" and np.isfinite(s["regret_mean"])


def test_reproduce_and_sweep_commands(tmp_path, capsys):
    # the wiring, not the drawing (test_figures.py draws every figure): a small PNG only
    assert main(["reproduce", "thesis-6.3", "--out", str(tmp_path), "--runs", "10",
                 "--horizon", "1e4", "--dpi", "40", "--format", "png"]) == 0
    assert (tmp_path / "thesis-6.3.png").exists()
    study = tmp_path / "s.toml"
    study.write_text('[study]\nhorizon = 1e4\nruns = 10\n[grid]\nalgorithm = ["batch-se"]\n'
                     'instance = ["C1", "C2"]\narms = [3]\n')
    assert main(["sweep", str(study), "--out", str(tmp_path / "sw")]) == 0
    out = capsys.readouterr().out
    assert "batch-se" in out and (tmp_path / "sw" / "summary.parquet").exists()
    assert main(["reproduce", "nope", "--out", str(tmp_path)]) == 2
