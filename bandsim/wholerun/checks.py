"""The whole-run audit: record a run, replay it on neighbours, check four things.

For one algorithm (its real engine, in the recording specialisation of
:mod:`kernels.record`), one parameter setting and one instance:

1. a **reference** run is recorded; its blocks (the reward draws) give the
   positions of the neighbours: the first block, the second, the first of
   the second stage/epoch and the one before it, the blocks around a power
   of two of time (tree-node and epoch boundaries), the middle and the last;
2. for each position and each change of that one user's reward
   (:data:`CHANGES`: 0 → 1, 1 → 0 and the fractional 0 → 0.99), the run on
   D (reward y0) is recorded and replayed on D' (reward y1) with every
   release frozen to its recorded value, and the reference run is replayed
   on far datasets made of the same draws — its *mirror* (every other reward
   x → 1 − x) and datasets that move every arm gap and ordering
   (:mod:`bandsim.wholerun.transforms`);
3. four deterministic checks:

   (a) **decisions** — the replays take every decision of the recorded runs
       (same blocks, same releases at the same times and arms, same
       outputs): control flow reads only releases;
   (b) **sensitivity** — the releases whose true statistic changed are
       covered by the algorithm's declared participation
       (:mod:`bandsim.privacy.participation`: law, scale, count, case), each
       changed by at most the declared sensitivity, and every sum of n
       rewards lies in [0, n] (encoded: [0, n g]);
   (c) **scales** — every recorded noise scale is one the privacy claim was
       computed from: a declared Laplace/SVT scale, or for a batch of the
       mechanism its calibration at that batch size;
   (d) **composition** — the releases the user entered, composed by basic
       composition (Σ Δ_i / b_i), are at most the claimed ε; for an (ε, δ)
       claim that basic composition exceeds, the privacy-loss distribution
       of dp-accounting at the claimed δ decides (for pure releases it is
       never above the basic figure, so it is not computed when that passes);
       a batch of the mechanism counts once, as its per-batch guarantee;

   (e) **noise** — the recorded noise of the reference run's Laplace
       releases, divided by its recorded scale, is Lap(0, 1)
       (:func:`bandsim.wholerun.noise.laplace_noise`, at 10⁻⁶; from 20
       releases on): an engine that draws another scale than it records;
   (x) **reads** — the reference and wide runs replayed with one law's
       releases shifted far (:mod:`bandsim.wholerun.reads`): some decision
       or later release moves (the engine computes with what it releases),
       and an SVT query's margin follows its instance's threshold release;

   (p) **production** — the engine's production specialisation (``rec``
       None, what a simulation runs) gives the recording specialisation's
       outputs bit for bit over 32 runs (4 for an O(T) engine) of the audit's seed on each of the
       default, the wide and a close four-arm instance
       (:mod:`bandsim.wholerun.production`):
       the code audited is the code that runs;

   and, for a plug-in mechanism (a sampler bandsim has not read),

   (f) **sampler** — the statistical sampled audit of its sampler at the
       batch sizes the recorded run released (:mod:`bandsim.wholerun.samplers`);

4. over many recorded runs (:mod:`bandsim.wholerun.many`): (g) **law** — every
   release class's noise follows its declared law given the true statistic
   (:mod:`bandsim.wholerun.laws`); (h) **independence** — the noises of the
   pairs of releases the structure names are independent
   (:mod:`bandsim.wholerun.pairs`); with the power of both stated in the
   verdict, which is ``incomplete`` when a declared release or structure was
   never entered and ``inconclusive`` when the budget could detect nothing.

What it certifies: for this run and these neighbours, the whole run — every
release of it, not one batch — is what the declaration says, and the
declaration composes to the claim. It does not certify other seeds,
instances or neighbours, nor the float64 implementation of Laplace noise
(Mironov, CCS 2012); the samplers' laws are the sampled audit's business.

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries" (PETS 2026),
record and replay.
"""
import inspect
import math
import time

import numpy as np

