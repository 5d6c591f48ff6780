"""The record primitives that take the generator compile, for ``rec`` None, to the bare call.

:func:`kernels.record.rsum` (and ``rencoded``, ``rbits``) resolve on the type
of ``rec`` while typing (:func:`kernels.record._by_rec`): in production the
engine calls ``batch_sum`` itself, with the engine's own generator. An
inlined wrapper would copy the generator into a variable of its own, which
Numba guards with a reference-count increment and decrement around the call
(the SVT engine was 5–13 % slower for it). The machine code is what is
checked here (speed itself is measured in ``benchmarks/engine_ratio.py``):
the kernel through the primitive carries exactly the reference-count
operations of the direct call, and a deliberately inlined wrapper — the
negative control — carries more. The negative controls of the audits
replace callees with :func:`kernels._jit.rebind`; it must reach through the
primitive. :func:`kernels.record.rbernoulli_window` stays a call (``noinline``)
for ``rec`` None and pulls and sums as the per-pull float loop it replaces,
with and without a recorder.
"""
import re

import numba
import numpy as np

from bandsim.kernels import record
from bandsim.kernels._jit import rebind
from bandsim.kernels.codes import BERNOULLI, RECORD
from bandsim.kernels.record import rsum
from bandsim.kernels.rewards import batch_sum


@numba.njit
def _through_rsum(rng, par, n, rec):
    s = 1.0
    for i in range(par.shape[0]):  # a loop of batches, as in the engines
        s += rsum(rng, rec, 0, 0, i, BERNOULLI, par[i:i + 1], n)
    return s


@numba.njit
def _direct(rng, par, n, rec):
    s = 1.0
    for i in range(par.shape[0]):
        s += batch_sum(rng, BERNOULLI, par[i:i + 1], n)
    return s


@numba.njit(inline="always")
def _wrapped(rng, par, n):
    return batch_sum(rng, BERNOULLI, par, n)


@numba.njit
def _through_an_inlined_wrapper(rng, par, n, rec):
    s = 1.0
    for i in range(par.shape[0]):
        s += _wrapped(rng, par[i:i + 1], n)
    return s


def _refcount_ops(kernel):
    rng, par = np.random.default_rng(3), np.array([0.5])
    kernel(rng, par, 10, None)
    llvm = kernel.inspect_llvm(kernel.signatures[0])
    body = llvm[llvm.index("define"):]
    body = body[:body.index("\n}\n")]  # the kernel itself, not its callees
    return body.count("@NRT_incref"), body.count("@NRT_decref")


def test_rsum_with_rec_none_is_the_direct_call():
    direct = _refcount_ops(_direct)
    assert _refcount_ops(_through_rsum) == direct
    # the negative control: the wrapper the primitive replaced costs a pair per call
    inc, dec = _refcount_ops(_through_an_inlined_wrapper)
    assert inc > direct[0] and dec > direct[1]


def test_same_draws_with_and_without_a_recorder():
    par = np.array([0.3])
    plain = [_through_rsum(np.random.default_rng(s), par, 50, None) for s in range(5)]
    rec = record.recorder(RECORD, 4)
    logged = [_through_rsum(np.random.default_rng(s), par, 50, rec) for s in range(5)]
    assert plain == logged and plain == [_direct(np.random.default_rng(s), par, 50, None)
                                         for s in range(5)]
    assert rec.counts[0] == 5 and list(rec.blk[0]) == [0, 0, 0, 50]


@numba.njit
def _zero(rng, code, par, n):
    return 0.0


def test_rebind_reaches_through_the_primitive():
    par = np.array([0.5])
    bad = rebind(_through_rsum, {"batch_sum": _zero})
    assert _through_rsum(np.random.default_rng(1), par, 10, None) > 1.0
    assert bad(np.random.default_rng(1), par, 10, None) == 1.0
    rec = record.recorder(RECORD, 4)
    assert bad(np.random.default_rng(1), par, 10, rec) == 1.0 and rec.counts[0] == 1
    assert rebind(_through_rsum, {"no_such_callee": _zero}) is _through_rsum


@numba.njit
def _through_window(rng, t, t_end, mu, acc, nf, gamma, V, rec):
    t, acc = record.rbernoulli_window(rng, rec, 0, t, t_end, 1, mu, acc, nf, gamma, V)
    return t, acc, rng.random()


@numba.njit
def _float_window(rng, t, t_end, mu, acc, nf, gamma, V, counted):
    # the per-pull float loop the primitive replaces; counted=False is the negative
    # control: the test reads nf of the window's start (a count that never advances)
    while t < t_end and acc + gamma > nf * V:
        if rng.random() < mu:
            acc += 1.0
        if counted:
            nf += 1.0
        t += 1
    return t, acc, rng.random()


#: (t, t_end, mu, acc, nf, gamma, V): a window that runs out, one that stops on the
#: test after a few hundred pulls, a non-whole sum (the float loop itself), Γ > 0
WINDOWS = [(100, 600, 0.7, 70.0, 100.0, 0.0, 0.5), (100, 5000, 0.6, 70.0, 100.0, 0.0, 0.65),
           (10, 4000, 0.5, 7.25, 10.0, 0.0, 0.55), (50, 3000, 0.3, 20.0, 50.0, 40.0, 0.35)]


def test_bernoulli_window_pulls_and_sums_as_the_float_loop():
    for seed in range(3):
        for w in WINDOWS:
            want = _float_window(np.random.default_rng(seed), *w, True)
            assert _through_window(np.random.default_rng(seed), *w, None) == want
            rec = record.recorder(RECORD, 8000)
            assert _through_window(np.random.default_rng(seed), *w, rec) == want
            assert rec.counts[0] == want[0] - w[0]  # every pull its own release
    stops = [_float_window(np.random.default_rng(0), *w, True)[0] for w in WINDOWS]
    assert stops[0] == WINDOWS[0][1] and all(t < w[1] for t, w in zip(stops[1:], WINDOWS[1:]))
    # negative control: a count that does not advance changes where the window stops
    assert any(_float_window(np.random.default_rng(0), *w, False)[:2]
               != _float_window(np.random.default_rng(0), *w, True)[:2] for w in WINDOWS)


def test_bernoulli_window_stays_a_call_with_rec_none():
    _through_window(np.random.default_rng(0), *WINDOWS[0], None)
    llvm = _through_window.inspect_llvm(_through_window.signatures[0])
    body = llvm[llvm.index("define"):]
    body = body[:body.index("\n}\n")]  # the kernel itself, not its callees
    calls = [line for line in body.splitlines() if "_bernoulli_window" in line
             and " call " in line]
    assert len(calls) == 1  # not inlined: the loop keeps registers of its own
    group = calls[0].rsplit("#", 1)[1]
    assert re.search(r"attributes #%s = \{[^}]*\bnoinline\b" % group, llvm)
