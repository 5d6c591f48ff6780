"""Whole-run record–replay audit of the fixed-confidence (stopping-time) engines.

The regret engines' whole-run audit (:mod:`bandsim.wholerun`) drives them to a
horizon; the elimination-BAI and top-two engines run to a stopping time
instead, through the same release primitive (:mod:`kernels.record`). Here
their recording specialisation is driven directly, and the regret audit's
many-run checks are applied to what it records:

(c) scale
    every release is a Laplace release whose recorded scale is at least the
    declared 1/ε on a sum of rewards in [0, 1] (one line per offending class).
(p) participation
    one episode (epoch) sum per user: the rewards a release covers are exactly
    the ones drawn for it since the previous release, of its own arm (a reward
    in two releases, or a cumulative sum, breaks this), and the released
    blocks of a run sum to at most τ.
(g) law
    per release class (law, n, scale) the noise (value − true)/scale given
    the recorded true statistic is Lap(0, 1) (the exact Gamma test of Σ|z|,
    Fisher's test of too little noise, Kolmogorov–Smirnov), each class alone
    and every class of one scale pooled (:func:`bandsim.wholerun.laws.law_tests`).
(h) independence
    Spearman's ρ and the G-test of the quartiles' joint law, pooled over runs,
    on consecutive releases of one arm and on the k-th releases of
    consecutive arms (:func:`bandsim.wholerun.pairs.independence`).
(r) replay
    a few runs are recorded on a dataset D where one user's reward (in the
    first, a middle and the last block) is y, then replayed on the neighbour
    D' (that reward 1 − y) and on a far dataset (every other reward mirrored,
    x → 1 − x) with the releases frozen: every decision (the sequence of
    releases, τ, the recommendation) must be unchanged, the change must move
    the true statistic of exactly one release, by at most 1 (the sensitivity),
    at a recorded scale ≥ 1/ε: that one release bounds the run's ε.

Every p-value of (g) and (h) is judged at family-wise level 10⁻⁶
(Bonferroni, the bound of Holm's procedure). The verdict is ``inconclusive``
(not PASS) when a release class's law is tested from fewer than 1,000 draws
even pooled with its scale. The stated power is what the draws could detect
with probability 0.99 (:func:`bandsim.wholerun.laws.power_text`).

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries" (PETS 2026);
Azize, Jourdan, Al Marjani & Basu, "On the Complexity of Differentially Private
Best-Arm Identification with Fixed Confidence" (NeurIPS 2023), §4 (one
Laplace release per episode sum, sensitivity 1); Holm, "A simple sequentially
rejective multiple test procedure" (Scand. J. Statist. 1979).
"""
import numpy as np

from ..kernels import codes, record as R
from ..registry import get_mechanism
from ..wholerun import budget as B, laws, pairs

#: Runs recorded per :func:`record` call (one recorder each).
CHUNK = 250
#: Runs replayed on neighbours (check (r)).
REPLAYS = 4


def _capacity(runs, arms, budget):
    return runs * arms * (int(budget).bit_length() + 4) + 64


def record(plan, means, runs, rng, **kw):
    """Record ``runs`` runs of ``plan``'s engine (one recorder).

    Parameters
    ----------
    plan : BAIPlan or TopTwoPlan
    means : float64 (K,)
        Bernoulli means.
    runs : int
    rng : numpy.random.Generator
    **kw
        :func:`kernels.record.recorder` options (mode, block, y, mirror, frozen).

    Returns
    -------
    (Recorder, tau int64 (runs,), recommended int64 (runs,), stopped bool (runs,))

    Raises
    ------
    RuntimeError
        More releases or blocks than the recorder holds (a run longer than its budget).
    """
    means = np.asarray(means, np.float64)
    rec = R.recorder(kw.pop("mode", codes.RECORD), _capacity(runs, len(means), plan.budget),
                     **kw)
    rpar = np.ascontiguousarray(np.repeat(means[None, :, None], runs, axis=0))
    tau, arm = np.zeros(runs, np.int64), np.zeros(runs, np.int64)
    st = np.zeros(runs, np.bool_)
    plan.run_shard(rng, 0, rpar, tau, arm, st, rec)
    if rec.counts[R.N_RELEASES] > len(rec.rel) or rec.counts[R.N_BLOCKS] > len(rec.blk):
        raise RuntimeError("recorder capacity exceeded")
    return rec, tau, arm, st


def _rows(rec):
    n, b = int(rec.counts[R.N_RELEASES]), int(rec.counts[R.N_BLOCKS])
    return rec.rel[:n], rec.val[:n], rec.blk[:b]


