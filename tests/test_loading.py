"""Plug-in loading cannot break bandsim: built-ins first, each plug-in package whole or not at all.

Plug-in packages are built in a temporary directory as a module plus a
``*.dist-info`` directory (``METADATA``, ``entry_points.txt``): what pip
installs, found by ``importlib.metadata`` on ``PYTHONPATH``, without a build.
"""
import json
import subprocess
import sys
import textwrap

import pytest

ADAP_CLASH = '''
import bandsim
from bandsim.algorithms.elimination import plan_batch_se
from bandsim.params import P, GROWTH, Param

bandsim.register(bandsim.Algorithm(
    name="adap-ucb", summary="a plug-in that takes a built-in's name", trust="none",
    source="tests", params=(Param("p", 0.2, lo=0.0, hi=1.0, help="HIJACKED help"), GROWTH),
    plan=plan_batch_se, mechanism="none"), replace=True)
'''


def make_plugin(site, dist, module, code, version="0.1", entry=None):
    """A minimal installed distribution ``dist`` with module ``module`` and one entry point."""
    (site / module).mkdir(parents=True)
    (site / module / "__init__.py").write_text(textwrap.dedent(code))
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(
        f"[bandsim.plugins]\n{module} = {entry or module}\n")


def run(site, *args, code=None, timeout=240):
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "PYTHONWARNINGS": "default"}
    argv = [sys.executable, "-c", code] if code else [sys.executable, "-m", "bandsim.cli", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


def warnings_of(stderr):
    return [line for line in stderr.splitlines() if "UserWarning" in line]


def test_a_plugin_taking_a_builtin_name_leaves_every_builtin_working(tmp_path):
    make_plugin(tmp_path, "clash-plugin", "clash_plugin", ADAP_CLASH)
    listing = run(tmp_path, "list")
    assert listing.returncode == 0, listing.stderr
    warns = warnings_of(listing.stderr)
    assert len(warns) == 1 and listing.stderr.strip() == warns[0], listing.stderr  # one line
    assert "clash-plugin 0.1" in warns[0] and "bandsim (built-in)" in warns[0]
    assert "adap-ucb" in warns[0] and "skipped" in warns[0]
    out = run(tmp_path, code=(
        "import json, bandsim, warnings\n"
        "warnings.simplefilter('ignore')\n"
        "from bandsim import registry\n"
        "a = registry.get_algorithm('adap-ucb')\n"
        "res = bandsim.simulate('adap-ucb', instance='C2', arms=3, epsilon=1, horizon=2000,"
        " runs=4, seed=1, threads=1)\n"
        "print(json.dumps([type(a).__name__, registry.all_params()['p'].help,"
        " res.config['algorithm'], 'plugins' in res.config]))"))
    assert out.returncode == 0, out.stderr
    kind, help_p, name, has_plugins = json.loads(out.stdout)
    assert kind == "EpisodicIndex" and name == "adap-ucb" and not has_plugins
    assert "HIJACKED" not in help_p


def test_two_plugins_with_one_name_the_newcomer_is_skipped_whole(tmp_path):
    twin = '''
    import bandsim
    from bandsim.algorithms.elimination import plan_batch_se
    from bandsim.params import P, GROWTH
    for name in ("twin-se", "{own}"):
        bandsim.register(bandsim.Algorithm(name=name, summary="{dist}", trust="none",
                         source="tests", params=(P, GROWTH), plan=plan_batch_se,
                         mechanism="none"), replace=True)
    '''
    make_plugin(tmp_path, "aaa-plugin", "aaa_plugin", twin.format(own="aaa-own", dist="aaa"))
    make_plugin(tmp_path, "bbb-plugin", "bbb_plugin", twin.format(own="bbb-own", dist="bbb"),
                version="2.0")
    out = run(tmp_path, code=(
        "import json, warnings\n"
        "from bandsim import registry\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    algos = registry.algorithms()\n"
        "print(json.dumps([algos['twin-se'].summary, 'aaa-own' in algos, 'bbb-own' in algos,"
        " [str(x.message) for x in w], registry.origin('twin-se')]))"))
    assert out.returncode == 0, out.stderr
    summary, aaa, bbb, warns, origin = json.loads(out.stdout)
    assert summary == "aaa" and aaa and not bbb  # the loser is not half-registered
    assert len(warns) == 1
    assert "bbb-plugin 2.0" in warns[0] and "aaa-plugin 0.1" in warns[0]
    assert origin["distribution"] == "aaa-plugin" and len(origin["sha256"]) == 64


def test_a_failing_plugin_registers_nothing(tmp_path):
    make_plugin(tmp_path, "half-plugin", "half_plugin", '''
    import bandsim
    from bandsim.algorithms.elimination import plan_batch_se
    from bandsim.params import P, GROWTH
    bandsim.register(bandsim.Algorithm(name="half-se", summary="x", trust="none",
                     source="tests", params=(P, GROWTH), plan=plan_batch_se, mechanism="none"))
    raise RuntimeError("broken after one registration")
    ''')
    make_plugin(tmp_path, "exit-plugin", "exit_plugin", '''
    import sys
    print("noise on stdout")
    sys.exit(3)
    ''')
    listing = run(tmp_path, "list")
    assert listing.returncode == 0, listing.stderr
    assert "half-se" not in listing.stdout
    warns = warnings_of(listing.stderr)
    assert len(warns) == 2
    assert any("half-plugin" in w and "broken after one registration" in w for w in warns)
    assert any("exit-plugin" in w and "SystemExit 3" in w for w in warns)
    assert "noise on stdout" in listing.stderr and "noise on stdout" not in listing.stdout


def test_plugin_output_cannot_corrupt_json_and_a_simulating_plugin_does_not_hang(tmp_path):
    make_plugin(tmp_path, "chatty-plugin", "chatty_plugin", '''
    import bandsim
    from bandsim.algorithms.elimination import plan_batch_se
    from bandsim.params import P, GROWTH
    print("hello from a plug-in")
    bandsim.register(bandsim.Algorithm(name="chatty-se", summary="x", trust="none",
                     source="tests", params=(P, GROWTH), plan=plan_batch_se, mechanism="none"))
    res = bandsim.simulate("chatty-se", instance="C2", arms=3, horizon=20000, runs=64,
                           seed=1, threads=4)
    print("simulated at import", res.summary()["regret_mean"])
    ''')
    # its own name loads it (plug-ins load on demand: a built-in's run would not)
    out = run(tmp_path, "run", "chatty-se", "--means", "0.9,0.5", "--horizon", "1000", "--runs",
              "4", "--seed", "1", "--json", "--threads", "2")
    assert out.returncode == 0, out.stderr
    (row,) = json.loads(out.stdout)  # --json is a list, also for one row
    assert row["algorithm"] == "chatty-se"
    assert "hello from a plug-in" in out.stderr


def test_a_plugin_on_builtin_mechanisms_loads_and_records_its_provenance(tmp_path):
    code = '''
    import bandsim
    from bandsim.algorithms.episodic import plan_dp_ts
    from bandsim.params import EPSILON
    VERSION = {v}
    bandsim.register(bandsim.plugin.PerRoundThompson(
        name="my-dp-ts", summary="DP-TS under another name", source="tests",
        params=(EPSILON,), plan=plan_dp_ts, mechanism="dp-ts-composition",
        rewards=("bernoulli",)))
    '''
    make_plugin(tmp_path, "ts-plugin", "ts_plugin", code.format(v=1))
    probe = ("import json, bandsim\n"
             "res = bandsim.simulate('my-dp-ts', instance='C2', arms=3, epsilon=1, horizon=500,"
             " runs=2, seed=1, threads=1)\n"
             "print(json.dumps(res.config['plugins']))")
    first = run(tmp_path, code=probe)
    assert first.returncode == 0, first.stderr
    (prov,) = json.loads(first.stdout)
    assert prov["distribution"] == "ts-plugin" and prov["version"] == "0.1"
    assert prov["entry_point"] == "ts_plugin = ts_plugin" and len(prov["sha256"]) == 64
    (tmp_path / "ts_plugin" / "__init__.py").write_text(textwrap.dedent(code.format(v=2)))
    second = run(tmp_path, code=probe)
    assert json.loads(second.stdout)[0]["sha256"] != prov["sha256"]  # changed code, new key


def test_register_works_straight_after_import():
    code = ("import bandsim\n"
            "from bandsim.plugin import BatchedElimination, EPSILON, P, GROWTH, plan_protocol\n"
            "bandsim.register(BatchedElimination(name='early-se', summary='x',"
            " trust='distributed ε-DP (SecAgg)', source='tests', params=(EPSILON, P, GROWTH),"
            " plan=lambda prm, arms, horizon: plan_protocol('dist-dp', prm, arms, horizon),"
            " mechanism='dist-dp'))\n"
            "from bandsim import registry\n"
            "print(registry.origin('early-se')['distribution'], len(registry.algorithms()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["(run", "time)", "22"]


@pytest.mark.parametrize("name", ["adap-ucb", "dist-dp"])
def test_builtins_cannot_be_replaced_at_run_time(name):
    import dataclasses

    import bandsim
    from bandsim import registry

    decl = (registry.algorithms() | registry.mechanisms())[name]
    with pytest.raises(bandsim.ConfigError, match=r"registered already by bandsim \(built-in\)"):
        bandsim.register(dataclasses.replace(decl, summary="mine"), replace=True)
    assert (registry.algorithms() | registry.mechanisms())[name] is decl


def test_list_names_the_distribution_of_a_plugin(tmp_path):
    make_plugin(tmp_path, "named-plugin", "named_plugin", '''
    import bandsim
    from bandsim.algorithms.elimination import plan_batch_se
    from bandsim.plugin import BatchedElimination, P, GROWTH
    bandsim.register(BatchedElimination(name="named-se", summary="x", trust="none",
                     source="tests", params=(P, GROWTH), plan=plan_batch_se, mechanism="none"))
    ''', version="3.1")
    out = run(tmp_path, "list")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.replace("│", " ").split())
    assert "named-se (plug-in named-plugin 3.1)" in text or (
        "named-se" in text and "named-plugin" in text and "3.1)" in text)
