"""Check (x) of the whole-run audit: the engine reads what it releases.

Checks (a)–(h) test what an engine *releases* and that its decisions read
nothing but releases. They cannot see an engine that releases one value and
computes with another — e.g. an SVT whose recorder logs the drawn threshold
noise B while its comparisons use B = 0: each release then has its declared
law, the replays decide identically (the engine never reads the threshold
release), and every query records its margin consistently with what the
engine compares. Such an engine is not the algorithm whose privacy was
proved (the SVT without threshold noise is not private).

(x) replays a recorded run with the frozen values of one law's releases
shifted far — by ±:data:`SHIFT` noise scales, the sign alternating from one
release to the next, so that a gap between two shifted releases moves too;
if that moves nothing, once more with the signs flipped (an elimination that
removes the arms below the best keeps its decisions when the best moves up)
— and every other release frozen as recorded. An engine that reads a release
shows it in the replay: another decision (blocks, releases, outputs), or
another statistic or value of a later release computed from it (an SVT's
query margins over the shifted threshold). A law whose shifts move nothing
on any of the audited runs is **never read by the engine**: FAIL, one line
naming the release class. Every law an engine records is required to be
read (every built-in reads each of its laws on the default or the wide
instance).

For the sparse vector technique the declaration says more
(:mod:`bandsim.backend`: a query releases its margin q − (threshold + query
noise)): when the threshold release of an SVT instance moves by δ, the
margin every query of that instance records moves by −δ exactly (to
rounding) — a query that reads its threshold partly, or another instance's,
FAILs (x) naming the query class.

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries" (PETS 2026),
record and replay; Dwork & Roth, "The Algorithmic Foundations of
Differential Privacy" (2014), Section 3.6 (the sparse vector technique);
Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential
Privacy" (VLDB 2017), Section 3 (variants that drop or reuse the threshold
noise are not private).
"""
import numpy as np

from ..kernels import codes
from ..kernels import record as R

#: Noise scales a release is shifted by in the replays of (x): far beyond any noise.
SHIFT = 1000.0
#: Relative tolerance of the SVT margin comparison (float64 rounding of q − (thr + B)).
RTOL = 1e-9
_KEYS = [R.REL_RUN, R.REL_T, R.REL_ARM, R.REL_N, R.REL_LAW, R.REL_TAG, R.REL_BLOCKS]
_NAMES = {v: k for k, v in codes.LAWS.items()}


def shifted(run, law, first=1.0):
    """(frozen values float64 (N,), shift float64 (N,)): ``run``'s released values with
    every release of ``law`` moved by ±:data:`SHIFT` × its scale (sign alternating over
    those releases, the first's ``first``; a scale that is not a positive number counts
    as 1)."""
    mask = run.rel[:, R.REL_LAW] == law
    scale = run.val[mask, R.VAL_SCALE]
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    sign = first * np.where(np.arange(int(mask.sum())) % 2 == 0, 1.0, -1.0)
    delta = np.zeros(len(run.rel))
    delta[mask] = SHIFT * scale * sign
    return run.values + delta, delta


def moved(ref, rep, mask):
    """What of ``rep`` (the replay) differs from ``ref``: ``"decisions"``, ``"releases"``
    (a statistic or value of a release outside ``mask``, bool (N,)) or None."""
    if (rep.blocks.shape != ref.blocks.shape or not np.array_equal(rep.blocks, ref.blocks)
            or rep.rel.shape != ref.rel.shape
            or not np.array_equal(rep.rel[:, _KEYS], ref.rel[:, _KEYS])
            or not (np.array_equal(rep.pulls, ref.pulls) and np.array_equal(rep.elim, ref.elim)
                    and np.array_equal(rep.regret, ref.regret))):
        return "decisions"
    other = ~mask
    cols = [R.VAL_TRUE, R.VAL_VALUE]
    if not np.array_equal(rep.val[other][:, cols], ref.val[other][:, cols]):
        return "releases"
    return None


