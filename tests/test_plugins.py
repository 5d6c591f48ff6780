"""Plug-ins: the two worked examples of docs/plugins.md run as written, a plug-in
mechanism gets the per-user path, the exact audit (PASS, and FAIL when under-noised)
and the accountant, and an installed plug-in package appears in the CLI."""
import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import bandsim
from bandsim.cli import main
from bandsim.registry import algorithms, get_algorithm, get_mechanism, unregister
from tests.conftest import ALPHA
from tests.stats import chi2_two_sample

DOC = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"


def doc_blocks():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


EXAMPLE_NAMES = ("greedy-dist-se", "dist-binomial", "dist-binomial-se", "dist-binomial-weak",
                 "dist-binomial-weak-se", "dp-moss", "private-etc", "rr", "rr-se", "rr-weak",
                 "rr-weak-se", "own-etc", "own-etc-shared", "tree-ucb", "gauss-dp-ts")


@pytest.fixture(scope="module")
def examples():
    """Run both examples of docs/plugins.md once; unregister them afterwards."""
    out = []
    for code in doc_blocks():
        ns = {"__name__": "docs_plugins_example"}
        exec(compile(code, str(DOC), "exec"), ns)
        out.append(ns)
    yield out
    unregister(*EXAMPLE_NAMES)
    assert not set(EXAMPLE_NAMES) & set(algorithms())


def test_the_doc_has_eight_examples_and_the_audit_block():
    assert len(doc_blocks()) == 9


def test_example_a_runs_a_new_elimination_algorithm(examples):
    res = examples[0]["res"]
    assert res.config["algorithm"] == "greedy-dist-se"
    assert np.all(res.pulls.sum(axis=1) == 10**6)
    assert res.config["privacy"]["audit"]["passed"]
    # its widths are its own: narrower than Algorithm 1's at the same batches
    a = bandsim.runner.prepare("greedy-dist-se", instance="C2", arms=5, epsilon=0.5,
                               horizon=10**6, runs=2, seed=1).plan
    b = bandsim.runner.prepare("dist-dp-se", instance="C2", arms=5, epsilon=0.5,
                               horizon=10**6, runs=2, seed=1).plan
    assert np.array_equal(a.batch, b.batch) and np.all(a.width[1:, 2:] < b.width[1:, 2:])
    assert np.array_equal(a.fpar, b.fpar) and np.array_equal(a.ipar, b.ipar)


def test_example_b_mechanism_passes_and_its_weak_twin_fails(examples):
    from bandsim.privacy.audit import audit

    assert audit("dist-binomial-se", 0.5, 64).passed
    weak = audit("dist-binomial-weak-se", 0.5, 64)
    assert not weak.passed and weak.failures[0].exact > 1e3 * 1e-6
    assert main(["audit", "dist-binomial-se", "--epsilon", "0.5", "--batch-size", "64"]) == 0
    assert main(["audit", "dist-binomial-weak-se", "--epsilon", "0.5",
                 "--batch-size", "64"]) == 1


def test_plugin_mechanism_passes_the_sampled_audit_and_its_weak_twin_fails(examples):
    """The sampled audit runs a plug-in's own kernels (batched and per user, 10⁶ draws)."""
    from bandsim.privacy.sampled import kernel_mechanisms, sampled

    assert {"dist-binomial", "dist-binomial-weak"} <= set(kernel_mechanisms())
    good = sampled("dist-binomial-se", 0.5, 8, delta=1e-6)
    assert good.code == 0, good.verdict()
    paths = {c.path for c in good.checks}
    assert {"batched", "per-user", "per-user, x₁ = 0.99"} <= paths  # fractional too
    weak = sampled("dist-binomial-weak-se", 0.5, 8, delta=1e-6)
    assert weak.code == 1 and all(c.passed for c in weak.checks)  # right law, too little noise
    assert main(["audit", "dist-binomial-se", "--epsilon", "0.5", "--batch-size", "8",
                 "--delta", "1e-6", "--sampled"]) == 0


def test_plugin_mechanism_batched_equals_per_user(examples):
    """The per-user twin comes for free: same law as the batched draw (two-sample χ²)."""
    from bandsim.mechanisms import secagg

    b = secagg.mechanism("dist-binomial", 16, 1.0, 0.1, delta=1e-6)
    x = np.full(16, 0.3)
    fast = b.outputs(x, size=20_000, rng=1)
    slow = b.outputs(x, size=20_000, rng=2, path="per-user")
    assert chi2_two_sample(np.round(fast * b.g), np.round(slow * b.g)) > ALPHA
    # and the total noise has the declared variance T/4 (4-sigma band of the sample variance)
    noise = b.total_noise(size=50_000, rng=3)
    var = b.noise_variance
    assert abs(noise.var() - var) < 4 * var * np.sqrt(2 / noise.size)
    assert abs(noise.mean()) < 4 * np.sqrt(var / noise.size)


