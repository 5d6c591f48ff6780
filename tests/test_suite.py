"""``bandsim suite``: the standard set, the leaderboard (ranks, privacy cost, verdicts),
its files, ``--compare``, and a plug-in on the board — at a tiny scale (the standard
set is monkeypatched down so the whole module takes seconds)."""
import json
import math
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import bandsim
from bandsim import ConfigError, registry
from bandsim.cli import main
from bandsim.params import EPSILON, GROWTH, P
from bandsim.studies import board_compare
from bandsim.studies import leaderboard as lb
from bandsim.studies import suite

PLUGIN = "suite-test-cdp-se"
TINY = suite.Tier(
    "quick", (suite.SuiteInstance("C2-K3", "C2", 3), suite.OBD), (1.0, 2.0), (5_000,),
    runs=20, step_runs=4, budget=1.0,
    algorithms=("batch-se", "dp-se", "cdp-se", "dist-dp-se", "ldp-se", "adap-ucb", "dp-ucb",
                "lazy-dp-ts", PLUGIN))


def _plugin_plan(params, arms, horizon):
    return registry.get_algorithm("cdp-se").plan(params, arms, horizon)


@pytest.fixture(scope="module")
def plugin():
    """A plug-in registered as docs/plugins.md shows: CDP-SE under another name."""
    registry.algorithms()  # built-ins first
    bandsim.register(bandsim.Algorithm(
        name=PLUGIN, summary="CDP-SE under another name (a test plug-in)",
        trust="central ε-DP", source="Chowdhury & Zhou (ICLR 2023), Theorem 5 (test copy)",
        params=(EPSILON, P, GROWTH), plan=_plugin_plan, mechanism="central",
        provisional=True, family="batch-se"), replace=True)
    yield PLUGIN
    registry._ALGORITHMS.pop(PLUGIN, None)


@pytest.fixture(scope="module")
def boards(plugin, tmp_path_factory):
    """The tiny quick suite through the CLI, twice (the second compares with the first)."""
    out = tmp_path_factory.mktemp("suite")
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(suite.TIERS, "quick", TINY)
        assert main(["suite", "--quick", "--out", str(out / "a"), "--no-progress"]) == 0
        assert main(["suite", "--out", str(out / "b"), "--compare", str(out / "a"),
                     "--no-progress", "--no-cells"]) == 0
    return out / "a", out / "b"


def test_the_standard_set_is_fixed_and_versioned():
    assert suite.SUITE_VERSION == "2026.12"
    full, quick = suite.TIERS["full"], suite.TIERS["quick"]
    keys = [i.key for i in full.instances]
    assert keys == ([f"C{c}-K{k}" for k in (5, 20) for c in (1, 2, 3, 4)]
                    + ["easy-K10-bernoulli", "easy-K10-gaussian", "hard-K10-bernoulli",
                       "hard-K10-gaussian", "obd-all"])
    assert all(i.sigma == 0.1 for i in full.instances)
    assert full.epsilons == (0.1, 0.5, 1.0, 4.0) and full.horizons == (10**6, 10**8)
    assert full.runs == 1000 and suite.DELTA == 1e-6
    assert set(quick.instances) <= set(full.instances) and set(quick.epsilons) <= set(
        full.epsilons) and max(quick.horizons) <= 10**6


