"""Every release's noise law, tested over many recorded runs (check (g) of the whole-run audit).

The single-run checks (:mod:`bandsim.wholerun.checks`) replay one run on
neighbours; its check (e) sees only the Laplace releases of that one run.
Here the algorithm's real engine, in its recording specialisation, records
**many** runs (:func:`record_many`: runs × T chosen per algorithm from a
pilot, so that each release class has :data:`TARGET` draws — at least
:data:`FLOOR` — where the budget :data:`WORK` allows), on instances chosen so that the structure
is entered (arms eliminated, a second SVT instance opened). Every release
falls in a **class** — law, tag (tree level, epoch, SVT instance), the
number n of rewards its statistic covers (its position: the stage, the
episode, the node size) and scale — and each class is tested against the
law the declaration gives it, *given the recorded true statistic*:

* ``laplace``, ``svt-threshold``, ``svt-query``: z = (value − true)/scale
  is Lap(0, 1) (the exact Gamma test of Σ|z|, Fisher's test of too little
  noise on some, Kolmogorov–Smirnov; :func:`bandsim.wholerun.noise.laplace_pvalues`);
  each class on its own and all classes of one (law, scale) pooled;
* ``batch``: the exact law of the mechanism's output given its statistic,
  its parameters (g, τ, m; τ of binary summation) recomputed from the
  declaration (:mod:`bandsim.wholerun.exact`): a G-test in the output space,
  a one-sided test of too little noise (mean absolute deviation), and every
  output possible under the declared law (on its grid, in its window).

Every p-value of check (g) and of the independence check (h)
(:mod:`bandsim.wholerun.pairs`) is judged at :data:`ALPHA` = 10⁻⁶ over all
tests of the audit together (Bonferroni). :func:`scale_power` gives what a
class of n draws can detect: the noise-scale deficit found with probability
0.99.

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries" (PETS 2026);
Sokal & Rohlf, *Biometry* (G-test); Holm, "A simple sequentially rejective
multiple test procedure" (Scand. J. Statist. 1979) — Bonferroni as its bound.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from ..kernels import codes
from ..kernels import record as R
from ..privacy.release import MATCH_TOL, law_of
from ..privacy.sampled_stats import g_test
from .driver import play
from .exact import batch_law
from .noise import laplace_pvalues

#: Family-wise significance of checks (g) and (h) together.
ALPHA = 1e-6
#: Draws per release class the run count aims at (the verdict counts the classes that
#: reach :data:`FLOOR`).
TARGET = 5000
#: Draws per class the audit promises where the budget allows.
FLOOR = 1000
#: Most runs recorded per instance, and the pilot's runs.
MAX_RUNS, PILOT = 20_000, 4
#: Budget per instance: recorded releases and blocks (+ T per run for engines whose cost
#: is per pull rather than per release), over all its runs.
WORK = 1_000_000
#: Engines whose run costs units per pull whatever they record (a recorded release or
#: block costs one unit): engine → units per pull. The event-driven engine records
#: O(log T) per run but samples each window's pull counts (~7 ms a run of 10⁵ pulls).
PER_PULL = {"per-round": 0.1, "per-step": 1.0, "events": 0.01}
#: Fewest draws a class is tested on (exact tests; fewer: listed as too thin).
MIN_DRAWS = 5
#: Scale deficit the best class of a verdict must resolve, or the verdict is inconclusive.
INCONCLUSIVE = 0.5
#: Most distinct counts k whose declared release law (a plug-in's Python) a class evaluates.
MAX_COUNTS = 32
#: Laws of the continuous classes: z = (value − true)/scale ~ Lap(0, 1).
CONTINUOUS = (codes.LAW_LAPLACE, codes.LAW_SVT_THRESHOLD, codes.LAW_SVT_QUERY)
LAW_NAMES = {v: k for k, v in codes.LAWS.items()}


@dataclass
class Sample:
    """Many recorded runs, concatenated (run indices made distinct).

    Attributes
    ----------
    rel : int64 (N, 9); val : float64 (N, 3)
        As :class:`bandsim.wholerun.driver.Run`.
    runs : int
        Runs recorded, over all instances.
    per_instance : list of (tuple, int, int)
        (means, runs, T) of each instance and horizon recorded
        (:func:`bandsim.wholerun.budget.top_up` adds shorter horizons).
    """

    rel: np.ndarray
    val: np.ndarray
    runs: int
    per_instance: list = field(default_factory=list)


@dataclass
class Tests:
    """The p-values of checks (g) and (h), judged together at the end.

    ``items``: (p, line) — the failure line is used when p is below the
    Bonferroni level; ``hard``: failure lines of deterministic findings
    (an impossible output); ``classes``: (label, draws, scale deficit
    detectable); ``pairs``: (label, pairs, |ρ| detectable), filled by
    :mod:`bandsim.wholerun.pairs`; ``untested``: classes with no exact law
    or too few draws; ``floors``: (label, own draws, draws its law is tested
    from) of every class (:func:`bandsim.wholerun.budget.floors`).
    """

    items: list = field(default_factory=list)
    hard: list = field(default_factory=list)
    classes: list = field(default_factory=list)
    pairs: list = field(default_factory=list)
    untested: list = field(default_factory=list)
    floors: list = field(default_factory=list)

    @property
    def level(self):
        """The per-test level: :data:`ALPHA` over every test (Bonferroni)."""
        return ALPHA / max(1, len(self.items))

    def failures(self):
        a = self.level
        return self.hard + [line(p, a) for p, line in self.items if not p >= a]


def engine_of(audit):
    """The engine that runs: the plan's own (``plan.engine``, e.g. Lazy-DP-TS's event-driven
    default) or the algorithm's declared one (:data:`PER_PULL` reads it)."""
    return getattr(audit.plan, "engine", None) or audit.algo.engine