def test_plugin_mechanism_gets_the_accountant(examples):
    from bandsim.privacy.accountant import compose

    rows = compose("dist-binomial-se", 0.5, 64, returning=4, delta=1e-5)
    eps = {r.method: r.epsilon for r in rows}
    assert any("advanced" in m for m in eps) and all(np.isfinite(list(eps.values())))


def test_example_f_an_engine_of_its_own_is_recorded_and_audited_like_ours(examples, capsys):
    """Example (f): a plug-in engine that draws and releases through the primitive of
    bandsim.plugin is recorded by ``bandsim audit NAME --whole-run``: its releases form a
    release class of check (g) and a pair class of check (h); its twin, one Laplace draw
    shared by the arms, FAILs (h) in one line naming the pair class and the check."""
    ns = examples[6]
    w = ns["res"].config["privacy"]["whole_run"]
    assert w["verdict"] == "PASS" and w["horizon"] == 10**5
    assert w["power"]["classes"] == 1 and w["power"]["min_draws"] >= 1000  # its Laplace class
    assert w["power"]["pairs"] >= 1 and w["neighbours"] > 0
    lines = ns["twin"].failures
    assert lines and all(f.startswith("(h) independence: pair class across arms at one time "
                                      "(laplace)") and "\n" not in f for f in lines), lines
    # one code path: its recording with no changed user is its production run
    from bandsim.wholerun.driver import play

    means, picks = (0.701, 0.7, 0.699), set()  # close: the noise decides the commit
    for seed in range(6):
        prod = bandsim.simulate("own-etc", means=list(means), horizon=10**5, runs=1,
                                seed=seed, epsilon=0.5)
        ss = np.random.SeedSequence(seed).spawn(2)[1].spawn(1)[0]
        run = play("own-etc", prod.config["params"], means, 10**5,
                   rng=np.random.default_rng(ss))
        assert np.array_equal(run.pulls, prod.pulls[0]) and len(run.rel) == 3
        assert run.regret[-1] == prod.pseudo_regret[0, -1]
        picks.add(int(np.argmax(run.pulls)))
    assert len(picks) > 1  # the check could see a shifted stream
    assert main(["audit", "own-etc", "--whole-run"]) == 0
    assert main(["audit", "own-etc-shared", "--whole-run"]) == 1
    out = capsys.readouterr().out
    assert "PASS" in out and "FAIL" in out and "across arms at one time" in out


