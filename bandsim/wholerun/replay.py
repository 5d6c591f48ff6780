"""Checks (a)–(d) of the whole-run audit on one recorded run and its replays.

:class:`_Audit` holds one audited setting (algorithm, resolved parameters,
T, instance, seed, plan, its declared releases) and the deterministic checks
:func:`bandsim.wholerun.checks.audit` runs on every recorded run and
neighbouring replay: (a) decisions, (b) sensitivity and ranges, (c) scales,
(d) composition (see :mod:`bandsim.wholerun.checks` for what each certifies).

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries" (PETS 2026),
record and replay; Koskela, Jälkö & Honkela (AISTATS 2020) and dp-accounting
for the privacy-loss distribution of check (d).
"""
import functools
import math

import numpy as np

from .. import registry
from ..kernels import codes
from ..kernels import record as R
from ..privacy.participation import cases, releases_of
from .derived import mismatches
from .driver import play
from .laws import _classes, label


#: Relative tolerance of scale and ε comparisons (float64 arithmetic of the plans).
RTOL = 1e-9
LAW_NAMES = {v: k for k, v in codes.LAWS.items()}


def _label(run, i):
    """``release #i (t=…, arm …, laplace scale …)`` for a failure line."""
    law = LAW_NAMES.get(int(run.rel[i, R.REL_LAW]), "?")
    arm = int(run.rel[i, R.REL_ARM])
    where = f"t={int(run.rel[i, R.REL_T])}" + (f", arm {arm}" if arm >= 0 else "")
    return f"release #{i} ({where}, {law}, scale {run.val[i, R.VAL_SCALE]:.6g})"


def _last_release(run, block):
    """The label of the last release before block #``block`` was drawn."""
    before = np.nonzero(run.rel[:, R.REL_BLOCKS] <= block)[0]
    return _label(run, int(before[-1])) if before.size else "no release"


class _Declared:
    """The declared releases of one participation, as the checks read them."""

    def __init__(self, algo, params, horizon):
        self.releases = releases_of(algo, params, horizon)
        self.cases = cases(self.releases)
        self.laplace = [r.scale for r in self.releases if r.law == "laplace"]
        self.svt = [r for r in self.releases if r.law == "svt"]
        self.batch = [r for r in self.releases if r.law == "batch"]
        self.claimed = params.get("epsilon", math.nan) if not self.batch else math.nan


def _close(a, b):
    return abs(a - b) <= RTOL * max(abs(a), abs(b), 1e-300)


