"""``bandsim plugin check``: validation, exact and sampled audits and a smoke run, a verdict."""
import json
import sys
import textwrap

import pytest

from bandsim import registry
from bandsim.cli import main

GOOD = '''
import bandsim
from bandsim.plugin import BatchedElimination, EPSILON, P, GROWTH, plan_protocol

bandsim.register(BatchedElimination(
    name="{name}", summary="Dist-DP-SE under another name", trust="distributed ε-DP",
    source="tests", params=(EPSILON, P, GROWTH),
    plan=lambda prm, arms, horizon: plan_protocol("dist-dp", prm, arms, horizon),
    mechanism="dist-dp"))
'''

WEAK = '''
import dataclasses

import bandsim
from bandsim.plugin import BatchedElimination, EPSILON, P, GROWTH, plan_protocol
from bandsim.privacy import controls

central = bandsim.plugin.get_mechanism("central")
bandsim.register(dataclasses.replace(
    central, name="chk-weak-central",
    batch=lambda n, epsilon, p=0.1: controls.under_noised(central.batch(n, epsilon=epsilon, p=p),
                                                          0.3)))
bandsim.register(BatchedElimination(
    name="chk-weak-se", summary="CDP-SE with 30 % less noise than claimed", trust="central ε-DP",
    source="tests", params=(EPSILON, P, GROWTH),
    plan=lambda prm, arms, horizon: plan_protocol("chk-weak-central", prm, arms, horizon),
    mechanism="chk-weak-central"))
'''

INVALID = '''
import bandsim
from bandsim.plugin import BatchedElimination, Param, plan_protocol

bandsim.register(BatchedElimination(
    name="chk-invalid-se", summary="x", trust="none", source="tests",
    params=(Param("q", 2.0, lo=0.0, hi=1.0),), plan=lambda *a: None, mechanism="none"))
'''


@pytest.fixture
def module(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []

    def make(name, code):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(code))
        made.append(name)
        return name
    yield make
    for name in made:
        sys.modules.pop(name, None)
    registry.unregister("chk-good-se", "chk-weak-se", "chk-weak-central", "chk-invalid-se")


