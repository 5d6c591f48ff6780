"""The returning-user accountant, checked against an independent dp-accounting composition.

:func:`bandsim.privacy.accountant.compose` reports, for a user who takes part
in B batches, a total (ε, δ) by several methods. :func:`check` recomputes every
row it reports from the declarations alone — the algorithm's participation
(:func:`bandsim.privacy.participation.releases_of`: law, scale, sensitivity,
count of each release, never :attr:`Release.epsilon` nor
:func:`~bandsim.privacy.participation.pld`), or its mechanism's derived batch
(``spec.derive``: its noise law, claimed guarantee and exact per-batch view) —
and composes it B times with dp-accounting's own events and accountants,
without calling :mod:`bandsim.privacy.accountant`. A row that differs by more
than its tolerance, a row with no independent counterpart, or an independent
row the accountant does not report is a mismatch: ``bandsim audit --returning``
prints one line per mismatch and exits 1.

The independent side composes with dp-accounting's own accountants and PLDs
(where the accountant composes a PLD the check may compose events, and in
another order), so PLD rows agree only to the PLD's discretization: each of
the k = B · Σ count
compositions moves ε by at most one discretization interval (1e-4), hence the
tolerance ``k · 1e-4 + 1e-6 · ε``. Closed forms (basic and advanced
composition, RDP conversions of the same curve) agree to ``1e-9 · ε``. A
count off by one (B − 1 batches, count − 1 releases) moves ε by at least
ε/B, far beyond either tolerance at the B the command is run with (B = 1
included: B − 1 = 0 composes nothing).

References
----------
Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy",
Theorem 3.16 (basic) and Theorem 3.20 (advanced composition, as Chowdhury &
Zhou (ICLR 2023), Appendix I, Theorem 7 uses it); Mironov (2017), "Rényi
Differential Privacy", Proposition 1 (RDP composes additively); Bun & Steinke
(2016), Lemma 2.3 (zCDP composes additively); dp-accounting (Google): PLD and
RDP accountants.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..guarantees import Guarantee
from ..registry import get_algorithm, get_mechanism
from . import pmf as P
from .audit import ALPHAS, _relaxed, audit_of
from .participation import declares_releases, releases_of

#: Discretization interval of the independent PLDs (that of the accountant).
INTERVAL = 1e-4
#: Relative tolerance of closed forms.
RTOL = 1e-9


@dataclass(frozen=True)
class Expected:
    """One independently composed row: method prefix, total ε and δ, tolerance on ε."""

    prefix: str
    epsilon: float
    delta: float
    tol: float


@dataclass(frozen=True)
class Mismatch:
    """One row of the accountant that the independent composition does not confirm
    (``what``: the total "ε" or "δ" that differs)."""

    algorithm: str
    method: str
    reported: float
    independent: float
    tol: float
    what: str = "ε"

    def line(self):
        """One line naming the algorithm, the check and both numbers."""
        return (f"FAIL accountant {self.algorithm}: {self.method} reports total {self.what} = "
                f"{self.reported:.9g}, the independent dp-accounting composition gives "
                f"{self.independent:.9g} (tolerance {self.tol:.3g}) — check: accountant vs "
                "dp-accounting")


def _close(a, b, tol):
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol


def _release_epsilon(r):
    """Pure ε of one release of ``r`` (Laplace: Δ/b; SVT: Δ/b + 2Δ/b_q)."""
    if r.law == "svt":
        return r.sensitivity / r.scale + 2 * r.sensitivity / r.query_scale
    return r.sensitivity / r.scale


def _by_case(releases):
    common = [r for r in releases if not r.case]
    labels = {r.case for r in releases if r.case}
    return [common + [r for r in releases if r.case == lab] for lab in labels] or [common]


def _advanced(eps, B, slack):
    """Dwork & Roth (2014), Theorem 3.20: B-fold ε-DP is (ε', Bδ + δ')-DP."""
    return math.sqrt(2 * B * math.log(1 / slack)) * eps + B * eps * math.expm1(eps)


def _participation_pld(rs):
    """PLD of one participation from its releases' raw fields (dp-accounting)."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as PLD

    out = None
    for r in rs:
        if r.law == "laplace":
            one = PLD.from_laplace_mechanism(r.scale, sensitivity=r.sensitivity,
                                             value_discretization_interval=INTERVAL)
        else:
            one = PLD.from_privacy_parameters(
                common.DifferentialPrivacyParameters(_release_epsilon(r), 0.0),
                value_discretization_interval=INTERVAL)
        one = one.self_compose(r.count)
        out = one if out is None else out.compose(one)
    return out


