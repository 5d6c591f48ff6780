"""Derived parameters of every recorded SecAgg batch, recomputed from the declaration.

A SecAgg batch of n users is decoded with parameters its mechanism derives
from (n, ε, …): the precision g, the accuracy τ and the modulus
m = n g + 2τ + 1, hence the decoding window [−τ, n g + τ] (Chowdhury & Zhou,
"Distributed Differential Privacy in Multi-Armed Bandits", ICLR 2023,
Algorithms 2 and 3, eq. (3)). The kernel logs the g (the release's tag), τ and
m it used (:func:`kernels.record.rwindow`, just before its release);
:func:`mismatches` recomputes them with the mechanism's own derivation (``spec.derive(n, params)``) for every
release class (n, g, τ, m) a run recorded, and names each class whose
parameters differ — a plan table, a stage's n or a kernel that decodes with
other numbers than those the privacy claim was computed from. An encoded batch
(tag g > 0) that logged no modulus was released without the primitive: that is
named too.
"""
import numpy as np

from ..kernels import codes
from ..kernels import record as R


def mismatches(spec, params, run):
    """One line per recorded SecAgg release class whose (g, τ, m) the declaration does
    not derive.

    Parameters
    ----------
    spec : bandsim.Mechanism
        The algorithm's mechanism (``derive(n, params)`` gives ``ipar`` = (g, τ, m)).
    params : dict
        The algorithm's resolved parameters.
    run : bandsim.wholerun.driver.Run
        A recorded run (``rel`` int64 (N, 9), :data:`kernels.record.REL_TAU`,
        :data:`kernels.record.REL_MOD`).

    Returns
    -------
    list of str
        ``(c) derived parameters: SecAgg batch (n = 8, g = 46): decoded with τ = …, m = …
        (window [−τ, n g + τ] = […]); the declaration derives …``; empty when every class
        matches or no release is an encoded batch.
    """
    rel = run.rel
    if len(rel) == 0 or rel.shape[1] <= R.REL_MOD:
        return []
    rows = rel[(rel[:, R.REL_LAW] == codes.LAW_BATCH) & (rel[:, R.REL_TAG] > 0)]
    out = []
    for n, g, tau, m in np.unique(rows[:, [R.REL_N, R.REL_TAG, R.REL_TAU, R.REL_MOD]],
                                  axis=0).tolist():
        ipar = getattr(spec.derive(int(n), params), "ipar", None)
        if ipar is None or len(ipar) < 3:
            continue  # not a SecAgg batch (its law is checked by (g))
        want = tuple(int(v) for v in ipar[:3])
        what = f"SecAgg batch (n = {n}, g = {g})"
        if m == 0:
            out.append(f"(c) derived parameters: {what}: released without its τ and m "
                       "(no kernels.record.rwindow before its release)")
        elif (g, tau, m) != want:
            out.append(f"(c) derived parameters: {what}: decoded with g = {g}, τ = {tau}, "
                       f"m = {m} (window [{-tau}, {n * g + tau}]); the declaration derives "
                       f"g = {want[0]}, τ = {want[1]}, m = {want[2]} (window [{-want[1]}, "
                       f"{n * want[0] + want[1]}])")
    return out


__all__ = ["mismatches"]