def test_every_registered_algorithm_runs_or_is_skipped_with_a_reason(plugin):
    p = suite.plan("full")
    seen = {(j.algorithm, j.instance.key, j.horizon) for j in p.jobs}
    seen |= {(s["algorithm"], s["instance"], s["horizon"]) for s in p.skipped}
    for name in registry.algorithms():
        for inst in suite.TIERS["full"].instances:
            for T in (10**6, 10**8):
                assert (name, inst.key, T) in seen
    assert all(s["reason"] for s in p.skipped)
    # Bernoulli-only algorithms are skipped on Gaussian instances, and say so
    ts = [s for s in p.skipped if s["algorithm"] == "dp-ts" and "gaussian" in s["instance"]]
    assert len(ts) == 4 and all("bernoulli" in s["reason"] for s in ts)
    # one seed per instance × T, shared by every algorithm and ε
    seeds = {}
    for j in p.jobs:
        seeds.setdefault((j.instance.key, j.horizon), set()).add(j.seed)
    assert all(len(s) == 1 for s in seeds.values())
    assert len({next(iter(s)) for s in seeds.values()}) == len(seeds)
    # δ only where an algorithm takes it; the plug-in is on the board
    assert all((j.delta is not None) == bool(registry.get_algorithm(j.algorithm).param("delta"))
               for j in p.jobs)
    assert any(j.algorithm == PLUGIN for j in p.jobs)


def test_fewer_runs_see_the_first_of_the_same_random_instances():
    """O(T) engines get fewer runs: they see a prefix of the instances the others see."""
    from bandsim.runner import prepare

    seed = suite.cell_seed("easy-K10-bernoulli", 10**6)
    a = prepare("dp-se", instance="easy", arms=10, horizon=10**6, runs=100, seed=seed,
                epsilon=1).inst.location
    b = prepare("ucb1", instance="easy", arms=10, horizon=10**6, runs=8, seed=seed).inst.location
    assert a.shape == (100, 10) and (a[:8] == b).all()


def test_o_t_engines_get_the_stated_runs_or_are_skipped_with_their_cost():
    """The quick tier: O(T) engines get its fixed 10 runs, or — where 10 runs exceed its
    budget by their declared cost — do not run, and the reason states the cost. No
    configuration gets a number of runs of its own."""
    quick = suite.plan("quick")
    runs = {(j.algorithm, j.instance.key): j.runs for j in quick.jobs}
    assert runs[("dp-se", "C2-K5")] == 100 and runs[("dp-ucb", "C2-K5")] == 10
    assert set(runs.values()) == {10, 100}
    skipped = {(s["algorithm"], s["instance"]): s["reason"] for s in quick.skipped}
    assert ("dp-ts", "obd-all") in skipped and ("ucb1", "obd-all") in skipped
    # Lazy-DP-TS (event-driven, not O(T)) gets the tier's 100 runs at K = 5 (7 ms a run);
    # at K = 10 they do not fit the minute: not run, and said with the declared cost
    assert runs[("lazy-dp-ts", "C2-K5")] == 100
    why = skipped[("lazy-dp-ts", "easy-K10-bernoulli")]
    assert "for its 100 runs" in why and "O(K²·√K·log₂T)" in why and "over the quick tier" in why


def test_counterparts_follow_the_declared_families(plugin):
    get = registry.get_algorithm
    assert suite.counterpart(get("dp-ucb"))[0] == "ucb1"
    assert suite.counterpart(get("dp-se2"))[0] == "se"
    assert suite.counterpart(get("dist-dp-se"))[0] == "batch-se"
    assert suite.counterpart(get("sdp-ae"))[0] == "se"
    assert suite.counterpart(get("dp-ts")) == (None, "no non-private counterpart of family 'ts'")
    assert suite.counterpart(get("ucb1")) == (None, "non-private")
    assert suite.counterpart(get(PLUGIN))[0] == "batch-se"
    assert set(suite.COUNTERPARTS.values()) - {None} <= set(registry.algorithms())