def participation(rel, blk, tau, where=""):
    """Check (p): failure lines (module docstring).

    Parameters
    ----------
    rel : int64 (N, 9); blk : int64 (B, 4)
        One recorder's releases and blocks.
    tau : int64 (R,)
        Stopping times (T_max if censored) of its runs.
    where : str
        Appended to the lines (which sample).

    Returns
    -------
    list of str
    """
    out = []
    if len(rel) == 0:
        return out
    hi = rel[:, R.REL_BLOCKS]
    lo = np.r_[0, hi[:-1]]
    cs = np.r_[0, np.cumsum(blk[:, R.BLK_N])]
    covered = cs[hi] - cs[lo]
    owner = np.searchsorted(hi, np.arange(len(blk)), side="right")  # release of each block
    inside = owner < len(rel)
    wrong_arm = np.zeros(len(rel), bool)
    wrong_arm[owner[inside][blk[inside, R.BLK_ARM] != rel[owner[inside], R.REL_ARM]]] = True
    bad = np.flatnonzero((covered != rel[:, R.REL_N]) | wrong_arm)
    if bad.size:
        i = int(bad[0])
        out.append(f"(p) participation: release class {_label(rel[i])} — {bad.size:,} "
                   f"releases (first #{i}, run {int(rel[i, R.REL_RUN])}, arm "
                   f"{int(rel[i, R.REL_ARM])}) cover n = {int(rel[i, R.REL_N])} rewards but "
                   f"{int(covered[i])} were drawn for them"
                   f"{' (other arms too)' if wrong_arm[i] else ''}: a reward enters more than "
                   f"one release or none{where}")
    per_run = np.bincount(rel[:, R.REL_RUN], weights=rel[:, R.REL_N], minlength=len(tau))
    over = np.flatnonzero(per_run > tau)
    if over.size:
        r = int(over[0])
        out.append(f"(p) participation: {over.size} runs (first run {r}) release "
                   f"{int(per_run[r]):,} rewards in episode sums but stopped at τ = "
                   f"{int(tau[r]):,}: a reward is released twice{where}")
    return out


def _label(row, scale=None):
    law = laws.LAW_NAMES.get(int(row[R.REL_LAW]), "?")
    return f"{law} (n = {int(row[R.REL_N])}{'' if scale is None else f', scale {scale:.6g}'})"


def scales(rel, val, declared):
    """Check (c): one failure line per release class whose law or scale is not the
    declared Laplace(≥ ``declared``)."""
    out = []
    if len(rel) == 0:
        return out
    keys, ids = laws._classes(rel, val)
    for c, key in enumerate(map(tuple, keys)):
        n = int(np.sum(ids == c))
        if int(key[0]) != codes.LAW_LAPLACE:
            out.append(f"(c) scale: release class {laws.label(key)} — {n:,} releases are not "
                       f"Laplace releases; the declaration gives Lap({declared:.6g}) on every "
                       "episode sum")
        elif key[3] < declared * (1 - 1e-12):
            out.append(f"(c) scale: release class {laws.label(key)} — {n:,} releases at "
                       f"scale {key[3]:.6g} < the declared 1/ε = {declared:.6g}")
    return out