from .. import registry, resources
from ..errors import ConfigError, check_int
from ..kernels import codes
from ..kernels import record as R
from ..params import MAX_HORIZON, REQUIRED
from ..plancache import make_plan, memo, plan_key
from .coverage import aim, unentered
from .laws import FLOOR, INCONCLUSIVE, WORK, power, power_text, sample_pulls
from .many import many_run
from .noise import laplace_noise
from .production import production
from .reads import reads
from .replay import _Audit, _label
from .report import WholeRunReport
from .samplers import audit_samplers, untrusted
from .transforms import far_replays

#: One user's reward in D and in D': 0 ↔ 1 both ways and a fractional change.
CHANGES = ((0.0, 1.0), (1.0, 0.0), (0.0, 0.99))
#: Default instance: three arms close enough that the run lasts.
MEANS = (0.75, 0.7, 0.65)
#: Second instance of the neighbours: gaps wide enough that arms are eliminated and
#: SVT instances halt within 10⁵ pulls (releases the close instance never makes).
WIDE_MEANS = (0.9, 0.5, 0.2)
#: Instance of the clipped-Gaussian reference run: a location at 1 and σ large, so that
#: an unclipped reward leaves [0, 1] often.
GAUSSIAN_MEANS, GAUSSIAN_SIGMA = (1.0, 0.95, 0.9), 0.5
#: Third instance of the many-run checks of an SVT algorithm: the first halt eliminates the
#: worst arm only, so a second SVT instance opens.
STAGGERED_MEANS = (0.9, 0.85, 0.2)
#: Instance of check (p) where noise tips decisions: four arms 0.05 apart.
CLOSE_MEANS = (0.6, 0.55, 0.5, 0.45)
#: Last instance of the neighbours, for declared releases still unentered: one arm takes
#: nearly every pull, so its count reaches the last doubling epochs within T.
DOMINANT_MEANS = (0.99, 0.01)