def _releases(releases, B, delta):
    groups = _by_case(releases)
    eps1 = max(sum(r.count * _release_epsilon(r) for r in rs) for rs in groups)
    out = [Expected("basic composition", B * eps1, 0.0, RTOL * B * eps1)]
    if delta == 0:
        return out
    k = B * max(sum(r.count for r in rs) for rs in groups)
    with np.errstate(over="ignore"):
        pld = max(_participation_pld(rs).self_compose(B).get_epsilon_for_delta(delta)
                  for rs in groups)
    out.append(Expected("PLD accountant", pld, delta, k * INTERVAL + 1e-6 * pld))
    adv = _advanced(eps1, B, delta)
    out.append(Expected("advanced composition", adv, delta, RTOL * adv))
    return out


def _two_pmfs(view, moved, B, delta):
    """ε(δ) of B-fold composition of an exact neighbouring pair, worse direction."""
    from dp_accounting.pld import privacy_loss_distribution as PLD

    def logs(v):
        keep = np.isfinite(v.logp)
        return dict(zip(np.nonzero(keep)[0].tolist(), v.logp[keep].tolist()))

    a, b = logs(view), logs(moved)
    with np.errstate(over="ignore"):
        return max(PLD.from_two_probability_mass_functions(
            x, y, value_discretization_interval=INTERVAL, symmetric=False)
            .self_compose(B).get_epsilon_for_delta(delta) for x, y in ((a, b), (b, a)))


def _rdp(curve, delta):
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    return float(rdp.compute_epsilon(list(ALPHAS), list(curve), delta)[0])


def _batch(name, spec, prm, n, B, delta, exact):
    import dp_accounting
    from dp_accounting import dp_event

    b = spec.derive(n, prm)
    mech = b.extra.get("mech", b)
    kind = spec.kind
    out = []
    if kind in (Guarantee.LAPLACE, Guarantee.PURE):
        e = prm["epsilon"]
        out.append(Expected("basic composition", B * e, 0.0, RTOL * B * e))
        if delta == 0:
            return out
        acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=INTERVAL)
        relax = 0.0
        if kind is Guarantee.LAPLACE:
            event = dp_event.LaplaceDpEvent(b.fpar[0])
        else:
            event = dp_event.DiscreteLaplaceDpEvent(-spec.noise_law(mech).log_beta, mech.g)
            if "relax_q" in b.extra:  # the relaxed SecAgg's 2ε̂ per batch, basic
                relax = 2 * B * mech.privacy["epsilon_relaxation"]
        acc.compose(dp_event.SelfComposedDpEvent(event, B))
        pld = acc.get_epsilon(delta) + relax
        out.append(Expected("PLD accountant", pld, delta, B * INTERVAL + 1e-6 * pld))
        adv = _advanced(e, B, delta)
        out.append(Expected("advanced composition", adv, delta, RTOL * adv))
        if exact and kind is Guarantee.PURE:
            view = P.fold(spec.noise_law(mech), mech.m)
            if "relax_q" in b.extra:
                view = _relaxed(view, b.extra["relax_q"])
            ex = _two_pmfs(view, view.shift(mech.g), B, delta) + relax
            out.append(Expected("PLD of the audited view", ex, delta, B * INTERVAL + 1e-6 * ex))
        return out
    if kind in (Guarantee.RDP, Guarantee.ZCDP):
        if kind is Guarantee.RDP:  # RDP composes additively (Mironov 2017, Prop. 1)
            e = _rdp([B * spec.claim(mech, a)[0] for a in ALPHAS], delta)
            out.append(Expected("claimed RDP", e, delta, RTOL * e))
        else:  # ρ-zCDP composes to Bρ (Bun & Steinke 2016, Lemma 2.3): one event
            acc = dp_accounting.rdp.RdpAccountant(orders=list(ALPHAS))
            acc.compose(dp_event.ZCDpEvent(B * mech.privacy["rho"]))
            e = float(acc.get_epsilon(delta))
            out.append(Expected("RdpAccountant", e, delta, RTOL * e))
        if exact:
            rows = audit_of(spec)[0](b, name).rows
            curve = [r.exact for r in (rows if kind is Guarantee.RDP else rows[1:])]
            e = _rdp([B * c for c in curve], delta)
            out.append(Expected("audited RDP curve", e, delta, RTOL * e))
        return out
    # (ε, δ) per batch: advanced composition at δ' = δ − Bδ_b
    e, d = prm["epsilon"], prm["delta"]
    adv = _advanced(e, B, delta - B * d) if delta > B * d else math.inf
    out.append(Expected("advanced composition", adv, delta, RTOL * adv))
    if exact:
        support, pp, qq, tail = mech.output_pmfs(n)
        with np.errstate(divide="ignore"):
            view = P.LogPmf(0, np.log(pp), modulus=len(pp))
            moved = P.LogPmf(0, np.log(qq), modulus=len(pp))
        ex = _two_pmfs(view, moved, B, max(delta - B * tail, 0.0))
        out.append(Expected("PLD of the exact view", ex, delta, B * INTERVAL + 1e-6 * ex))
    return out


