"""Coverage of the whole-run audit (bandsim.wholerun.coverage): every release class a run
makes (law, tag, scale: a tree level, an epoch, an SVT instance) is entered by a neighbour,
or the verdict is "incomplete"; and an SVT whose threshold is not redrawn for its next
instance FAILs check (h) on the instance that opens one."""
import numba
import numpy as np

from bandsim import registry
from bandsim.kernels import svt
from bandsim.kernels._jit import rebind
from bandsim.kernels.codes import LAW_SVT_THRESHOLD
from bandsim.kernels.record import release
from bandsim.plancache import make_plan
from bandsim.wholerun import audit
from bandsim.wholerun import checks as C
from bandsim.wholerun.coverage import classes, unentered
from bandsim.wholerun.many import many_run

T = 100_000


def _audit_of(name, means=C.MEANS, seed=0):
    algo = registry.get_algorithm(name)
    params = algo.resolve(C.audit_params(algo), T)
    return C._Audit(algo, params, T, means, seed, make_plan(algo, params, len(means), T))


def test_a_class_no_neighbour_entered_is_listed():
    a = _audit_of("dp-se")
    ref = a.play()
    got = classes(ref)
    assert got and all(law != LAW_SVT_THRESHOLD for law, _, _ in got)
    assert len(unentered([ref], set())) == len(got)
    assert unentered([ref, None], got) == []


def test_without_aimed_neighbours_dist_dp_se_is_incomplete_not_pass(monkeypatch):
    """Its last, shorter batch has its own calibration (g = 32): no default position
    enters it; the aimed neighbour does (the audit of every built-in PASSes)."""
    monkeypatch.setattr(C, "aim", lambda *a, **k: 0)
    r = audit("dist-dp-se", work=30_000)
    assert r.verdict == "incomplete", (r.verdict, r.failures, r.reason)
    assert any("no neighbour's changed reward entered it" in u for u in r.unexercised)


@numba.njit
def _threshold_kept(rec, run, t, arm, n, law, tag, true, scale, value):
    """The release primitive, except that an SVT threshold's noise is drawn once per run
    (the same for every instance of the run: not redrawn)."""
    if law == LAW_SVT_THRESHOLD:
        np.random.seed(run + 12345)
        value = true + np.random.laplace(0.0, scale)
    return release(rec, run, t, arm, n, law, tag, true, scale, value)


def test_an_svt_threshold_not_redrawn_for_the_next_instance_fails_h(monkeypatch):
    a = _audit_of("dp-se2")
    tests, missing, runs = many_run(a, [C.STAGGERED_MEANS], work=100_000)
    assert not tests.failures() and not missing and runs > 100  # the honest engine
    monkeypatch.setattr(svt, "run_shard", rebind(svt.run_shard, {"release": _threshold_kept}))
    tests, missing, runs = many_run(_audit_of("dp-se2"), [C.STAGGERED_MEANS], work=100_000)
    lines = [f for f in tests.failures() if f.startswith("(h) independence")]
    assert any("thresholds of consecutive SVT instances" in f for f in lines), tests.failures()