def test_the_real_data_instance_ships_with_its_provenance_and_licence(tmp_path):
    from importlib.resources import files

    inst = suite.package_instance(suite.OBD_RESOURCE)
    assert inst.arms == 80 and inst.rewards == "bernoulli"
    prov = inst.source["provenance"]
    assert prov["builder"] == "bandsim.datasets.obd.build_obd" and prov["impressions"] == 10_000
    assert prov["source"]["path"] == "open-bandit-dataset/random/all/all.csv"
    data = files("bandsim") / "data"
    assert "Apache License" in (data / "LICENSE-obp").read_text()
    assert prov["source"]["sha256"] in (data / "README.md").read_text()
    shared = Path(__file__).resolve().parents[2] / "shared" / "data"
    src = shared / "open-bandit-dataset" / "random" / "all" / "all.csv"
    if src.is_file():  # rebuilt from the sample, the arms are the same
        import warnings

        from bandsim.datasets import build_obd
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = build_obd(src, tmp_path / "o.parquet")
        assert (again.location == inst.location).all()


def test_the_board_files_are_written_and_readable(boards):
    a, _ = boards
    for name in ("leaderboard.md", "leaderboard.html", "rows.parquet", "board.parquet",
                 "suite.json"):
        assert (a / name).is_file()
    meta = json.loads((a / "suite.json").read_text())
    assert meta["suite_version"] == "2026.12" and meta["tier"] == "quick" and meta["standard"]
    rows = pq.read_table(a / "rows.parquet").to_pylist()
    assert json.loads(pq.read_table(a / "rows.parquet").schema.metadata[b"bandsim.suite"])[
        "suite_version"] == "2026.12"
    md = (a / "leaderboard.md").read_text()
    html = (a / "leaderboard.html").read_text()
    assert "### central ε-DP" in md and "<table>" in html and f"{PLUGIN} †" in md
    assert f"{PLUGIN} †" in html
    # lazy-dp-ts's event-driven engine is not O(T): the tier's runs, as dp-se
    by = {(r["algorithm"], r["instance"], r["epsilon"]): r for r in rows}
    assert by[("lazy-dp-ts", "C2-K3", 1.0)]["runs"] == 20
    assert by[("dp-se", "C2-K3", 1.0)]["runs"] == 20
    assert ("lazy-dp-ts", "obd-all", 1.0) not in by  # 80 arms: over the budget, skipped
    assert any(s["algorithm"] == "lazy-dp-ts" and s["instance"] == "obd-all"
               for s in meta["skipped"])


def test_ranks_are_per_cell_within_a_trust_model(boards):
    a, _ = boards
    rows = pq.read_table(a / "rows.parquet").to_pylist()
    cells = {}
    for r in rows:
        if r["role"] == "entry":
            cells.setdefault((r["trust"], r["cell"]), []).append(r)
    for group in cells.values():
        n = len(group)
        assert all(r["cell_size"] == n for r in group)
        assert math.isclose(sum(r["rank"] for r in group), n * (n + 1) / 2)
        for r in group:
            better = sum(g["regret_mean"] < r["regret_mean"] for g in group)
            ties = sum(g["regret_mean"] == r["regret_mean"] for g in group)
            assert r["rank"] == better + (ties + 1) / 2
    # the plug-in is CDP-SE under another name: same seed, same regret, a shared rank
    cdp = {r["cell"]: r for r in rows if r["algorithm"] == "cdp-se"}
    for r in rows:
        if r["algorithm"] == PLUGIN:
            assert r["regret_mean"] == cdp[r["cell"]]["regret_mean"]
            assert r["rank"] == cdp[r["cell"]]["rank"] and r["rank"] % 1 == 0.5
    board = pq.read_table(a / "board.parquet").to_pylist()
    for b in board:
        mine = [r["rank"] for r in rows if r["algorithm"] == b["algorithm"]
                and r["trust"] == b["trust"] and r["role"] == "entry"]
        assert math.isclose(b["mean_rank"], sum(mine) / len(mine)) and b["cells"] == len(mine)
    central = [b for b in board if b["trust"] == "central ε-DP"]
    assert [b["position"] for b in central] == list(range(1, len(central) + 1))
    assert [b["mean_rank"] for b in central] == sorted(b["mean_rank"] for b in central)
    assert {b["trust"] for b in board} >= {"central ε-DP", "distributed ε-DP (SecAgg)",
                                           "local ε-DP", "none"}


