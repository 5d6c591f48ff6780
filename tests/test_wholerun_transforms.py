"""Far replays of check (a) (bandsim.wholerun.transforms): datasets that move every gap.

The mirror x → 1 − x keeps the gap between arms' sums (up to sign) and the range
max − min of the sums. DP-SE 2's sparse vector technique compares exactly that
range with a noisy threshold: an engine whose halting reads its freshly computed
query (true range plus noise) instead of the frozen release takes every decision
again on the mirror and must FAIL on the other far datasets.
"""
import numba
import numpy as np
import pytest

from bandsim import registry
from bandsim.kernels import codes, svt
from bandsim.kernels._jit import rebind
from bandsim.kernels.codes import LAW_SVT_QUERY
from bandsim.kernels.record import release
from bandsim.plancache import make_plan
from bandsim.wholerun.checks import MEANS, _Audit, audit_params
from bandsim.wholerun.transforms import far_replays, transforms

T = 100_000


def _far(name, seed=0):
    algo = registry.get_algorithm(name)
    params = algo.resolve(audit_params(algo), T)
    a = _Audit(algo, params, T, MEANS, seed, make_plan(algo, params, len(MEANS), T))
    ref = a.play()
    assert len(ref.rel) > 0
    return a, far_replays(a, ref)


def test_transforms_keep_rewards_in_the_unit_interval():
    for means in (MEANS, (0.9, 0.1), (0.2, 0.5, 0.8, 0.99)):
        for what, shift, gain in transforms(means):
            s, g = np.asarray(shift), np.asarray(gain)
            assert np.all((s >= 0) & (s <= 1) & (s + g >= 0) & (s + g <= 1)), what


@pytest.mark.parametrize("name", ["dp-se", "dp-se2"])
def test_an_honest_engine_takes_every_decision_on_every_far_dataset(name):
    a, n = _far(name)
    assert n == 7 and a.failures == []


@numba.njit
def _query_not_frozen(rec, run, t, arm, n, law, tag, true, scale, value):
    """The release primitive, except that the SVT query's answer is the fresh one."""
    v = release(rec, run, t, arm, n, law, tag, true, scale, value)
    return value if law == LAW_SVT_QUERY else v


def test_a_halting_rule_that_reads_the_true_range_fails_a_but_not_on_the_mirror(monkeypatch):
    monkeypatch.setattr(svt, "run_shard", rebind(svt.run_shard, {"release": _query_not_frozen}))
    a, _ = _far("dp-se2")
    lines = [f for f in a.failures if f.startswith("(a) decisions")]
    assert lines, a.failures
    assert not any("mirrored" in f for f in lines), lines  # the mirror alone misses it
    assert any("every reward" in f or "alternately" in f or "reversed" in f
               or "shifted" in f for f in lines), lines


def test_the_recorder_maps_each_arm_by_its_own_transform():
    from bandsim.kernels.record import recorder

    rec = recorder(codes.RECORD, 4, shift=[1.0, 0.0], gain=[0.0, 0.5])
    assert rec.shift.tolist() == [1.0, 0.0] and rec.gain.tolist() == [0.0, 0.5]
    m = recorder(codes.RECORD, 4, mirror=True)
    assert m.shift.tolist() == [1.0] and m.gain.tolist() == [-1.0]
