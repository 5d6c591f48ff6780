"""Coverage of the whole-run audit: every release class a run makes is entered by some neighbour.

The declared participation (:mod:`bandsim.privacy.participation`) names
releases by law and scale; the neighbours of :func:`bandsim.wholerun.audit`
enter them (:meth:`bandsim.wholerun.replay._Audit.unexercised`). A structure
can release several classes of one law and scale — the levels of a tree, the
epochs of a doubling schedule, the instances of a sparse vector technique
(their tag) — and a neighbour that entered one level says nothing of the
sensitivity of the others. :func:`unentered` lists every data-dependent
release class (law, tag, scale) the audited runs released that no
neighbour's changed reward entered: the verdict is then ``incomplete``, not
PASS (nothing of that class's sensitivity or composition was checked).
"""
import numpy as np

from ..kernels import codes
from ..kernels import record as R
from .laws import label

#: Laws whose true statistic is data (a threshold's is not: nothing can enter it).
DATA_LAWS = (codes.LAW_LAPLACE, codes.LAW_SVT_QUERY, codes.LAW_BATCH)


def classes(run):
    """The data-dependent release classes (law, tag, scale) of a recorded run (set)."""
    out = set()
    for i in range(len(run.rel)):
        law = int(run.rel[i, R.REL_LAW])
        if law in DATA_LAWS:
            out.add((law, int(run.rel[i, R.REL_TAG]), float(run.val[i, R.VAL_SCALE])))
    return out


def unentered(runs, seen):
    """Release classes of ``runs`` no neighbour entered.

    Parameters
    ----------
    runs : sequence of bandsim.wholerun.driver.Run
        The reference runs whose neighbours were replayed (None entries skipped).
    seen : set of (int, int, float)
        (law, tag, scale) of every release some neighbour's changed reward entered.

    Returns
    -------
    list of str
        One line per class, sorted (e.g. ``laplace (tag 12, scale 36): released, no
        neighbour's reward entered it``).
    """
    have = set()
    for run in runs:
        if run is not None:
            have |= classes(run)
    missing = sorted(have - seen)
    return [f"release class {label((law, tag, 0, scale))}: released, but no neighbour's "
            "changed reward entered it" for law, tag, scale in missing]




def aim(audit, run, means, where, neighbours):
    """Replay neighbours aimed at the release classes of ``run`` no neighbour entered yet:
    for each, the last block of its arm drawn before its first release (one change
    each), until every class is entered. How many neighbours were replayed.

    Parameters
    ----------
    audit : bandsim.wholerun.replay._Audit
    run : bandsim.wholerun.driver.Run or None
    means : sequence of float
        The instance ``run`` was recorded on.
    where : str
        Suffix of the failure lines (`` on the wide instance``).
    neighbours : callable
        :func:`bandsim.wholerun.checks._neighbours`.
    """
    if run is None:
        return 0
    left = classes(run) - audit.seen_tags
    if not left:
        return 0
    law, tag, scale = (run.rel[:, R.REL_LAW], run.rel[:, R.REL_TAG], run.val[:, R.VAL_SCALE])
    barm, picks = run.blocks[:, R.BLK_ARM], set()
    for lw, tg, sc in sorted(left):
        i = int(np.flatnonzero((law == lw) & (tag == tg) & (scale == sc))[0])
        arm, nb = int(run.rel[i, R.REL_ARM]), int(run.rel[i, R.REL_BLOCKS])
        ok = np.flatnonzero((barm[:nb] == arm) if arm >= 0 else np.ones(nb, bool))
        if ok.size:
            picks.add(int(ok[-1]))
    return neighbours(audit, run, means, where, sorted(picks),
                      until=lambda: classes(run) - audit.seen_tags)


__all__ = ["DATA_LAWS", "aim", "classes", "unentered"]
