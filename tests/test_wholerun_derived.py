"""The derived parameters (g, τ, m) a SecAgg kernel decodes with, recorded per release
(kernels.record.rwindow) and recomputed from the declaration by the whole-run
audit's check (c) (bandsim.wholerun.derived)."""
import copy

import numpy as np

from bandsim import registry
from bandsim.kernels import codes
from bandsim.kernels import record as R
from bandsim.plancache import make_plan
from bandsim.wholerun.derived import mismatches
from bandsim.wholerun.driver import play

MEANS, T = (0.75, 0.7, 0.65), 20_000


def _recorded(plan=None):
    algo = registry.get_algorithm("dist-dp-se")
    prm = algo.resolve({"epsilon": 0.5}, T)
    plan = make_plan(algo, prm, len(MEANS), T) if plan is None else plan
    return algo, prm, plan, play(algo, prm, MEANS, T, plan=plan)


def test_every_secagg_release_records_the_tau_and_m_the_declaration_derives():
    algo, prm, _, run = _recorded()
    spec = registry.get_mechanism(algo.mechanism)
    batch = run.rel[run.rel[:, R.REL_LAW] == codes.LAW_BATCH]
    assert len(batch) >= 3 and np.all(batch[:, R.REL_MOD] > 0)
    for row in batch:
        g, tau, m = (int(v) for v in spec.derive(int(row[R.REL_N]), prm).ipar)
        assert (row[R.REL_TAG], row[R.REL_TAU], row[R.REL_MOD]) == (g, tau, m)
    assert mismatches(spec, prm, run) == []


def test_a_plan_that_decodes_with_another_window_is_named():
    """Negative control: the plan's τ one larger (and m = n g + 2τ + 1 with it) — a
    derived-parameter glue bug the claim does not see — FAILs (c) naming the class."""
    algo, prm, plan, _ = _recorded()
    bad = copy.copy(plan)
    bad.ipar = plan.ipar.copy()
    bad.ipar[..., 1] += 1
    bad.ipar[..., 2] += 2
    run = play(algo, prm, MEANS, T, plan=bad)
    lines = mismatches(registry.get_mechanism(algo.mechanism), prm, run)
    assert lines and all(x.startswith("(c) derived parameters: SecAgg batch (n = ")
                         and "decoded with" in x for x in lines)
