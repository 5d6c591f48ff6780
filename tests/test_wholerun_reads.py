"""Check (x) of the whole-run audit: an engine that releases one value and computes with another.

A small SVT in Python (one instance, fixed query values, Lap noise from a fixed
seed) stands in for an engine: its threshold release is read by the queries with
weight ``w`` (1: the declared SVT, whose query margin is q − (thr + A + B); 0: the
threshold noise dropped in the comparison while the drawn B is logged — the mutant
the other checks pass; 0.5: read in part). The real engines' reads (every built-in
PASSes (x)) are tested by the whole-run audit's own tests and the mutants in
tests/test_mutants.py.
"""
import numpy as np

from bandsim.kernels import codes
from bandsim.kernels import record as R
from bandsim.wholerun.driver import Run
from bandsim.wholerun.reads import SHIFT, reads

SCALE, THR = 12.0, 40.0
QUERIES = (10.0, 25.0, 31.0, 60.0)  # q = max S − min S at each checkpoint


def _svt(w, frozen=None):
    """One recorded run of the stand-in SVT; ``frozen``: a replay's frozen values."""
    rng = np.random.default_rng(5)
    rel, val = [], []

    def release(t, law, true, value):
        i = len(rel)
        rel.append([0, t, -1, -1, law, 0, i, 0, 0])
        val.append([true, SCALE, value])
        return value if frozen is None else frozen[i]

    B = release(0, codes.LAW_SVT_THRESHOLD, 0.0, rng.laplace(0, SCALE))
    pulls = 0
    for t, q in enumerate(QUERIES, 1):
        A = rng.laplace(0, SCALE)
        pulls = t
        if release(t, codes.LAW_SVT_QUERY, q - (THR + w * B), q - (THR + A + w * B)) > 0:
            break
    return Run(np.array([[0, t, 0, 1] for t in range(pulls)], np.int64).reshape(-1, 4),
               np.array(rel, np.int64), np.array(val), np.array([pulls, 0]),
               np.array([-1, -1]), np.array([float(pulls)]))


class _Stub:
    def __init__(self, w):
        self.w = w

    def play(self, means=None, mode=codes.RECORD, frozen=None):
        return _svt(self.w, frozen if mode == codes.REPLAY else None)


def _label(run, i):
    return f"release #{i}"


def _check(w):
    stub = _Stub(w)
    ref = stub.play()
    return reads(stub, [(ref, (0.5, 0.4)), (None, (0.9, 0.1))], _label)


def test_declared_svt_reads_its_threshold():
    assert _check(1.0) == []


def test_threshold_noise_dropped_in_the_comparison_fails_never_read():
    out = _check(0.0)
    assert len(out) == 1, out
    assert out[0].startswith("(x) reads: release class svt-threshold never read by the engine")
    assert f"±{SHIFT:g} scales" in out[0]


def test_threshold_read_in_part_fails_on_the_query_margin():
    out = _check(0.5)
    assert len(out) == 1, out
    assert out[0].startswith("(x) reads: release class svt-query (tag 0), release #1")
    assert f"moved by {-0.5 * SHIFT * SCALE:.6g}" in out[0]