def test_privacy_cost_is_regret_minus_the_counterparts(boards):
    a, _ = boards
    rows = pq.read_table(a / "rows.parquet").to_pylist()
    ref = {(r["algorithm"], r["instance"]): r for r in rows if not r["private"]}
    checked = 0
    for r in rows:
        c = ref.get((r["counterpart"], r["instance"]))
        if r["private"] and c is not None:
            assert math.isclose(r["privacy_cost"], r["regret_mean"] - c["regret_mean"])
            assert math.isclose(r["privacy_cost_ci95"],
                                math.hypot(r["regret_ci95"], c["regret_ci95"]))
            checked += 1
        elif not r["private"]:
            assert math.isnan(r["privacy_cost"])
    assert checked > 10
    cdp = [r for r in rows if r["algorithm"] == "cdp-se"]
    assert all(r["counterpart"] == "batch-se" and not math.isnan(r["privacy_cost"]) for r in cdp)
    ts = [r for r in rows if r["algorithm"] == "lazy-dp-ts"]
    assert ts and all(math.isnan(r["privacy_cost"]) and "ts" in r["counterpart_note"]
                      for r in ts)


def test_verdict_columns_carry_the_exact_audit(boards):
    a, _ = boards
    rows = pq.read_table(a / "rows.parquet").to_pylist()
    assert {r["verdict"] for r in rows} <= {"PASS", "FAIL", "not audited", "not auditable",
                                            "n/a"}
    for r in rows:
        if not r["private"]:
            assert r["verdict"] == "n/a"
        if r["verdict"] == "PASS":
            assert r["audit_exact"] <= r["audit_claimed"] * (1 + 1e-9) and r["audit_quantity"]
        if r["algorithm"] in ("dp-se", "cdp-se", "dist-dp-se", "ldp-se"):
            assert r["verdict"] == "PASS" and math.isclose(r["audit_claimed"], r["epsilon"])
        if r["algorithm"] == "dp-ucb":  # the tree's m nodes of Lap(m/ε) compose to ε
            assert r["verdict"] == "PASS" and math.isclose(r["audit_claimed"], r["epsilon"])
    board = {b["algorithm"]: b for b in pq.read_table(a / "board.parquet").to_pylist()}
    assert board["cdp-se"]["passes"] == board["cdp-se"]["cells"] == 4
    assert board["dp-ucb"]["passes"] == board["dp-ucb"]["cells"]


def test_compare_shows_what_moved(boards):
    a, b = boards
    text = (b / "compare.md").read_text()
    # same seeds, same code: nothing moved
    assert "0 regrets moved, 0 ranks and 0 verdicts changed" in text
    rows, board, meta = lb.read(a)
    old = [dict(r) for r in rows]
    hit = next(r for r in old if r["algorithm"] == "cdp-se")
    hit["verdict"], hit["audit_exact"] = "FAIL", 2.0
    hit["regret_mean"] += 100 * (hit["regret_ci95"] + 1)
    gone = next(r for r in old if r["algorithm"] == "dp-se")
    old.append(dict(gone, algorithm="retired-algo"))
    secs, counts = board_compare.compare((old, board, meta), rows, board, meta, label="old")
    assert counts["verdict"] == 1 and counts["regret"] >= 1 and counts["gone"] == 1
    by_title = {sec.title.split(" against")[0]: sec.rows for sec in secs}
    assert "Board" not in by_title  # the same board: nothing to show
    moved = by_title["Configurations that moved"]
    assert any(r[0] == "cdp-se" and "FAIL" in r[5] and "beyond CI" in r[3] for r in moved)
    assert any(r[0] == "retired-algo" and "gone" in r[1]
               for r in by_title["Configurations new or gone"])