def positions(blocks, horizon):
    """Block indices of the neighbours (see the module docstring), at most 10."""
    nb = len(blocks)
    if nb == 0:
        return []
    pick = [0, 1, nb // 2, nb - 1]
    t0 = blocks[:, R.BLK_T0]
    later = np.nonzero(t0 != t0[0])[0]
    if later.size:  # first block of the second stage/epoch and the one before it
        pick += [int(later[0]) - 1, int(later[0])]
    for j in (int(math.log2(max(horizon, 2))) // 2, int(math.log2(max(horizon, 2))) - 2):
        at = int(np.searchsorted(t0, 2 ** j))  # around a power of two of time
        pick += [at - 1, at]
    arms, n = blocks[:, R.BLK_ARM], blocks[:, R.BLK_N]
    before = np.zeros(nb, np.int64)  # the arm's pulls before the block
    for a in np.unique(arms):
        m = arms == a
        before[m] = np.cumsum(n[m]) - n[m]
    # the arm's count reaching 2^j − 1: the reward opening a doubling epoch (DP-TS's
    # first reward of epoch r enters all r + 1 nodes of its tree: the worst case)
    hits = np.flatnonzero((before >= 3) & ((before & (before + 1)) == 0))
    if hits.size:
        pick += [int(hits[0]), int(hits[hits.size // 2]), int(hits[-1])]
    return sorted({b for b in pick if 0 <= b < nb})


def epoch_positions(blocks, taken):
    """One block per doubling epoch not in ``taken``: the first whose arm's count reaches
    2^j − 1, for every j (every epoch of a doubling structure is entered)."""
    arms, n = blocks[:, R.BLK_ARM], blocks[:, R.BLK_N]
    before = np.zeros(len(blocks), np.int64)
    for a in np.unique(arms):
        m = arms == a
        before[m] = np.cumsum(n[m]) - n[m]
    hits = np.flatnonzero((before >= 3) & ((before & (before + 1)) == 0))
    _, first = np.unique(before[hits], return_index=True)
    return sorted(set(int(b) for b in hits[first]) - set(taken))



def audit_params(algo, params=None):
    """The parameters audited: ``params`` over the defaults; ε = 0.5 and δ = 10⁻⁶ where
    the declaration has no default."""
    given = dict(params or {})
    for name, value in (("epsilon", 0.5), ("delta", 1e-6)):
        p = algo.param(name)
        if p is not None and p.default is REQUIRED:
            given.setdefault(name, value)
    return given


def recordable(algo, params, horizon, plan=None):
    """Why ``algo``'s engine cannot be recorded (str), or None: its plan's ``run_shard``
    must take the recorder (``rec``)."""
    plan = make_plan(algo, params, len(MEANS), horizon) if plan is None else plan
    plan_cls = getattr(plan, "run_shard", None)
    try:
        takes = plan_cls is not None and "rec" in inspect.signature(plan_cls).parameters
    except (TypeError, ValueError):
        takes = False
    if takes:
        return None
    return f"its {algo.engine} engine has no recording mode (its plan's run_shard takes no rec)"


def _neighbours(a, ref, means, where, blocks=None, until=None):
    """Record and replay the neighbours of ``ref`` (check (a), (b), (d)); how many.
    ``blocks``: these positions, with one change each, while ``until()`` (default: the
    declared releases not entered) is non-empty (default: :func:`positions`, every
    change of :data:`CHANGES`)."""
    count = 0
    for b in positions(ref.blocks, a.horizon) if blocks is None else blocks:
        if blocks is not None and not (until or a.unexercised)():
            break  # every declared release entered
        for y0, y1 in CHANGES if blocks is None else CHANGES[:1]:
            what = (f"at block {b} (t0 = {int(ref.blocks[b, R.BLK_T0])}){where} from {y0:g} "
                    f"to {y1:g}")
            rec = a.play(means=means, block=b, y=y0)
            rep = a.play(means=means, block=b, y=y1, mode=codes.REPLAY, frozen=rec.values)
            count += 1
            a.ranges(rec)
            if a.same_decisions(rec, rep, what):
                a.entered(rec, rep, what)
    return count


def audit(algorithm, params=None, *, horizon=100_000, means=None, seed=0, work=WORK):
    """Whole-run record–replay audit of ``algorithm`` (see the module docstring).

    Parameters
    ----------
    algorithm : str
        A registered algorithm.
    params : dict, optional
        Its parameters (defaults: the declaration's, ε = 0.5).
    horizon : int
        T of the audited runs (default 10⁵), in [2, 10⁹].
    means : sequence of float, optional
        Arm means in [0, 1] (default :data:`MEANS`).
    seed : int
        Seed of every run (the same stream in a record and its replays), ≥ 0.
    work : float
        Budget of the many-run checks (g), (h) per instance
        (:data:`bandsim.wholerun.laws.WORK`).

    Returns
    -------
    WholeRunReport
        ``verdict``: PASS, FAIL (``failures``: one line per failed check,
        naming the release), ``incomplete`` or ``inconclusive``
        (:mod:`bandsim.wholerun.report`; ``reason``), ``not auditable`` (``reason``: no recording
        mode, or an untrusted sampler that cannot be sampled) or ``not
        private``.

    Raises
    ------
    bandsim.ConfigError
        For an unknown algorithm, invalid parameters, horizon, seed or means.
    """
    start = time.perf_counter()
    algo = registry.get_algorithm(algorithm)
    horizon = check_int("horizon", horizon, 2, MAX_HORIZON)
    seed = check_int("seed", seed, 0, 2**63 - 1)
    means = tuple(MEANS if means is None else means)
    if len(means) < 2 or not all(0.0 <= float(m) <= 1.0 for m in means):
        raise ConfigError("means", list(means), "at least two arm means, each in [0, 1]")
    resolved = algo.resolve(audit_params(algo, params), horizon)
    resources.check_recording(algo.cost, horizon, sample_pulls=sample_pulls(horizon))
    report = WholeRunReport(algo.name, resolved, int(horizon), "PASS")

    def done(verdict, reason=""):
        report.verdict, report.reason = verdict, reason
        report.seconds = time.perf_counter() - start
        return report

    if not algo.private:
        return done("not private")
    arms = len(means)  # one plan for every run (shared with a study's simulations)
    plan = memo(plan_key("plan", algo.name, resolved, arms, horizon),
                lambda: make_plan(algo, resolved, arms, horizon))
    why = recordable(algo, resolved, horizon, plan)
    if why:
        return done("not auditable", why)
    a = _Audit(algo, resolved, int(horizon), means, seed, plan)
    ref = a.play()
    report.releases = len(ref.rel)
    a.capacity = max(len(ref.rel), len(ref.blocks)) + 64
    if len(ref.blocks) == 0 or len(ref.rel) == 0:  # nothing to check: never a PASS
        return done("not auditable", f"its engine recorded {len(ref.blocks)} reward blocks and "
                                     f"{len(ref.rel)} releases in a run of T = {horizon}: no "
                                     "batch completes before T, or the engine does not route "
                                     "its draws through the recorder")
    for at in (means, CLOSE_MEANS):  # (p): the code that runs is the code recorded
        a.failures.extend(production(a, at))
    a.scales(ref)
    a.ranges(ref)
    a.failures.extend(laplace_noise(ref))
    far_replays(a, ref)  # the mirror and datasets that move every gap and ordering
    if "gaussian" in algo.rewards:
        g = a.play(means=GAUSSIAN_MEANS, rewards="gaussian", sigma=GAUSSIAN_SIGMA)
        a.ranges(g)
        a.scales(g)
    report.neighbours = _neighbours(a, ref, means, "")
    wide = None
    if tuple(means) != WIDE_MEANS:
        wide = a.play(means=WIDE_MEANS)
        a.failures.extend(production(a, WIDE_MEANS))  # (p) where arms are eliminated
        a.scales(wide)
        report.neighbours += _neighbours(a, wide, WIDE_MEANS, " on the wide instance")
    a.failures.extend(reads(a, [(ref, means), (wide, WIDE_MEANS)], _label))  # (x)
    for run, at, where in ((ref, means, ""), (wide, WIDE_MEANS, " on the wide instance"),
                           (None, DOMINANT_MEANS, " on the two-arm instance")):
        if a.unexercised():  # every doubling epoch (one change each) until all are entered
            taken = [] if run is None else positions(run.blocks, a.horizon)
            run = a.play(means=at, capacity=None) if run is None else run
            more = epoch_positions(run.blocks, taken)
            report.neighbours += _neighbours(a, run, at, where, more)
    for run, at, where in ((ref, means, ""), (wide, WIDE_MEANS, " on the wide instance")):
        report.neighbours += aim(a, run, at, where, _neighbours)  # every class entered
    report.unexercised = a.unexercised() + unentered([ref, wide], a.seen_tags)
    instances = [means] + [m for m in (WIDE_MEANS, STAGGERED_MEANS if a.declared.svt else None)
                           if m is not None and tuple(m) != tuple(means)]
    tests, missing, report.runs = many_run(a, instances, work)
    a.failures.extend(tests.failures())
    report.unexercised += missing
    report.power = power(tests)
    report.detects = power_text(report.power)
    unaudited = []
    if untrusted(algo):  # a plug-in's sampler: the statistical audit at its recorded sizes
        bad, unaudited, report.sampled_sizes, report.unsampled_sizes = audit_samplers(
            algo, resolved, ref, _label, seed=seed)
        a.failures.extend(bad)
    report.failures = a.failures
    report.epsilon, report.claimed = a.eps_max, a.declared.claimed
    if a.failures:
        return done("FAIL")
    if unaudited:
        return done("not auditable", "; ".join(unaudited))
    best = report.power.get("scale_low")
    if best is None or best > INCONCLUSIVE:
        return done("inconclusive", f"{report.runs:,} recorded runs could not detect a noise "
                                    f"scale {100 * INCONCLUSIVE:.0f} % low in any release "
                                    f"class ({report.detects})")
    thin = [f for f in tests.floors if f[2] < FLOOR]
    if thin:
        return done("inconclusive", f"{len(thin)} release class(es) below {FLOOR:,} draws even "
                                    "pooled with the other positions of their law: " + "; ".join(
                                        f"{lab} ({n:,} draws < {FLOOR:,})"
                                        for lab, _, n, _ in thin[:3]))
    if report.unexercised:
        return done("incomplete", f"nothing was checked of {len(report.unexercised)} declared "
                                  f"release(s) or structure(s): "
                                  + "; ".join(report.unexercised[:3]))
    return done("PASS")