def run(capsys, *args):
    code = main(["plugin", "check", *args, "--draws", "100000", "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_good_plugin_passes_every_check(module, capsys):
    code, out = run(capsys, module("chk_good", GOOD.format(name="chk-good-se")))
    assert code == 0 and isinstance(out, list)  # --json is a list of checks; verdict = exit
    assert {r["target"] for r in out} == {"chk_good"}
    checks = {r["check"]: r["status"] for r in out}
    assert checks == {"validation": "PASS", "exact audit": "PASS", "sampled audit": "PASS",
                      "smoke run": "PASS"}


def test_an_under_noised_plugin_fails_its_exact_audit(module, capsys):
    code, out = run(capsys, module("chk_weak", WEAK))
    assert code == 1
    status = {(r["declaration"], r["check"]): r["status"] for r in out}
    assert status[("algorithm chk-weak-se", "exact audit")] == "FAIL"
    assert status[("mechanism chk-weak-central", "validation")] == "PASS"
    assert status[("algorithm chk-weak-se", "smoke run")] == "PASS"  # it runs, it is not private


def test_an_invalid_declaration_fails_with_the_field_named(module, capsys):
    code, out = run(capsys, module("chk_invalid", INVALID))
    assert code == 1
    (row,) = out
    assert row["check"] == "load and validation" and row["status"] == "FAIL"
    assert "algorithm 'chk-invalid-se' params[q].default=2.0" in row["text"]
    assert "chk-invalid-se" not in registry.algorithms()


def test_nothing_to_check_exits_2(capsys):
    assert main(["plugin", "check", "no_such_plugin_module_xyz"]) == 2
    err = capsys.readouterr().err
    assert "target='no_such_plugin_module_xyz' is invalid" in err and len(err.splitlines()) == 1


def test_an_installed_distribution_is_checked_by_its_name(tmp_path):
    import subprocess

    from tests.test_loading import make_plugin

    make_plugin(tmp_path, "chk-dist", "chk_dist", GOOD.format(name="chk-dist-se"))
    out = subprocess.run([sys.executable, "-m", "bandsim.cli", "plugin", "check", "chk-dist",
                          "--draws", "100000", "--json"], capture_output=True, text=True,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
                         timeout=300)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert {r["declaration"] for r in rows} == {"algorithm chk-dist-se"}
    assert all(r["status"] == "PASS" for r in rows)


def test_the_table_shows_the_plugins_text_as_is(module, capsys):
    # the failure names params[q]: rich would take "[q]" for markup if it were not escaped
    assert main(["plugin", "check", module("chk_invalid", INVALID)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "params[q].default=2.0" in out and "FAIL: chk_invalid (1 failed check(s))" in out


def test_help_describes_the_checks_the_exit_status_and_the_json_list():
    from bandsim.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    plugin = sub.choices["plugin"]
    assert "sampled audit" in plugin.description and len(plugin.description) > 80
    check = next(a for a in plugin._actions if a.dest == "plugin_command").choices["check"]
    text = " ".join(check.format_help().split())
    assert "exit 0 PASS, 1 FAIL, 2 nothing to check" in text
    assert "one strict JSON list with one object per check" in text


@pytest.mark.parametrize("flags, field", [(["--epsilon", "-1"], "epsilon"),
                                          (["--epsilon", "nan"], "epsilon"),
                                          (["--batch-size", "0"], "batch_size"),
                                          (["--draws", "0"], "draws")])
def test_bad_numbers_fail_closed_before_the_plugin_is_imported(flags, field, capsys):
    """Like every other command: one line naming the field and its range, exit 2, and the
    target (which does not exist) is never looked at."""
    assert main(["plugin", "check", "no_such_plugin_module_xyz", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {field}=") and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("name", ["x,y", "x y", "a/b", "-x", "x-", "1x", "x--y", ""])
def test_a_name_outside_the_catalogues_form_is_refused(module, name, capsys):
    """An algorithm named ``x,y`` could never be asked for (``--algorithm x,y`` is a list)."""
    assert main(["plugin", "check", module("chk_badname", GOOD.format(name=name))]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "must be a name of the catalogue's form" in out, out


@pytest.mark.parametrize("audit", [["--sampled", "--batch-size", "16"],
                                   ["--whole-run", "--horizon", "2000"]])
def test_a_plugins_plan_error_in_an_audit_is_one_line_naming_it(audit, capsys):
    """The sampled audit plans an episodic engine's hooks and the whole-run audit plans the
    run it records: a plug-in's plan() raising there is the same one line, exit 2."""
    import dataclasses

    import bandsim

    def plan(prm, arms, horizon):
        return 1 / 0

    bandsim.register(dataclasses.replace(registry.get_algorithm("adap-ucb"),
                                         name="chk-plan-raises-audit", plan=plan), replace=True)
    try:
        code = main(["audit", "chk-plan-raises-audit", "--epsilon", "1", *audit])
        err = capsys.readouterr().err
        assert code == 2
        assert [line for line in err.splitlines() if line.strip()] == [
            "error: plug-in algorithm 'chk-plan-raises-audit' plan() raised ZeroDivisionError: "
            "division by zero"], err
    finally:
        registry.unregister("chk-plan-raises-audit")


def test_a_plugins_plan_error_is_one_line_naming_it(capsys):
    """plan() raising is the plug-in's bug: one line naming it and the error, exit 2."""
    import bandsim
    from bandsim.plugin import EPSILON, BatchedElimination

    def plan(prm, arms, horizon):
        return 1 / 0

    bandsim.register(BatchedElimination(name="chk-plan-raises", summary="s", trust="none",
                                        source="tests", params=(EPSILON,), plan=plan,
                                        mechanism="laplace"), replace=True)
    try:
        code = main(["run", "chk-plan-raises", "--instance", "C2", "--arms", "3", "--epsilon",
                     "1", "--horizon", "1000", "--runs", "2", "--seed", "1"])
        err = capsys.readouterr().err
        assert code == 2
        assert [line for line in err.splitlines() if "error" in line] == [
            "error: plug-in algorithm 'chk-plan-raises' plan() raised ZeroDivisionError: "
            "division by zero"], err
        assert "Traceback" not in err
    finally:
        registry.unregister("chk-plan-raises")
