"""Check (p) of the whole-run audit: the audited code is the code that runs.

The audit records the engine's recording specialisation (``rec`` a
:class:`kernels.record.Recorder`); a simulation runs its production
specialisation (``rec`` None). The two share one source: engines call the
record primitives unconditionally and only the primitives branch on ``rec``
(``tests/test_one_code_path.py``). With no user changed (block −1) and the
identity map of the rewards, the recording specialisation draws the same
stream and must take the same decisions as production, bit for bit. Check (p)
runs :data:`RUNS` runs (4 for a per-pull engine) both ways on the audit's seed, T and instance (and the
wide one) and compares every output (N_a(T), elimination times, pseudo-regret
at every checkpoint). A production path that releases, draws or decides
otherwise than the recorded one — a primitive's ``rec is None`` branch edited
to release half the noise, say — FAILs as soon as it changes an output of one
of those runs, whichever bug it is. What it cannot see: a production-only
change that moves no output of these runs (e.g. noise that never tips an
elimination), which the golden hashes of the regression tests may still catch.

Not applicable (and said so) when the mechanism draws a data-dependent
release from a plug-in hook: in the recording mode those draws come from a
generator of their own (:func:`kernels.record.hook_rng`), so the streams
differ by design.
"""
import numpy as np

from ..kernels import codes
from ..kernels import record as R
from .driver import outputs
from .samplers import untrusted

#: Runs compared per instance (one shard each way); engines whose cost is O(T) per run
#: decide at every pull (a changed release moves the pull sequence at once): fewer.
RUNS, RUNS_PER_PULL = 32, 4


def production(a, means=None, runs=None):
    """Failure lines of check (p) for audit ``a`` on ``means`` (list of str).

    Parameters
    ----------
    a : bandsim.wholerun.replay._Audit
        The audited setting (algorithm, parameters, T, instance, seed, plan).
    means : sequence of float, optional
        The instance (default: the audit's, ``a.means``).
    runs : int, optional
        Runs compared, ≥ 1 (default :data:`RUNS`, :data:`RUNS_PER_PULL` for an engine
        declared O(T) per run).

    Returns
    -------
    list of str
        Empty when production's outputs equal the recording specialisation's bit for
        bit (or the check does not apply: a plug-in mechanism); else one line naming the
        first output that differs.
    """
    if untrusted(a.algo):
        return []
    means = a.means if means is None else means
    if runs is None:
        runs = RUNS_PER_PULL if a.algo.cost == "horizon" else RUNS
    plan = a.plan if len(means) == len(a.means) else None  # as the audit's own runs
    kw = dict(seed=a.seed, runs=runs, plan=plan)
    prod = outputs(a.algo, a.params, means, a.horizon, rec=None, **kw)
    recd = outputs(a.algo, a.params, means, a.horizon, rec=R.recorder(codes.RECORD, 16), **kw)
    for name, got, rec in zip(("N_a(T)", "elimination times", "pseudo-regret"), prod, recd):
        diff = np.argwhere(got != rec)
        if diff.size:
            run, j = (int(v) for v in diff[0])
            return [f"(p) production: the simulation's {name} differ from the recording "
                    f"specialisation's on the same seed (means {tuple(means)}, {len(diff)} "
                    f"entries of {runs} runs; first run {run}, entry {j}: {got[run, j]!r} in "
                    f"production, {rec[run, j]!r} recorded) — the code that runs is not the "
                    "code audited"]
    return []


__all__ = ["RUNS", "production"]
