"""Check (p) of the whole-run audit: the code a simulation runs is the code recorded.

The recording specialisation of an engine, with no user changed and the identity
map of the rewards, must give the production specialisation's outputs bit for bit
(:mod:`bandsim.wholerun.production`). The negative control is a production path
that differs from the recorded one only when ``rec`` is None: a plan whose
production run is calibrated for 1.25 ε (20 % less noise, and the widths that go
with it), as a production path with its own copy of the calibration would be. Every other check sees only the recorded
path and PASSes it by construction; (p) FAILs it in one line.
"""
import pytest

from bandsim import registry
from bandsim.plancache import make_plan
from bandsim.wholerun.checks import CLOSE_MEANS, MEANS, WIDE_MEANS, audit_params
from bandsim.wholerun.driver import outputs
from bandsim.wholerun.production import production
from bandsim.wholerun.replay import _Audit

T = 20_000


def _audit(name, means=MEANS, horizon=T):
    algo = registry.get_algorithm(name)
    prm = algo.resolve(audit_params(algo, None), horizon)
    return (_Audit(algo, prm, horizon, means, 3, make_plan(algo, prm, len(means), horizon)),
            prm)


class _ProductionOnly:
    """A plan that runs ``other`` in production (rec None) and ``plan`` when recorded."""

    def __init__(self, plan, other):
        self.plan, self.other = plan, other

    def run_shard(self, rng, shard, rec):
        return (self.other if rec is None else self.plan).run_shard(rng, shard, rec)


@pytest.mark.parametrize("name", ["dp-se", "dp-ucb", "dist-dp-se", "dp-se2", "adap-ucb",
                                  "lazy-dp-ts"])
def test_production_equals_the_recording_specialisation(name):
    a, _ = _audit(name, WIDE_MEANS)
    assert production(a, runs=8) == []
    # and the two specialisations did run: a recorded play gives the first run's outputs
    pulls, _, regret = outputs(a.algo, a.params, WIDE_MEANS, T, seed=3, runs=8, plan=a.plan)
    ref = a.play()
    assert (pulls[0] == ref.pulls).all() and (regret[0] == ref.regret).all()


def test_a_production_only_noise_deficit_fails_check_p():
    # the audit's T on the close instance, where noise tips eliminations (12 of 32 runs)
    a, prm = _audit("dp-se", CLOSE_MEANS, horizon=100_000)
    less = make_plan(a.algo, a.algo.resolve(dict(prm, epsilon=1.25 * prm["epsilon"]), a.horizon),
                     len(CLOSE_MEANS), a.horizon)  # production draws Lap(0.8 b): 20 % too little noise
    a.plan = _ProductionOnly(a.plan, less)
    lines = production(a)
    assert len(lines) == 1 and lines[0].startswith("(p) production:"), lines
    assert "is not the code audited" in lines[0]
