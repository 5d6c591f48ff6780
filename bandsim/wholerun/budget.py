"""Runs × T of the many-run checks: every release class from ≥ :data:`FLOOR` draws, or said so.

:func:`bandsim.wholerun.laws.record_many` records runs at the audited T,
as many as its budget allows. A class that appears a few times per run —
the first pull of every arm, the nodes of the first epochs of a doubling
structure — gets few draws there, and a run of T = 10⁵ pulls is dear for a
per-pull engine. Those classes appear as often in a short run: :func:`top_up`
records more runs at shorter horizons T/10³, T/10², T/10 (shortest first,
each from a pilot, within one more instance's budget) and keeps only their
releases of the classes the audited T made — same law, tag, n and scale, so
the same declared law; classes of another parameterisation (a scale that
depends on T) are dropped. Only continuous classes (Laplace, the SVT's
noises: z = (value − true)/scale, whose law the recorded scale fixes, the
scale itself checked against the declaration by check (c)) are topped up; a
batch's exact law is derived from the parameters at T.

:func:`floors` says, per class, from how many draws its law is tested: its
own, or — a class that stays below :data:`FLOOR` (a release once per run at
depth log T) — the draws of every class the declaration gives the same law
(one law and scale: Lap(b) given the true statistic at every position). A
class below the floor even so makes the verdict ``inconclusive``, never
PASS.
"""
import math

import numpy as np

from ..kernels import record as R
from .driver import play
from .laws import (CONTINUOUS, FLOOR, MAX_RUNS, PILOT, WORK, Sample, _classes, _cost,
                   engine_of, label)

#: Horizon divisors of the top-up runs (shortest horizon first).
DIVISORS = (1000, 100, 10)
#: Shortest top-up horizon, in pulls per arm.
MIN_PULLS_PER_ARM = 16


def _pools(keys):
    """Per class, the index of its pool: one per (law, scale) of a continuous law, the
    class itself otherwise (a batch's law depends on n)."""
    pool = np.arange(len(keys))
    seen = {}
    for c, (law, _, _, scale) in enumerate(map(tuple, keys)):
        if int(law) in CONTINUOUS:
            pool[c] = seen.setdefault((int(law), float(scale)), c)
    return pool


def floors(rel, val):
    """Per release class, its draws and the draws its law is tested from.

    Parameters
    ----------
    rel : int64 (N, 7); val : float64 (N, 3)
        Releases of a many-run sample (:class:`bandsim.wholerun.laws.Sample`).

    Returns
    -------
    list of (str, int, int, bool)
        (class label, own draws, floor draws, continuous law), sorted by floor then
        own draws: the floor is the own count when it reaches :data:`FLOOR`, else the
        count of the class's pool (every class of its continuous law and scale).
    """
    if len(rel) == 0:
        return []
    keys, ids = _classes(rel, val)
    own = np.bincount(ids, minlength=len(keys))
    pool = _pools(keys)
    pooled = np.bincount(pool, weights=own, minlength=len(keys)).astype(np.int64)
    out = [(label(tuple(k)), int(n), int(n if n >= FLOOR else pooled[pool[c]]),
            int(k[0]) in CONTINUOUS) for c, (k, n) in enumerate(zip(keys, own))]
    return sorted(out, key=lambda x: (x[2], x[1]))


def _thin(keys, own, target):
    """Class keys (tuples) of continuous laws with fewer than ``target`` draws → deficit."""
    return {tuple(k): target - int(n) for k, n in zip(keys, own)
            if int(k[0]) in CONTINUOUS and n < target}


def top_up(audit, sample, means, work=WORK, target=2 * FLOOR):
    """More runs at shorter horizons for the continuous classes of ``sample`` below
    ``target`` draws (module docstring).

    Parameters
    ----------
    audit : bandsim.wholerun.replay._Audit
        Algorithm, parameters, T and seed.
    sample : bandsim.wholerun.laws.Sample
        The runs recorded at the audited T.
    means : tuple of float
        The instance of the top-up runs.
    work : float
        Their budget, over every horizon (:data:`bandsim.wholerun.laws.WORK`).
    target : int
        Draws per class aimed at (twice the floor: a 20 % scale deficit of the whole
        class is then detected w.p. > 0.99 at the family-wise level).

    Returns
    -------
    bandsim.wholerun.laws.Sample
        ``sample`` with the kept releases of the new runs (run indices distinct);
        ``per_instance`` gains (means, runs, T') per horizon recorded.
    """
    if len(sample.rel) == 0:
        return sample
    keys, ids = _classes(sample.rel, sample.val)
    own = np.bincount(ids, minlength=len(keys))
    need = _thin(keys, own, target)
    known = {tuple(k) for k in keys}
    rels, vals, per, offset, left = [sample.rel], [sample.val], list(sample.per_instance), \
        sample.runs, float(work)
    for j, div in enumerate(DIVISORS):
        horizon = audit.horizon // div
        if not need or horizon < MIN_PULLS_PER_ARM * len(means) or left <= 0:
            continue
        a, b = np.random.SeedSequence([int(audit.seed), 7919, 1000 + j]).spawn(2)
        kw = dict(seed=int(audit.seed) + 1000 + j, plan=None)
        pilot = play(audit.algo, audit.params, means, horizon, runs=PILOT,
                     rng=np.random.default_rng(a), **kw)
        got = [(pilot, PILOT)]
        rate = _rates(pilot, need, PILOT)
        reach = [need[k] / r for k, r in rate.items() if r * MAX_RUNS >= need[k]]
        cost = max(_cost(pilot, horizon, engine_of(audit), PILOT), 1.0)
        n = int(min(math.ceil(max(reach)) if reach else 0, MAX_RUNS, left // cost))
        left -= cost * (PILOT + max(n - PILOT, 0))
        if n > PILOT:
            room = int(max(len(pilot.rel), len(pilot.blocks)) / PILOT * (n - PILOT) * 1.2)
            got.append((play(audit.algo, audit.params, means, horizon, runs=n - PILOT,
                             rng=np.random.default_rng(b), capacity=room + 4096, **kw),
                        n - PILOT))
        for run, k in got:
            keep = _known(run, known)
            rel = run.rel[keep].copy()
            rel[:, R.REL_RUN] += offset
            rels.append(rel)
            vals.append(run.val[keep])
            offset += k
            for key, c in _rates(run, need, 1).items():
                need[key] -= int(c)
        per.append((tuple(means), max(n, PILOT), horizon))
        need = {k: v for k, v in need.items() if v > 0}
    return Sample(np.concatenate(rels), np.concatenate(vals), offset, per)


def _known(run, known):
    """Mask of ``run``'s releases whose class (law, tag, n, scale) is in ``known``."""
    if len(run.rel) == 0:
        return np.zeros(0, bool)
    keys, ids = _classes(run.rel, run.val)
    ok = np.array([tuple(k) in known for k in keys], bool)
    return ok[ids]


def _rates(run, need, runs):
    """Draws per run of ``run`` in each class of ``need`` (only those it made)."""
    if len(run.rel) == 0:
        return {}
    keys, ids = _classes(run.rel, run.val)
    own = np.bincount(ids, minlength=len(keys))
    return {tuple(k): n / runs for k, n in zip(keys, own) if tuple(k) in need}


__all__ = ["DIVISORS", "MIN_PULLS_PER_ARM", "floors", "top_up"]
