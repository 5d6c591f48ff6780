"""The sampled audit sees every engine's own draws, and never samples anything else.

- every private built-in algorithm is sampled-auditable: elimination and decision
  engines through the mechanism's batch kernels, the episodic, per-step, SVT and
  per-round engines through the Laplace hooks their kernels draw with;
- each of those engines PASSes (10⁶ draws per input, α = 10⁻⁶), and the same
  hook drawing at 80 % of the declared scale FAILs (negative control);
- an algorithm with an engine of its own is "not auditable" (exit 2), not
  answered with some other kernel's draws.
"""
import numpy as np
import pytest

import bandsim
from bandsim.params import EPSILON
from bandsim.privacy import sampled as S
from bandsim.registry import algorithms, get_algorithm, get_mechanism, unregister

HOOKED = ["adap-ucb", "dp-ucb", "dp-se2", "lazy-dp-ts", "dp-ts"]


def test_every_private_builtin_is_sampled_auditable():
    status = {a: S.sampler_status(a) for a in algorithms()}
    assert status["ucb1"] == "not private" and status["batch-se"] == "not private"
    private = {a: s for a, s in status.items() if s != "not private"}
    assert len(private) >= 15 and all(s is None for s in private.values()), private


@pytest.mark.parametrize("name", HOOKED)
def test_engine_hooks_pass(name):
    rep = S.sampled(name, 0.5, 8)
    assert rep.code == 0, rep.verdict()
    engine = get_algorithm(name).engine
    assert all(c.path.startswith(f"{engine} engine") for c in rep.checks)
    assert all(c.draws >= 10**6 for c in rep.checks)


def test_a_hook_drawing_too_little_noise_fails():
    from bandsim.kernels.sequential import sample_releases

    algo = get_algorithm("dp-ucb")
    prm = algo.resolve({"epsilon": 0.5}, 10**7)
    spec = get_mechanism(algo.mechanism)
    b = spec.derive(8, prm)
    scale = float(algo.plan(prm, 2, 10**7).scale)
    rng = np.random.default_rng(1)
    pairs = S._laplace_pairs(spec, b, 10**6, rng, [], scale=scale,
                             draw=lambda mu: sample_releases(rng, mu, 0.8 * scale, 10**6))
    rep = S.sampled_audit(b, "dp-ucb", pairs=pairs)
    assert rep.code == 1 and not all(c.passed for c in rep.checks)


def _own_engine(name, records):
    """Register ``name``: a plug-in with an engine of its own ("mine"), whose run_shard
    takes the recorder iff ``records``."""
    class Own:
        stages = []

        def run_shard(self, rng, shard):
            shard.pulls[:, 0] = shard.horizon

    class Recorded(Own):
        def run_shard(self, rng, shard, rec=None):
            shard.pulls[:, 0] = shard.horizon

    plan = Recorded if records else Own
    bandsim.register(bandsim.Algorithm(
        name=name, summary="s", trust="central ε-DP", source="s", params=(EPSILON,),
        plan=lambda prm, arms, horizon: plan(), engine="mine", mechanism="laplace"),
        replace=True)


def test_an_engine_of_its_own_is_not_auditable():
    _own_engine("own-engine", records=False)
    try:
        assert S.sampler_status("own-engine").startswith("not auditable")
        rep = S.sampled("own-engine", 0.5, 8)
        assert rep.code == 2 and "not auditable" in rep.verdict() and not rep.checks
        # bandsim list and the leaderboard say so too (and what runs for the others)
        from bandsim.cli.listing import sampled_text
        from bandsim.studies import leaderboard

        assert sampled_text("own-engine").startswith("not auditable: the mine engine")
        assert sampled_text("dp-se") == "its kernels' draws"
        assert sampled_text("ucb1") == "not private"
        rows = [dict(role="entry", trust="central ε-DP", algorithm=a, cost_ratio=float("nan"),
                     verdict="PASS", audit_ratio=float("nan"), provisional=False,
                     provisional_note="", counterpart="se", counterpart_note="", runs=1,
                     seconds=0.0, rank=1.0, failed_audit=False) for a in ("own-engine", "dp-se")]
        board = {b["algorithm"]: b for b in leaderboard.board_rows(rows)}
        assert board["own-engine"]["sampled"].startswith("not auditable")
        assert board["dp-se"]["sampled"] == "yes"
        section = leaderboard.board_section("central ε-DP", list(board.values()))
        col = section.columns.index("sampled audit")
        assert {r[1]: r[col] for r in section.rows}["dp-se"] == "yes"
    finally:
        unregister("own-engine")


def test_an_engine_of_its_own_that_records_is_sent_to_the_whole_run_audit():
    """A plug-in engine whose run_shard takes the recorder (docs/plugins.md example (f)):
    --sampled still cannot draw its noise (exit 2), and its status says so and names the
    whole-run audit that does audit it, not "draws its noise inline"."""
    _own_engine("own-recorded", records=True)
    try:
        status = S.sampler_status("own-recorded")
        assert status.startswith("not sampled: the mine engine")
        assert "--whole-run" in status and "inline" not in status
        rep = S.sampled("own-recorded", 0.5, 8)
        assert rep.code == 2 and not rep.checks and "--whole-run" in rep.verdict()
    finally:
        unregister("own-recorded")
