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
primitive.
"""
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