class _Audit:
    def __init__(self, algo, params, horizon, means, seed, plan):
        self.algo, self.params, self.horizon, self.plan = algo, params, horizon, plan
        self.means, self.seed = means, seed
        self.declared = _Declared(algo, params, horizon)
        self.spec = registry.get_mechanism(algo.mechanism)
        self.failures = []
        self.eps_max = math.nan
        self.seen = set()  # (law, scale) of every release some neighbour entered
        self.seen_tags = set()  # (law, tag, scale) of the same
        self.capacity = None  # the reference run's size, once known (no re-run to grow)
        self._calib = {}

    def fail(self, line):
        if line not in self.failures:
            self.failures.append(line)

    def play(self, **kw):
        kw.setdefault("seed", self.seed)
        kw.setdefault("capacity", self.capacity)
        means = kw.pop("means", self.means)
        plan = self.plan if len(means) == len(self.means) else None
        return play(self.algo, self.params, means, self.horizon, plan=plan, **kw)

    def unexercised(self):
        """The declared releases no neighbour entered (described), e.g. a histogram of an
        SVT that never halted: nothing was checked of them."""
        def entered(law, scale):
            return any(lw == law and (scale is None or _close(sc, scale)) for lw, sc in self.seen)

        out = []
        for r in self.declared.releases:
            if r.law == "laplace":
                hit = entered(codes.LAW_LAPLACE, r.scale)
            elif r.law == "svt":
                hit = entered(codes.LAW_SVT_QUERY, r.query_scale)
            else:
                hit = entered(codes.LAW_BATCH, None) or entered(codes.LAW_LAPLACE, None)
            if not hit:
                out.append(r.describe())
        return out

    # ---------------------------------------------------------------- (a) decisions
    def same_decisions(self, rec, rep, what):
        if rep.blocks.shape != rec.blocks.shape or not np.array_equal(rep.blocks, rec.blocks):
            n = min(len(rep.blocks), len(rec.blocks))
            diff = np.nonzero(np.any(rep.blocks[:n] != rec.blocks[:n], axis=1))[0]
            j = int(diff[0]) if diff.size else n
            self.fail(f"(a) decisions: the replay {what} draws a different block #{j} "
                      f"than the recorded run, after {_last_release(rec, j)} (control flow "
                      "reads more than the releases)")
            return False
        keys = [R.REL_RUN, R.REL_T, R.REL_ARM, R.REL_N, R.REL_LAW, R.REL_TAG, R.REL_BLOCKS]
        if rep.rel.shape != rec.rel.shape or not np.array_equal(rep.rel[:, keys],
                                                                 rec.rel[:, keys]):
            n = min(len(rep.rel), len(rec.rel))
            diff = np.nonzero(np.any(rep.rel[:n][:, keys] != rec.rel[:n][:, keys], axis=1))[0]
            i = int(diff[0]) if diff.size else n
            where = _label(rec, i) if i < len(rec.rel) else f"release #{i} (after the last)"
            self.fail(f"(a) decisions: the replay {what} makes other releases than the "
                      f"recorded run, from {where}")
            return False
        if not (np.array_equal(rep.pulls, rec.pulls) and np.array_equal(rep.elim, rec.elim)
                and np.array_equal(rep.regret, rec.regret)):
            self.fail(f"(a) decisions: the replay {what} ends with other pulls, eliminations "
                      f"or regret than the recorded run, after "
                      f"{_last_release(rec, len(rec.blocks))}")
            return False
        return True

    # ---------------------------------------------------------------- (b) ranges
    def ranges(self, run):
        law, n, tag = run.rel[:, R.REL_LAW], run.rel[:, R.REL_N], run.rel[:, R.REL_TAG]
        true = run.val[:, R.VAL_TRUE]
        sums = (n > 0) & ((law == codes.LAW_LAPLACE) | (law == codes.LAW_EXACT)
                          | (law == codes.LAW_BATCH))
        top = np.where((law == codes.LAW_BATCH) & (tag > 0), n * np.maximum(tag, 1), n)
        bad = np.nonzero(sums & ((true < -RTOL * top) | (true > top * (1 + RTOL))))[0]
        if bad.size:
            i = int(bad[0])
            enc = law[i] == codes.LAW_BATCH and tag[i] > 0
            unit, why = ("n g", "an encoded reward outside [0, g]") if enc else (
                "n", "a reward outside [0, 1]")
            self.fail(f"(b) sensitivity: {_label(run, i)} releases a statistic "
                      f"{true[i]:.6g} outside [0, {unit}] = [0, {top[i]:.6g}] of its n = "
                      f"{int(n[i])} rewards ({why})")

    # ---------------------------------------------------------------- (c) scales
    def calibration(self, n):
        """(fpar[0], g) of the mechanism's batch of n users, as the plan derives it."""
        if n not in self._calib:
            b = self.spec.derive(int(n), self.params)
            fpar = np.atleast_1d(np.asarray(getattr(b, "fpar", [math.nan]), dtype=float))
            ipar = np.atleast_1d(np.asarray(getattr(b, "ipar", [0]), dtype=np.int64))
            self._calib[n] = (float(fpar[0]) if fpar.size else math.nan,
                              int(ipar[0]) if ipar.size else 0)
        return self._calib[n]

    def scales(self, run):
        """(c): every release class's recorded scale is the one declared for its position.

        A class is (law, tag, n, scale) (:func:`bandsim.wholerun.laws.label`); a
        Laplace or SVT release is compared with the declared releases of its law whose
        positions (:attr:`bandsim.privacy.participation.Release.positions`: tag and n)
        hold it — e.g. DP-TS's first pull (tag −1, n = 1) with its chunk scale only, not
        with the node scale of some epoch. One failure line per class; ``run`` is a
        :class:`bandsim.wholerun.driver.Run` or a many-run sample (same columns). The
        (g, τ, m) a SecAgg batch decoded with are recomputed from the declaration
        (:func:`bandsim.wholerun.derived.mismatches`).
        """
        for line in mismatches(self.spec, self.params, run):  # (g, τ, m) of SecAgg batches
            self.fail(line)
        if len(run.rel) == 0:
            return
        keys, ids = _classes(run.rel, run.val)
        _, first = np.unique(ids, return_index=True)
        for c, i in enumerate(first):  # each class once
            i = int(i)
            law, tag, n, scale = (int(keys[c, 0]), int(keys[c, 1]), int(keys[c, 2]),
                                  float(keys[c, 3]))
            ok, want = self._scale_ok(run, i, law, tag, n, scale)
            if not ok:
                self.fail(f"(c) scales: release class {label(tuple(keys[c]))}, first "
                          f"{_label(run, i)} — the privacy claim was computed from scale "
                          f"{want} at this position")

    def _scale_ok(self, run, i, law, tag, n, scale):
        """(ok, the declared scale(s) at (tag, n) as text) for release #i's class."""
        d = self.declared
        mine = [r for r in d.releases if r.at(tag, n)]
        where = f"tag {tag}, n = {n}"
        if law == codes.LAW_LAPLACE:
            want = sorted({r.scale for r in mine if r.law == "laplace"})
            ok = any(_close(scale, s) for s in want) or self.as_batch(run, i)
            text = (", ".join(f"{s:.6g}" for s in want) or "none") + f" ({where})"
            if d.batch:
                text += (f" (or {self.calibration(n)[0]:.6g}, {self.spec.name}'s "
                         "calibration at n)")
            return ok, text
        if law in (codes.LAW_SVT_THRESHOLD, codes.LAW_SVT_QUERY):
            attr = "scale" if law == codes.LAW_SVT_THRESHOLD else "query_scale"
            want = sorted({getattr(r, attr) for r in mine if r.law == "svt"})
            return (any(_close(scale, s) for s in want),
                    (", ".join(f"{s:.6g}" for s in want) or "none") + f" ({where})")
        if law == codes.LAW_BATCH:
            fpar0, g = self.calibration(n)
            ok = (_close(scale, fpar0) or (math.isnan(scale) and math.isnan(fpar0))) and (
                tag == 0 or tag == g)
            return ok, f"{fpar0:.6g} (g = {g}) from {self.spec.name}'s calibration"
        return law == codes.LAW_EXACT and not self.algo.private, "a noisy release"

    def as_batch(self, run, i):
        """A Laplace release that is one batch of the mechanism at its calibration (an
        algorithm declaring ``batch`` releases of a Laplace mechanism)."""
        if not self.declared.batch or any(_close(run.val[i, R.VAL_SCALE], s)
                                          for s in self.declared.laplace):
            return False
        return _close(float(run.val[i, R.VAL_SCALE]),
                      self.calibration(int(run.rel[i, R.REL_N]))[0])

    # ---------------------------------------------------------------- (b), (d) one pair
    def entered(self, rec, rep, what):
        """Check (b) and (d) for one neighbouring pair."""
        delta = rep.val[:, R.VAL_TRUE] - rec.val[:, R.VAL_TRUE]
        idx = np.nonzero(delta != 0.0)[0]
        if idx.size == 0:
            return
        for i, lw in zip(idx, rec.rel[idx, R.REL_LAW]):
            self.seen.add((int(lw), float(rec.val[i, R.VAL_SCALE])))
            self.seen_tags.add((int(lw), int(rec.rel[i, R.REL_TAG]),
                                float(rec.val[i, R.VAL_SCALE])))
            tag = int(rec.rel[i, R.REL_TAG])
            bound = tag if lw == codes.LAW_BATCH and tag > 0 else 1.0
            if abs(delta[i]) > bound * (1 + RTOL):
                self.fail(f"(b) sensitivity: {_label(rec, int(i))} changes by "
                          f"{abs(delta[i]):.6g} > {bound:g} when one reward changes ({what})")
        self._covered(rec, idx, delta, what)
        self._compose(rec, idx, delta, what)  # what really entered, declared or not

    def _covered(self, rec, idx, delta, what):
        """(b): some declared case holds every entered release (law, scale, count)."""
        d = self.declared
        lap_batch = [i for i in idx if rec.rel[i, R.REL_LAW] == codes.LAW_LAPLACE
                     and self.as_batch(rec, i)]
        lap = [float(rec.val[i, R.VAL_SCALE]) for i in idx
               if rec.rel[i, R.REL_LAW] == codes.LAW_LAPLACE and i not in lap_batch]
        queries = {int(rec.rel[i, R.REL_TAG]) for i in idx
                   if rec.rel[i, R.REL_LAW] == codes.LAW_SVT_QUERY}
        batches = len(lap_batch) + sum(1 for i in idx if rec.rel[i, R.REL_LAW] == codes.LAW_BATCH)
        other = [int(i) for i in idx if rec.rel[i, R.REL_LAW] not in
                 (codes.LAW_LAPLACE, codes.LAW_SVT_QUERY, codes.LAW_BATCH)]
        if other:
            self.fail(f"(b) sensitivity: {_label(rec, other[0])} depends on the changed "
                      f"reward ({what}) but releases nothing noisy")
            return False
        for label, rs in d.cases.items():
            room = {}
            for r in rs:
                if r.law == "laplace":
                    key = next((k for k in room if _close(k, r.scale)), r.scale)
                    room[key] = room.get(key, 0) + r.count
            need = {}
            for s in lap:
                key = next((k for k in need if _close(k, s)), s)
                need[key] = need.get(key, 0) + 1
            ok = all(any(_close(s, k) and room[k] >= c for k in room) for s, c in need.items())
            ok &= len(queries) <= sum(r.count for r in rs if r.law == "svt")
            ok &= batches <= sum(r.count for r in rs if r.law == "batch")
            if ok:
                return True
        first = int(idx[-1])
        self.fail(f"(b) sensitivity: the reward changed {what} enters {len(idx)} releases "
                  f"({len(lap)} Laplace, {len(queries)} SVT instances, {batches} batches; "
                  f"last {_label(rec, first)}), more than any declared case of "
                  f"{self.algo.name}'s participation")
        return False

    def _compose(self, rec, idx, delta, what):
        """(d): the entered releases composed are at most the claimed ε."""
        claimed = self.declared.claimed
        if math.isnan(claimed):
            return  # batch releases: each is its mechanism's audited per-batch guarantee
        eps, pld = 0.0, []
        svt = {}
        for i in idx:
            lw, b, dd = int(rec.rel[i, R.REL_LAW]), float(rec.val[i, R.VAL_SCALE]), abs(delta[i])
            if lw == codes.LAW_LAPLACE:
                eps += math.inf if b <= 0 else dd / b
                pld.append((b, dd))
            elif lw == codes.LAW_SVT_QUERY:
                tag = int(rec.rel[i, R.REL_TAG])
                svt[tag] = max(svt.get(tag, 0.0), dd)
        for tag, dd in svt.items():
            thr = next((r for r in self.declared.svt), None)
            eps += dd / thr.scale + 2 * dd / thr.query_scale
        self.eps_max = eps if math.isnan(self.eps_max) else max(self.eps_max, eps)
        if eps <= claimed * (1 + RTOL):
            return  # (the privacy-loss distribution of pure releases is never above it)
        tight = ""
        target = self.params.get("delta")
        if pld and not svt and math.isfinite(eps) and isinstance(target, float) and target > 0:
            eps_pld = _pld_epsilon(tuple(sorted(pld)), target)  # an (ε, δ) claim: the PLD
            if eps_pld <= claimed * (1 + 1e-6):
                return
            tight = f"; the privacy-loss distribution gives {eps_pld:.6g} at δ = {target:g}"
        self.fail(f"(d) composition: the releases the reward changed {what} enters compose to "
                  f"ε = {eps:.6g} > claimed {claimed:.6g} (basic composition{tight}; last "
                  f"{_label(rec, int(idx[-1]))})")


@functools.lru_cache(maxsize=256)
def _pld_epsilon(pairs, delta):
    """ε at ``delta`` of Laplace releases ((scale, sensitivity), …) composed by the
    privacy-loss distribution of dp-accounting (pessimistic discretization 10⁻⁴)."""
    from dp_accounting.pld import privacy_loss_distribution as PLD

    out = None
    for b, dd in pairs:
        one = PLD.from_laplace_mechanism(b / dd, value_discretization_interval=1e-4)
        out = one if out is None else out.compose(one)
    return out.get_epsilon_for_delta(delta)