def test_bad_input_fails_with_one_line_naming_the_field(tmp_path, capsys):
    with pytest.raises(ConfigError) as e:
        suite.run_suite("quick", runs=1)
    assert e.value.field == "runs"
    with pytest.raises(ConfigError) as e:
        suite.plan("quick", algorithms=["no-such-algo"])
    assert e.value.field == "algorithm"
    with pytest.raises(ConfigError) as e:
        suite.plan("weekly")
    assert e.value.field == "tier"
    with pytest.raises(ConfigError) as e:
        lb.read(tmp_path / "nothing-here")
    assert e.value.field == "compare"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError) as e:
        lb.write(tmp_path / "file", [], [], {})
    assert e.value.field == "out"
    assert main(["suite", "--compare", str(tmp_path / "nothing-here")]) == 2
    err = capsys.readouterr().err
    assert "compare=" in err and "Traceback" not in err
    assert main(["suite", "--algorithms", "nope,", "--out", str(tmp_path / "o")]) == 2
    assert "algorithm='nope'" in capsys.readouterr().err


WEAK = "suite-test-weak-cdp-se"


def test_a_failed_audit_is_never_ranked_and_the_suite_exits_1(plugin, tmp_path):
    """An under-noised twin of CDP-SE (30 % less noise, same claim) would rank above the
    honest one on regret; its exact audit FAILs, so it is listed apart and exits 1."""
    import dataclasses

    from bandsim.plugin import plan_protocol
    from bandsim.privacy import controls

    central = registry.get_mechanism("central")
    weak = dataclasses.replace(
        central, name="suite-test-weak-central", code=central.code,
        batch=lambda n, epsilon, p=0.1: controls.under_noised(
            central.batch(n, epsilon=epsilon, p=p), 0.3))
    bandsim.register(weak, bandsim.Algorithm(
        name=WEAK, summary="CDP-SE with 30 % less noise than claimed (a negative control)",
        trust="central ε-DP", source="tests", params=(EPSILON, P, GROWTH),
        plan=lambda prm, arms, horizon: plan_protocol("suite-test-weak-central", prm, arms,
                                                      horizon),
        mechanism="suite-test-weak-central", family="batch-se"), replace=True)
    tiny = suite.Tier("quick", (suite.SuiteInstance("C2-K3", "C2", 3),), (1.0,), (20_000,),
                      runs=8, step_runs=4, budget=0.4, algorithms=("cdp-se", WEAK))
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setitem(suite.TIERS, "quick", tiny)
            assert main(["suite", "--quick", "--out", str(tmp_path), "--no-progress"]) == 1
    finally:
        registry.unregister(WEAK, "suite-test-weak-central")
    rows, board, _ = lb.read(tmp_path)
    by = {r["algorithm"]: r for r in rows if r["role"] == "entry"}
    assert by[WEAK]["verdict"] == "FAIL" and by[WEAK]["failed_audit"]
    assert math.isnan(by[WEAK]["rank"]) and by["cdp-se"]["rank"] == 1
    b = {x["algorithm"]: x for x in board}
    assert b[WEAK]["failed"] and b[WEAK]["position"] == 0 and b["cdp-se"]["position"] == 1
    md = (tmp_path / "leaderboard.md").read_text()
    failed_part = md.split("failed audit (not ranked)")[1]
    assert WEAK in failed_part and WEAK not in md.split("failed audit (not ranked)")[0].split(
        "every cell")[0]


def test_board_text_is_shown_as_is_in_the_terminal():
    # a skipped configuration's reason quotes a list; rich would eat "[nan, 1]" as markup
    from rich.console import Console

    sec = lb.Section("failed audit (not ranked)", ["algorithm", "reason"],
                     rows=[["my-se [plug-in]", "ValueError: means=[nan, 1]"]])
    console = Console(width=200, record=True)
    for t in lb.rich_tables([sec]):
        console.print(t)
    text = console.export_text()
    assert "my-se [plug-in]" in text and "means=[nan, 1]" in text