def test_example_f_under_noised_fails_g_in_its_release_class(examples):
    """The same engine drawing Lap(0.7 b) and recording b: (g) names its Laplace class."""
    import dataclasses

    import numba

    from bandsim.kernels._jit import rebind
    from bandsim.wholerun import audit

    ns = examples[6]
    thin = rebind(ns["etc_engine"], {"laplace_draw": numba.njit(
        lambda rng, b: rng.laplace(0.0, 0.7 * b))})

    class Thin(ns["ETCPlan"]):
        def run_shard(self, rng, shard, rec=None):
            thin(rng, shard.gaps, shard.rcode, shard.rpar, shard.horizon, shard.checkpoints,
                 shard.regret, shard.pulls, shard.elim, self.m, self.b, self.shared, rec)

    base = get_algorithm("own-etc")
    bandsim.register(dataclasses.replace(base, name="own-etc-thin", plan=lambda p, k, t: Thin(
        min(p["explore"], t // k), 1 / p["epsilon"], False)), replace=True)
    try:
        r = audit("own-etc-thin")
    finally:
        unregister("own-etc-thin")
    lines = [f for f in r.failures if f.startswith("(g) law: release class laplace (n = 2000, "
                                                  "scale 2)")]
    assert r.verdict == "FAIL" and lines and all("\n" not in f for f in lines), r.failures
    assert not [f for f in r.failures if f.startswith(("(a)", "(b)", "(c)", "(d)"))]


def test_register_refuses_bad_declarations():
    with pytest.raises(bandsim.ConfigError, match="algorithm 'dp-se' is registered already by bandsim"):
        bandsim.register(algorithms()["dp-se"].__class__(
            **{**algorithms()["dp-se"].__dict__, "summary": "x"}), replace=True)
    with pytest.raises(bandsim.ConfigError, match="mechanism"):
        bandsim.register(bandsim.Algorithm(name="x-se", summary="x", trust="none", source="x",
                                           params=(), plan=lambda *a: None,
                                           mechanism="no-such-mechanism"))
    with pytest.raises(bandsim.ConfigError, match="Algorithm or"):
        bandsim.register("dp-se")
    assert get_mechanism("dist-dp").kind == "pure"


PLUGIN_MODULE = '''
"""A tiny plug-in: a renamed copy of example (a) of bandsim's docs/plugins.md."""
import bandsim
from bandsim.algorithms.elimination import plan_protocol
from bandsim.params import EPSILON, GROWTH, P


def register():
    bandsim.register(bandsim.Algorithm(
        name="tiny-dist-se", summary="a plug-in from an installed package",
        trust="distributed ε-DP (SecAgg)", source="tests/test_plugins.py",
        params=(EPSILON, P, GROWTH),
        plan=lambda prm, arms, horizon: plan_protocol("dist-dp", prm, arms, horizon),
        mechanism="dist-dp"))
'''

PLUGIN_PYPROJECT = '''
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "tiny-bandsim-plugin"
version = "0.0.1"

[project.entry-points."bandsim.plugins"]
tiny = "tiny_bandsim_plugin:register"
'''


def test_an_installed_plugin_package_appears_in_the_cli(tmp_path):
    src = tmp_path / "src"
    (src / "tiny_bandsim_plugin").mkdir(parents=True)
    (src / "tiny_bandsim_plugin" / "__init__.py").write_text(textwrap.dedent(PLUGIN_MODULE))
    (src / "pyproject.toml").write_text(PLUGIN_PYPROJECT)
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--target", str(site), str(src)],
                   check=True, capture_output=True)
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "bandsim.cli", *args], env=env,
                              capture_output=True, text=True, timeout=300)

    listing = cli("list")
    assert listing.returncode == 0 and "tiny-dist-se" in listing.stdout
    run = cli("run", "tiny-dist-se", "--means", "0.9,0.5", "--epsilon", "1", "--horizon",
              "100000", "--runs", "20", "--seed", "1", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)[0]["algorithm"] == "tiny-dist-se"
    audit = cli("audit", "tiny-dist-se", "--epsilon", "0.5", "--batch-size", "64")
    assert audit.returncode == 0 and "PASS" in audit.stdout


def test_the_new_examples_appear_in_list_run_and_both_audits(examples, capsys):
    """Examples (c)–(g): an index policy, a decision rule, a release mechanism and its twin,
    a per-step index over the tree and a Thompson posterior sampler (the last two also
    through the whole-run audit, which records and replays their hooks in the engine)."""
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    assert all(n in listing for n in ("dp-moss", "private-etc", "rr-se", "rr-weak-se",
                                      "tree-ucb", "gauss-dp-ts"))
    for name, horizon, extra in (("dp-moss", 100_000, []),
                                 ("private-etc", 100_000, ["--explore", "2000"]),
                                 ("rr-se", 100_000, []), ("tree-ucb", 20_000, []),
                                 ("gauss-dp-ts", 20_000, [])):  # O(T) engines: the sweep's short T
        argv = ["run", name, "--means", "0.9,0.5", "--epsilon", "1", "--horizon", str(horizon),
                "--runs", "20", "--seed", "1", "--json", *extra]
        assert main(argv) == 0, name
        assert json.loads(capsys.readouterr().out)[0]["algorithm"] == name
    for name, exact, sampled in (("rr-se", 0, 0), ("rr-weak-se", 0, 1), ("private-etc", 0, 0),
                                 ("dp-moss", 0, 0), ("gauss-dp-ts", 0, 0), ("tree-ucb", 0, 0)):
        base = ["audit", name, "--epsilon", "1", "--batch-size", "16"]
        assert main(base) == exact, name
        assert main(base + ["--sampled"]) == sampled, name
    for name in ("tree-ucb", "gauss-dp-ts"):  # the whole-run verdict each run computed
        res = bandsim.simulate(name, means=[0.9, 0.5], epsilon=1.0, horizon=20_000, runs=20,
                               seed=1)
        assert res.config["privacy"]["whole_run"]["verdict"] == "PASS", name
    capsys.readouterr()


def test_the_new_examples_run_in_sweep_and_suite_and_the_broken_twin_is_not_ranked(
        examples, tmp_path, capsys):
    """Examples (c)–(e) through ``bandsim sweep`` and ``bandsim suite``: the suite runs the
    plug-ins' sampled audit, so rr-weak-se (half the declared flips) FAILs, is listed under
    "failed audit (not ranked)" and the suite exits 1; rr-se (the same law, drawn right)
    is ranked."""
    import math

    import pyarrow.parquet as pq

    from bandsim.studies import leaderboard as lb
    from bandsim.studies import suite

    names = ("dp-moss", "private-etc", "rr-se", "rr-weak-se", "tree-ucb", "gauss-dp-ts")
    study = tmp_path / "study.toml"
    study.write_text(textwrap.dedent(f"""
        [study]
        name = "plugin-examples"
        horizon = 20000
        runs = 8
        seed = 1
        means = [0.9, 0.5]
        explore = 1000
        [grid]
        algorithm = {list(names)!r}
        epsilon = [1.0]
        """))
    assert main(["sweep", str(study), "--out", str(tmp_path / "sweep")]) == 0
    summary = pq.read_table(tmp_path / "sweep" / "summary.parquet").to_pylist()
    assert sorted(r["algorithm"] for r in summary) == sorted(names)
    assert all(math.isfinite(r["regret_mean"]) for r in summary)

    tiny = suite.Tier("quick", (suite.SuiteInstance("C2-K3", "C2", 3),), (1.0,), (20_000,),
                      runs=8, step_runs=4, budget=0.4, algorithms=names)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(suite.TIERS, "quick", tiny)
        assert main(["suite", "--quick", "--out", str(tmp_path / "suite"),
                     "--no-progress"]) == 1
    capsys.readouterr()
    rows, board, _ = lb.read(tmp_path / "suite")
    by = {r["algorithm"]: r for r in rows if r["role"] == "entry"}
    assert set(by) == set(names)
    assert by["rr-weak-se"]["sampled_verdict"] == "FAIL" and by["rr-weak-se"]["failed_audit"]
    assert math.isnan(by["rr-weak-se"]["rank"])
    assert by["rr-se"]["sampled_verdict"] == "PASS" and by["rr-se"]["rank"] == 1
    assert all(by[n]["sampled_verdict"] == "PASS"
               for n in ("dp-moss", "private-etc", "tree-ucb", "gauss-dp-ts"))
    assert "--sampled" in by["rr-weak-se"]["sampled_command"]
    md = (tmp_path / "suite" / "leaderboard.md").read_text()
    ranked, failed = md.split("failed audit (not ranked)")
    assert "rr-weak-se" in failed and "rr-weak-se" not in ranked.split("every cell")[0]


def test_a_hanging_plugin_cannot_stop_the_builtins(tmp_path):
    """Plug-ins load only when a command needs a name that is not built in (or lists,
    checks or ranks them): ``--version``, a built-in's run and its audits never import a
    plug-in that hangs at import; ``--no-plugins`` keeps even ``list`` to the built-ins."""
    from tests.test_loading import make_plugin, run

    mark = tmp_path / "imported"  # the plug-in says it was imported, then hangs
    make_plugin(tmp_path, "hang-plugin", "hang_plugin",
                f"import pathlib, time\npathlib.Path({str(mark)!r}).touch()\ntime.sleep(600)\n")
    version = run(tmp_path, "--version", timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("bandsim ")
    ran = run(tmp_path, "run", "dp-se", "--instance", "C2", "--arms", "3", "--epsilon", "1",
              "--horizon", "1000", "--runs", "2", "--seed", "1", "--json", timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)[0]["algorithm"] == "dp-se"
    for audit in (["audit", "dp-se", "--epsilon", "1", "--batch-size", "64", "--json"],
                  ["audit", "adap-ucb", "--epsilon", "1", "--whole-run", "--horizon", "2000",
                   "--json"]):  # a built-in's exact and whole-run audits
        audited = run(tmp_path, *audit, timeout=120)
        assert audited.returncode == 0, audited.stderr
        assert json.loads(audited.stdout)["algorithm"] == audit[1], audited.stdout
    listing = run(tmp_path, "--no-plugins", "list", "--json", timeout=120)
    assert listing.returncode == 0, listing.stderr
    assert "dp-se" in {r["name"] for r in json.loads(listing.stdout)}
    after = run(tmp_path, "list", "--json", "--no-plugins", timeout=120)  # after the command too
    assert after.returncode == 0 and after.stdout == listing.stdout, after.stderr
    assert not mark.exists()  # none of the above imported the plug-in
    # The negative control: plain ``list`` imports it (and would hang there).
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen([sys.executable, "-m", "bandsim.cli", "list", "--json"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not mark.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mark.exists() and proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_a_plugins_own_name_still_loads_it_on_demand(tmp_path):
    """Without ``list``: ``run NAME`` of an installed plug-in's algorithm finds it."""
    from tests.test_loading import make_plugin, run

    make_plugin(tmp_path, "lazy-plugin", "lazy_plugin",
                PLUGIN_MODULE.replace("tiny-dist-se", "lazy-se") + "\nregister()\n")
    ran = run(tmp_path, "run", "lazy-se", "--instance", "C2", "--arms", "3", "--epsilon", "1",
              "--horizon", "1000", "--runs", "2", "--seed", "1", "--json", timeout=240)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)[0]["algorithm"] == "lazy-se"
    off = run(tmp_path, "--no-plugins", "run", "lazy-se", "--instance", "C2", "--arms", "3",
              "--epsilon", "1", "--horizon", "1000", "--runs", "2", "--seed", "1", timeout=120)
    assert off.returncode == 2 and "algorithm='lazy-se' is invalid" in off.stderr