def margins(ref, rep, delta):
    """The first SVT query whose recorded margin did not move by −δ when its instance's
    threshold release moved by δ: (index, moved by, δ), or None. ``delta``: the shifts of
    the replay (:func:`shifted`); the replay ``rep`` took every decision of ``ref``."""
    rel = ref.rel
    law = rel[:, R.REL_LAW]
    last = {}  # (run, tag) -> the shift of the instance's threshold
    for i in range(len(rel)):
        key = (int(rel[i, R.REL_RUN]), int(rel[i, R.REL_TAG]))
        if law[i] == codes.LAW_SVT_THRESHOLD:
            last[key] = float(delta[i])
        elif law[i] == codes.LAW_SVT_QUERY and key in last:
            want = -last[key]
            got = float(rep.val[i, R.VAL_TRUE] - ref.val[i, R.VAL_TRUE])
            tol = RTOL * max(abs(want), abs(ref.val[i, R.VAL_TRUE]), 1.0)
            if not abs(got - want) <= tol:
                return i, got, -want
    return None


def reads(audit, runs, label):
    """Check (x) on recorded runs of ``audit`` (a :class:`bandsim.wholerun.replay._Audit`).

    Parameters
    ----------
    audit : bandsim.wholerun.replay._Audit
        The audited setting; its ``play`` replays a run (``mode=REPLAY``, ``frozen``).
    runs : sequence of (Run or None, sequence of float)
        Recorded runs (:class:`bandsim.wholerun.driver.Run`) and their arm means
        (None entries skipped).
    label : callable
        ``label(run, i)``: release #i of a run described (for the failure line).

    Returns
    -------
    list of str
        One failure line per law no replay shows read, and per SVT query class whose
        margin does not follow its threshold; empty if none. A replay that raises counts
        as a read (the engine computed with the shifted value).
    """
    runs = [(r, m) for r, m in runs if r is not None and len(r.rel)]
    laws = sorted({int(lw) for r, _ in runs for lw in np.unique(r.rel[:, R.REL_LAW])}
                  - {codes.LAW_EXACT})
    out = []
    for law in laws:
        read, tried, first, partial = False, 0, None, None
        svt = law == codes.LAW_SVT_THRESHOLD  # every replay checks the queries' margins
        for (run, means), sign in ((rm, s) for s in (1.0, -1.0) for rm in runs):
            mask = run.rel[:, R.REL_LAW] == law
            if not mask.any() or (read and not svt):
                continue
            frozen, delta = shifted(run, law, sign)
            first = first or (run, int(np.flatnonzero(mask)[0]), int(mask.sum()))
            tried += 1
            try:
                rep = audit.play(means=means, mode=codes.REPLAY, frozen=frozen)
            except Exception:  # noqa: BLE001 — an engine that fails on the value read it
                read = True
                continue
            what = moved(run, rep, mask)
            read |= what is not None
            if svt and what != "decisions" and partial is None:
                bad = margins(run, rep, delta)
                if bad is not None:
                    i, got, d = bad
                    partial = (f"(x) reads: release class {_NAMES.get(codes.LAW_SVT_QUERY)} "
                               f"(tag {int(run.rel[i, R.REL_TAG])}), {label(run, i)}: its "
                               f"recorded margin moved by {got:.6g} when its instance's "
                               f"threshold release moved by {d:.6g} (declared: by {-d:.6g}) "
                               "— the query does not compare with the threshold it releases")
        if not read and first is not None:
            run, i, n = first
            out.append(f"(x) reads: release class {_NAMES.get(law, '?')} never read by the "
                       f"engine — its recorded values shifted by ±{SHIFT:g} scales (first "
                       f"{label(run, i)}, {n} releases) change no decision, output or other "
                       f"release in {tried} replay(s): the engine computes with another "
                       "value than it releases")
        elif partial is not None:
            out.append(partial)
    return out


__all__ = ["SHIFT", "margins", "moved", "reads", "shifted"]