def replay(plan, means, rng_state, epsilon, where_blocks=None):
    """Check (r) on one run: failure lines, and the run's ε bound (max |Δ true|/scale).

    Parameters
    ----------
    plan : BAIPlan or TopTwoPlan
    means : float64 (K,)
    rng_state : dict
        ``bit_generator.state`` of the run's generator at its start.
    epsilon : float
        The claimed ε.
    where_blocks : sequence of int, optional
        Blocks holding the changed user (default: first, middle, last).

    Returns
    -------
    (list of str, float)
    """
    def gen():
        g = np.random.default_rng()
        g.bit_generator.state = rng_state
        return g

    base, tau, arm, st = record(plan, means, 1, gen())
    nb = int(base.counts[R.N_BLOCKS])
    blocks = sorted({0, nb // 2, nb - 1}) if where_blocks is None else where_blocks
    out, eps_run = [], 0.0
    cases = [(-1, None)] + [(b, y) for b in blocks for y in (0.0, 1.0)]
    for b, y in cases:
        kw = dict(block=b, y=y) if b >= 0 else {}
        ref = record(plan, means, 1, gen(), **kw)
        frozen = ref[0].val[:int(ref[0].counts[R.N_RELEASES]), R.VAL_VALUE].copy()
        far = b < 0
        rep = record(plan, means, 1, gen(), mode=codes.REPLAY, frozen=frozen,
                     **(dict(mirror=True) if far else dict(block=b, y=1.0 - y)))
        what = ("every other reward mirrored" if far else
                f"the user in block {b} changed {y:g} → {1 - y:g}")
        (r0, v0, _), (r1, v1, _) = _rows(ref[0]), _rows(rep[0])
        cols = [R.REL_RUN, R.REL_T, R.REL_ARM, R.REL_N, R.REL_LAW]
        same = (len(r0) == len(r1) and np.array_equal(r0[:, cols], r1[:, cols])
                and all(np.array_equal(ref[k], rep[k]) for k in (1, 2, 3)))
        if not same:
            k = next((i for i in range(min(len(r0), len(r1)))
                      if not np.array_equal(r0[i, cols], r1[i, cols])), min(len(r0), len(r1)))
            out.append(f"(r) replay: {what}: with the releases frozen the run's decisions "
                       f"changed (releases differ from #{k} on; τ {int(ref[1][0]):,} → "
                       f"{int(rep[1][0]):,}): the engine reads something other than its "
                       "releases")
            continue
        if far:
            continue
        moved = np.flatnonzero(np.abs(v1[:, R.VAL_TRUE] - v0[:, R.VAL_TRUE]) > 1e-9)
        holder = int(np.searchsorted(r0[:, R.REL_BLOCKS], b, side="right"))
        if len(moved) > 1 or (len(moved) == 1 and int(moved[0]) != holder):
            out.append(f"(r) replay: {what}: the true statistics of {len(moved)} releases "
                       f"moved (#{', #'.join(map(str, moved[:4]))}; the block is released "
                       f"in #{holder}): a reward enters more than one release")
            continue
        for i in moved:
            d = abs(v1[i, R.VAL_TRUE] - v0[i, R.VAL_TRUE])
            s = v0[i, R.VAL_SCALE]
            e = np.inf if s <= 0 else d / s
            eps_run = max(eps_run, e)
            if d > 1 + 1e-9 or e > epsilon * (1 + 1e-9):
                out.append(f"(r) replay: {what}: release #{i} ({_label(r0[i], s)}) moved by "
                           f"{d:.6g} at scale {s:.6g}: ε of the run ≥ {e:.6g} > {epsilon:g}")
    return out, eps_run


def audit(plan, means, epsilon, runs=2000, seed=0, replays=REPLAYS):
    """Record ``runs`` runs of ``plan``'s engine and apply checks (c), (p), (g), (h), (r).

    Parameters
    ----------
    plan : BAIPlan or TopTwoPlan
        The plan the engine runs (a negative control may alter it).
    means : sequence of float
        Bernoulli means of the instance.
    epsilon : float
        The claimed ε (declared scale 1/ε on every episode sum).
    runs, seed, replays : int

    Returns
    -------
    dict
        ``verdict`` (PASS, FAIL, inconclusive), ``failures`` (lines), ``releases``,
        ``runs``, ``scale_ok``, ``blocks_ok``, ``replay_ok``, ``ks_pvalue`` (every
        release pooled), ``epsilon_replay`` (largest per-run ε the replays saw),
        ``power`` (:func:`bandsim.wholerun.laws.power`), ``power_text``, ``thin``.
    """
    from scipy import stats

    means = np.asarray(means, np.float64)
    declared = 1 / epsilon
    ss = np.random.SeedSequence([int(seed), 24])
    main, rep_seed = ss.spawn(2)
    rng = np.random.default_rng(main)
    rels, vals, fails_c, fails_p, done = [], [], [], [], 0
    while done < runs:
        k = min(CHUNK, runs - done)
        rec, tau, _, _ = record(plan, means, k, rng)
        rel, val, blk = _rows(rec)
        fails_p += participation(rel, blk, tau, f" (chunk of runs from {done})")
        rel = rel.copy()
        rel[:, R.REL_RUN] += done
        rels.append(rel)
        vals.append(val.copy())
        done += k
    rel, val = np.concatenate(rels), np.concatenate(vals)
    fails_c = scales(rel, val, declared)
    sample = laws.Sample(rel, val, runs, [(tuple(means), runs, plan.budget)])
    tests, u = laws.law_tests(sample, None, {}, get_mechanism("laplace"), seed=seed)
    pairs.independence(tests, sample, u)
    tests.floors = B.floors(rel, val)
    fails_r, eps_rep = [], 0.0
    g = np.random.default_rng(rep_seed)
    for _ in range(replays):
        lines, e = replay(plan, means, g.bit_generator.state, epsilon)
        fails_r += lines
        eps_rep = max(eps_rep, e)
        record(plan, means, 1, g)  # move on to the next run's stream
    failures = fails_c + fails_p[:3] + tests.failures() + fails_r[:5]
    pw = laws.power(tests)
    thin = [f"{f[0]}: {f[2]:,} draws" for f in tests.floors if f[2] < laws.FLOOR]
    lap = val[rel[:, R.REL_LAW] == codes.LAW_LAPLACE]
    z = (lap[:, R.VAL_VALUE] - lap[:, R.VAL_TRUE]) / np.maximum(lap[:, R.VAL_SCALE], 1e-300)
    verdict = "FAIL" if failures else "inconclusive" if thin or not len(rel) else "PASS"
    return dict(verdict=verdict, failures=failures, releases=int(len(rel)), runs=int(runs),
                scale_ok=not fails_c, blocks_ok=not fails_p, replay_ok=not fails_r,
                ks_pvalue=float(stats.kstest(z, stats.laplace.cdf).pvalue) if len(z) else 1.0,
                epsilon_replay=float(eps_rep), alpha=laws.ALPHA, power=pw,
                power_text=laws.power_text(pw), thin=thin[:5])


__all__ = ["CHUNK", "REPLAYS", "audit", "participation", "record", "replay", "scales"]