def _cost(run, horizon, engine, runs):
    per = (len(run.rel) + len(run.blocks)) / runs
    return per + PER_PULL.get(engine, 0.0) * horizon


def _classes(rel, val):
    """(keys float64 (C, 4), ids int64 (N,)): the release classes (law, tag, n, scale) and
    each release's (one 1-d sort per column: row-wise unique is slow at 10⁶ releases)."""
    cols = [rel[:, R.REL_LAW], rel[:, R.REL_TAG], rel[:, R.REL_N], val[:, R.VAL_SCALE]]
    code = np.zeros(len(rel), np.int64)
    levels = []
    for c in cols:
        u, inv = np.unique(c, return_inverse=True)
        code = code * len(u) + inv.ravel()
        levels.append(u)
    uniq, ids = np.unique(code, return_inverse=True)
    keys = np.zeros((len(uniq), 4))
    rest = uniq.copy()
    for j in range(3, -1, -1):
        keys[:, j] = levels[j][rest % len(levels[j])]
        rest //= len(levels[j])
    return keys, ids.ravel()


def runs_for(pilot, horizon, engine, runs=PILOT, target=TARGET, work=WORK):
    """Runs to record on an instance, from a pilot of ``runs`` runs: enough that its
    rarest class reachable within :data:`MAX_RUNS` runs gets ``target`` draws, at most
    ``work`` / (cost of a run)."""
    if len(pilot.rel) == 0:
        return 0
    counts = np.bincount(_classes(pilot.rel, pilot.val)[1])
    rates = counts / runs
    reach = rates[rates >= target / MAX_RUNS]
    want = math.ceil(target / reach.min()) if reach.size else MAX_RUNS
    cap = int(work // max(_cost(pilot, horizon, engine, runs), 1.0))
    return int(max(1, min(want, MAX_RUNS, cap)))


def sample_pulls(horizon, instances=3, work=WORK):
    """Pulls :func:`record_many` records at most on ``instances`` instances at T =
    ``horizon``: per instance a pilot of :data:`PILOT` runs, then at most ``work`` more
    (and a fifth for margin); plus the top-up at shorter horizons
    (:func:`bandsim.wholerun.budget.top_up`: pilots at T/10³, T/10², T/10 and one more
    ``work``). The memory guard reads it."""
    return instances * (PILOT * float(horizon) + 1.2 * work) + (
        PILOT * float(horizon) * 0.111 + 1.2 * work)


def record_many(audit, instances, work=WORK):
    """Record many runs of ``audit``'s engine (RECORD mode) on each instance.

    Parameters
    ----------
    audit : bandsim.wholerun.replay._Audit
        Algorithm, parameters, T, plan and seed.
    instances : sequence of tuple of float
        Arm means of each instance.
    work : float
        Budget per instance (:data:`WORK`).

    Returns
    -------
    Sample
    """
    rels, vals, per, offset = [], [], [], 0
    for j, means in enumerate(instances):
        ss = np.random.SeedSequence([int(audit.seed), 7919, j])
        a, b = ss.spawn(2)
        kw = dict(seed=int(audit.seed) + 1 + j)
        pilot = audit.play(means=means, runs=PILOT, rng=np.random.default_rng(a),
                           capacity=None, **kw)
        n = runs_for(pilot, audit.horizon, engine_of(audit), work=work)
        got = [(pilot, PILOT)]
        if n > PILOT:  # room for what the pilot's runs logged, and a margin
            room = int(max(len(pilot.rel), len(pilot.blocks)) / PILOT * (n - PILOT) * 1.2)
            got.append((audit.play(means=means, runs=n - PILOT, rng=np.random.default_rng(b),
                                   capacity=room + 4096, **kw), n - PILOT))
        for run, k in got:
            rel = run.rel.copy()
            rel[:, R.REL_RUN] += offset
            rels.append(rel)
            vals.append(run.val)
            offset += k
        per.append((tuple(means), max(n, PILOT), audit.horizon))
    return Sample(np.concatenate(rels), np.concatenate(vals), offset, per)


def label(key):
    """``laplace (tag 3, n = 8, scale 36)``: a release class named by its key."""
    law, tag, n, scale = key
    where = [f"tag {int(tag)}"] if tag != 0 or law in (codes.LAW_SVT_THRESHOLD,
                                                         codes.LAW_SVT_QUERY) else []
    if n > 0:
        where.append(f"n = {int(n)}")
    where.append(f"scale {scale:.6g}")
    return f"{LAW_NAMES.get(int(law), '?')} ({', '.join(where)})"


def scale_power(n, level):
    """The noise-scale deficit f a class of n Lap draws detects with probability 0.99: the
    exact Gamma test of Σ|z| at ``level`` (two-sided) rejects a scale (1 − f) that often."""
    from scipy import stats

    if n < 1:
        return 1.0
    crit = stats.gamma.ppf(level / 2, n)
    return float(max(0.0, 1.0 - crit / stats.gamma.ppf(0.99, n)))


def rho_power(n, level):
    """|ρ| detected with probability 0.99 from ``n`` pairs at two-sided ``level`` (Fisher's
    z: ρ_min = tanh((z_{1−level/2} + z_{0.99}) / √(n − 3)))."""
    from scipy import stats

    if n <= 3:
        return 1.0
    return float(math.tanh((stats.norm.isf(level / 2) + stats.norm.isf(0.01)) / math.sqrt(n - 3)))


def _discrete_power(n, mean, var, level):
    """The same for a discrete law: the relative drop of E|d| detected w.p. 0.99 by the
    one-sided normal test of its mean absolute deviation."""
    from scipy import stats

    if n < 2 or mean <= 0:
        return 1.0
    return float(min(1.0, (stats.norm.isf(level) + stats.norm.isf(0.01))
                     * math.sqrt(var / n) / mean))


def _continuous(tests, key, idx, sample, u, where):
    rel, val = sample.rel, sample.val
    scale = val[idx, R.VAL_SCALE]
    if not np.all(scale > 0):
        tests.hard.append(f"(g) law: release class {label(key)} — {where}: a zero noise scale")
        return
    z = (val[idx, R.VAL_VALUE] - val[idx, R.VAL_TRUE]) / scale
    from scipy import stats

    u[idx] = stats.laplace.cdf(z)
    if len(idx) < MIN_DRAWS:
        tests.untested.append(f"{label(key)}: {len(idx)} draws")
        return
    p_scale, p_small, ks = laplace_pvalues(z)
    n, mz = len(z), float(np.mean(np.abs(z)))

    def line(p, a, what):
        return (f"(g) law: release class {label(key)} — {n:,} draws ({where}): {what} "
                f"(p = {p:.3g} < {a:.3g}): the noise is not the declared "
                f"Lap({key[3]:.6g}) given the true statistic")
    tests.items += [(p_scale, lambda p, a: line(p, a, f"mean |z| = {mz:.4g}, 1 expected "
                                                       "(noise scale off)")),
                    (p_small, lambda p, a: line(p, a, "too little noise on some releases "
                                                       "(Fisher)")),
                    (ks.pvalue, lambda p, a: line(p, a, f"Kolmogorov–Smirnov D = "
                                                         f"{ks.statistic:.4g}"))]
    tests.classes.append((label(key), n, "laplace"))


def _discrete(tests, key, idx, sample, law, u, rng, where):
    """A batch class with a :class:`bandsim.wholerun.exact.DiscreteLaw`."""
    from scipy import stats

    val = sample.val
    c, ok = law.noise(val[idx, R.VAL_TRUE], val[idx, R.VAL_VALUE])
    if not ok.all():
        i = int(idx[np.flatnonzero(~ok)[0]])
        unit = (f" (= {val[i, R.VAL_VALUE] * law.g:.9g}/g)", " encoded sum") if law.m else ("", "")
        tests.hard.append(f"(g) law: release class {label(key)} — release #{i} ({where}) "
                          f"outputs {val[i, R.VAL_VALUE]:.9g}{unit[0]} given the true"
                          f"{unit[1]} {val[i, R.VAL_TRUE]:.9g}, impossible under {law.what} "
                          "(the kernel's derived parameters are not the declaration's)")
        return
    d = law.circular(c)
    u[idx] = law.pit(d, rng)
    if len(idx) < MIN_DRAWS:
        tests.untested.append(f"{label(key)}: {len(idx)} draws")
        return
    n = len(idx)
    counts, probs, outside = law.cells(val[idx, R.VAL_TRUE], c)
    g, p_g, cells = g_test(counts, probs, outside)
    centre, m1, v1 = law.moments()
    mad = float(np.mean(np.abs(d - centre)))
    zst = (mad - m1) / math.sqrt(max(v1, 1e-300) / n)
    p_small = float(stats.norm.cdf(zst))

    def line(p, a, what):
        return (f"(g) law: release class {label(key)} — {n:,} draws ({where}): {what} "
                f"(p = {p:.3g} < {a:.3g}): the outputs do not follow {law.what} given "
                "the true statistic")
    tests.items += [(p_g, lambda p, a: line(p, a, f"G-test on {cells} output cells, "
                                                   f"G = {g:.4g}")),
                    (p_small, lambda p, a: line(p, a, f"mean |noise| = {mad:.4g} < {m1:.4g} "
                                                       "expected (too little noise)"))]
    tests.classes.append((label(key), n, (m1, v1)))


def _release_hook(tests, key, idx, sample, spec, b, u, rng, where):
    """A data-dependent batch class: the plug-in's declared release law given each count k."""
    val = sample.val
    ks = np.rint(val[idx, R.VAL_TRUE]).astype(np.int64)
    uk, nk = np.unique(ks, return_counts=True)
    if len(uk) > MAX_COUNTS:  # a plug-in's release law is Python: its most frequent counts
        keep = np.isin(ks, uk[np.argsort(-nk, kind="stable")[:MAX_COUNTS]])
        tests.untested.append(f"{label(key)}: {int((~keep).sum())} of {len(idx)} draws at "
                              f"counts k beyond the {MAX_COUNTS} most frequent")
        idx, ks = idx[keep], ks[keep]
    y = val[idx, R.VAL_VALUE]
    laws = {int(k): law_of(spec, b, int(k)) for k in np.unique(ks)}
    dev, m1, v1 = np.zeros(len(idx)), 0.0, 0.0  # |y − E[y | k]|: too little noise
    allv = np.unique(np.concatenate([v for v, _ in laws.values()]))
    expected = np.zeros(len(allv))
    cell = np.full(len(idx), -1)
    for k, (v, p) in laws.items():
        m = ks == k
        expected[np.searchsorted(allv, v)] += p * m.sum()
        j = np.clip(np.searchsorted(v, y[m]), 0, len(v) - 1)
        jl = np.clip(j - 1, 0, len(v) - 1)
        near = np.where(np.abs(v[jl] - y[m]) < np.abs(v[j] - y[m]), jl, j)
        hit = np.abs(v[near] - y[m]) <= MATCH_TOL * np.maximum(1.0, np.abs(v[near]))
        cdf = np.concatenate([[0.0], np.cumsum(p)])
        sub = np.flatnonzero(m)
        cell[sub[hit]] = np.searchsorted(allv, v[near[hit]])
        uu = cdf[near] + rng.random(len(near)) * p[near]
        u[idx[sub]] = np.where(hit, uu, np.nan)
        mu = float((v * p).sum())
        a = np.abs(v - mu)
        dev[sub] = np.abs(y[m] - mu)
        m1 += float((a * p).sum()) * m.sum()
        v1 += float(((a - (a * p).sum()) ** 2 * p).sum()) * m.sum()
    if (cell < 0).any():
        i = int(idx[np.flatnonzero(cell < 0)[0]])
        tests.hard.append(f"(g) law: release class {label(key)} — release #{i} ({where}) "
                          f"outputs {val[i, R.VAL_VALUE]:.9g}, outside the support of "
                          f"{spec.name}'s declared release law at n = {b.n}, k = "
                          f"{int(round(val[i, R.VAL_TRUE]))}")
        return
    from scipy import stats

    n = len(idx)
    counts = np.bincount(cell, minlength=len(allv))
    g, p_g, cells = g_test(counts, expected / n, 0)
    p_small = float(stats.norm.cdf((dev.sum() - m1) / math.sqrt(max(v1, 1e-300))))

    def line(p, a, what):
        return (f"(g) law: release class {label(key)} — {n:,} draws ({where}): {what} (p = "
                f"{p:.3g} < {a:.3g}): the plug-in's release hook does not follow "
                f"{spec.name}'s declared release law given the count k")
    tests.items += [(p_g, lambda p, a: line(p, a, f"G-test on {cells} output cells, G = "
                                                   f"{g:.4g}")),
                    (p_small, lambda p, a: line(p, a, f"mean |value − E[value | k]| = "
                                                       f"{dev.mean():.4g} < {m1 / n:.4g} "
                                                       "expected (too little noise)"))]
    tests.classes.append((label(key), n, (m1 / n, v1 / n)))


def law_tests(sample, algo, params, spec, seed=0):
    """Check (g) on a :class:`Sample`: every release class against its declared law.

    Parameters
    ----------
    sample : Sample
    algo : bandsim.Algorithm
    params : dict
        Resolved parameters (the batches are derived from them).
    spec : bandsim.Mechanism or None
        The algorithm's mechanism.
    seed : int
        Seed of the randomized probability-integral transforms.

    Returns
    -------
    tests : Tests
        The pending p-values (judged with check (h)'s by :meth:`Tests.failures`).
    u : float64 (N,)
        Per release, its noise's probability-integral transform under the declared
        law (Uniform(0, 1) iid under the hypothesis; nan: no law), for check (h).
    """
    tests = Tests()
    rel, val = sample.rel, sample.val
    u = np.full(len(rel), np.nan)
    rng = np.random.default_rng([int(seed), 104729])
    if len(rel) == 0:
        return tests, u
    uniq, inv = _classes(rel, val)
    order = np.argsort(inv, kind="stable")
    bounds = np.searchsorted(inv[order], np.arange(len(uniq) + 1))
    pooled = {}
    for c, key in enumerate(map(tuple, uniq)):
        idx = order[bounds[c]:bounds[c + 1]]
        runs = len(np.unique(rel[idx, R.REL_RUN]))
        where = f"{runs:,} runs, first release #{int(idx[0])}"
        law = int(key[0])
        if law in CONTINUOUS:
            _continuous(tests, key, idx, sample, u, where)
            pooled.setdefault((law, key[3]), []).append(idx)
        elif law == codes.LAW_BATCH:
            b = spec.derive(int(key[2]), params) if spec is not None else None
            kind = batch_law(spec, b) if b is not None else None
            if kind == "release":
                _release_hook(tests, key, idx, sample, spec, b, u, rng, where)
            elif kind is not None:
                _discrete(tests, key, idx, sample, kind, u, rng, where)
            else:
                tests.untested.append(f"{label(key)}: no exact law of "
                                      f"{getattr(spec, 'name', '?')} known to the audit")
    for (law, scale), parts in pooled.items():  # one (law, scale), every position together
        if len(parts) < 2:
            continue
        idx = np.sort(np.concatenate(parts))
        z = (val[idx, R.VAL_VALUE] - val[idx, R.VAL_TRUE]) / val[idx, R.VAL_SCALE]
        p_scale, p_small, ks = laplace_pvalues(z)
        n, mz = len(z), float(np.mean(np.abs(z)))
        name = f"every {LAW_NAMES[law]} release of scale {scale:.6g} ({len(parts)} classes)"

        def line(p, a, what, name=name, n=n):
            return (f"(g) law: {name} — {n:,} draws: {what} (p = {p:.3g} < {a:.3g}): the "
                    "noise is not the declared Laplace law given the true statistic")
        tests.items += [(p_scale, lambda p, a, mz=mz, line=line: line(
                            p, a, f"mean |z| = {mz:.4g}, 1 expected (noise scale off)")),
                        (p_small, lambda p, a, line=line: line(
                            p, a, "too little noise on some releases (Fisher)")),
                        (ks.pvalue, lambda p, a, ks=ks, line=line: line(
                            p, a, f"Kolmogorov–Smirnov D = {ks.statistic:.4g}"))]
        tests.classes.append((name, n, "pooled"))
    return tests, u


def power(tests):
    """What the budget could detect, from the classes and pairs actually tested.

    Returns
    -------
    dict
        ``classes`` (tested), ``min_draws``, ``max_draws``; ``scale_low``: the
        noise-scale deficit detected w.p. 0.99 in the class with the most draws
        (``scale_low_every``: in every tested class, i.e. the thinnest);
        ``min_floor``: the fewest draws any class's law is tested from (its own,
        or its law and scale pooled over positions when under :data:`FLOOR`:
        :func:`bandsim.wholerun.budget.floors`), ``pooled`` the classes tested so,
        ``thin`` those under :data:`FLOOR` even pooled, ``scale_low_law`` the
        deficit detected w.p. 0.99 at ``min_floor`` draws;
        ``pairs``/``min_pairs``/``correlation``: the |ρ| detected w.p. 0.99 in
        every pair class (its thinnest); ``level``: the per-test level.
    """
    a = tests.level
    rows = []
    for name, n, kind in tests.classes:
        if kind in ("laplace", "pooled"):
            f = scale_power(n, a)
        elif isinstance(kind, tuple):
            f = _discrete_power(n, kind[0], kind[1], a)
        else:
            f = math.nan
        rows.append((name, n, f, kind == "pooled"))
    out = dict(level=a, tests=len(tests.items))
    own = [r for r in rows if not r[3]]
    if own:
        ns = [r[1] for r in own]
        fs = [r[2] for r in rows if math.isfinite(r[2])]
        out.update(classes=len(own), min_draws=int(min(ns)), max_draws=int(max(ns)),
                   scale_low=round(min(fs), 4) if fs else None,
                   scale_low_every=round(max(r[2] for r in own if math.isfinite(r[2])), 4)
                   if any(math.isfinite(r[2]) for r in own) else None,
                   classes_target=sum(1 for n in ns if n >= FLOOR))
    if tests.floors:  # every class: its own draws, or its law's pooled over positions
        fl = tests.floors
        law_f = [scale_power(f[2], a) for f in fl if f[3]] + [
            r[2] for r in own if isinstance(r[2], float) and math.isfinite(r[2])
            and not r[0].startswith(tuple(LAW_NAMES[c] for c in CONTINUOUS))]
        out.update(min_floor=int(min(f[2] for f in fl)),
                   pooled=sum(1 for f in fl if f[1] < FLOOR <= f[2]),
                   thin=[f"{f[0]}: {f[2]:,} draws" for f in fl if f[2] < FLOOR][:5],
                   scale_low_law=round(max(law_f), 4) if law_f else None)
    if tests.pairs:
        out.update(pairs=len(tests.pairs), min_pairs=int(min(p[1] for p in tests.pairs)),
                   correlation=round(max(rho_power(p[1], a) for p in tests.pairs), 4))
    if tests.untested:
        out["untested"] = tests.untested[:10]
    return out


def power_text(pw):
    """One line: what the verdict's budget could detect (e.g. ``noise scale ≥ 21 % low in
    a class of ≥ 1,000 draws; |correlation| ≥ 0.08 between releases; …``)."""
    if "classes" not in pw:
        return "no noisy release recorded: nothing could be detected"
    parts = []
    if pw.get("scale_low") is not None:
        parts.append(f"noise scale ≥ {100 * pw['scale_low']:.0f} % low in the best-sampled "
                     f"class (≥ {100 * pw['scale_low_every']:.0f} % in every class)")
    if "correlation" in pw:
        parts.append(f"|correlation| ≥ {pw['correlation']:.2g} between the releases of "
                     f"every pair class (≥ {pw['min_pairs']:,} pairs each)")
    if pw.get("scale_low_law") is not None:
        parts.append(f"≥ {100 * pw['scale_low_law']:.0f} % low in every law")
    law = (f"each law from ≥ {pw['min_floor']:,} draws" if "min_floor" in pw else "")
    if pw.get("pooled"):
        law += (f" ({pw['pooled']} classes under {FLOOR:,} draws pooled with the other "
                "positions of their law and scale)")
    parts.append((law + "; " if law else "") + f"each of {pw['classes']} release classes "
                 f"alone from ≥ {pw['min_draws']:,} draws ({pw['classes_target']} from ≥ "
                 f"{FLOOR:,}); detected w.p. 0.99 at family-wise level {ALPHA:g}")
    return "; ".join(parts)


__all__ = ["ALPHA", "FLOOR", "INCONCLUSIVE", "MAX_RUNS", "PILOT", "Sample", "TARGET", "Tests",
           "WORK", "label", "law_tests", "sample_pulls", "power", "power_text", "record_many", "rho_power",
           "runs_for", "scale_power"]