def expected(algorithm, epsilon, batch_size, returning, delta, *, batch_delta=None,
             scale=None, p=None, horizon=10**7, exact=True):
    """The rows :func:`bandsim.privacy.accountant.compose` must report, composed independently.

    Parameters are those of :func:`~bandsim.privacy.accountant.compose`.

    Returns
    -------
    list of Expected
        One per method the accountant reports for this algorithm.
    """
    algo = get_algorithm(algorithm)
    spec = get_mechanism(algo.mechanism)
    given = {"epsilon": epsilon, "delta": batch_delta, "scale": scale, "p": p}
    if declares_releases(algo) and not any(q.required and q.name != "epsilon"
                                           for q in algo.params):
        rel = releases_of(algo, algo.resolve({"epsilon": epsilon}, horizon), horizon)
        if not any(r.law == "batch" for r in rel):
            return _releases(rel, returning, delta)
    prm = algo.resolve({k: v for k, v in given.items() if algo.param(k)}, horizon)
    return _batch(algo.name, spec, prm, batch_size, returning, delta, exact)


def check(algorithm, rows, epsilon, batch_size, returning, delta, **kw):
    """Mismatches between the accountant's ``rows`` and :func:`expected` (empty: PASS).

    Parameters
    ----------
    algorithm : str
    rows : list of bandsim.privacy.accountant.Composition
        What :func:`~bandsim.privacy.accountant.compose` reported for these arguments.
    epsilon, batch_size, returning, delta, **kw
        The arguments it was called with.

    Returns
    -------
    list of Mismatch
        A row whose ε (or δ) is off by more than its tolerance; a row with no
        independent counterpart (independent ε nan); an independent row not
        reported (reported ε nan).
    """
    want = expected(algorithm, epsilon, batch_size, returning, delta, **kw)
    out, used = [], set()
    for r in rows:
        hit = next((i for i, w in enumerate(want) if r.method.startswith(w.prefix)
                    and i not in used), None)
        if hit is None:
            out.append(Mismatch(algorithm, r.method, r.epsilon, math.nan, 0.0))
            continue
        used.add(hit)
        w = want[hit]
        if not _close(r.epsilon, w.epsilon, w.tol):
            out.append(Mismatch(algorithm, r.method, r.epsilon, w.epsilon, w.tol))
        elif not _close(r.delta, w.delta, RTOL * w.delta):
            out.append(Mismatch(algorithm, r.method, r.delta, w.delta, RTOL * w.delta, "δ"))
    out += [Mismatch(algorithm, w.prefix + " (not reported)", math.nan, w.epsilon, w.tol)
            for i, w in enumerate(want) if i not in used]
    return out


def check_calibration(algorithm, rows, returning, target_epsilon, target_delta, batch_size,
                      **kw):
    """Mismatches of :func:`bandsim.privacy.accountant.calibrate`'s ``rows`` (empty: PASS).

    Each row's per-batch ε, composed B times independently (:func:`expected`, at the
    row's per-batch δ), must give the row's total ε and meet the target; the
    shuffle's "Appendix H recipe" row must be its closed form
    ε_i = ε/(2√(2B log(2/δ))), δ_i = δ/(2B), composed by Theorem 3.20 at δ/2.

    Parameters
    ----------
    algorithm : str
    rows : list of bandsim.privacy.accountant.Calibration
    returning, target_epsilon, target_delta, batch_size, **kw
        The arguments :func:`~bandsim.privacy.accountant.calibrate` was called with
        (``scale``, ``p``, ``horizon``, ``exact``).

    Returns
    -------
    list of Mismatch
        ``independent`` is the independent total at the row's per-batch ε (or the
        recipe's closed form of the per-batch ε).
    """
    B, out = returning, []
    for r in rows:
        if r.method.startswith("Appendix H"):
            e = target_epsilon / (2 * math.sqrt(2 * B * math.log(2 / target_delta)))
            if not (_close(r.epsilon_per_batch, e, RTOL * e)
                    and _close(r.delta_per_batch, target_delta / (2 * B), RTOL)):
                out.append(Mismatch(algorithm, r.method, r.epsilon_per_batch, e, RTOL * e,
                                    "per-batch ε (or δ)"))
                continue
            tot = _advanced(e, B, target_delta / 2)
            w = Expected(r.method, tot, target_delta, RTOL * tot)
        else:
            want = expected(algorithm, r.epsilon_per_batch, batch_size, B, target_delta,
                            batch_delta=r.delta_per_batch or None, **kw)
            w = next((x for x in want if r.method.startswith(x.prefix)), None)
            if w is None:
                out.append(Mismatch(algorithm, r.method, r.total_epsilon, math.nan, 0.0))
                continue
        if not (_close(r.total_epsilon, w.epsilon, w.tol)
                and w.epsilon <= target_epsilon + w.tol):
            out.append(Mismatch(algorithm, r.method + f" at per-batch ε = "
                                f"{r.epsilon_per_batch:.6g} (target {target_epsilon:g})",
                                r.total_epsilon, w.epsilon, w.tol))
    return out


__all__ = ["Expected", "Mismatch", "check", "check_calibration", "expected"]
