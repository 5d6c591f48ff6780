"""Privacy accounting for returning users: B batches per user, and the inverse.

Seed 003 (Appendix H, "Tight privacy accounting for returning users via
RDP") lets a user take part in up to B batches (at most once per batch,
Assumption 2); her total privacy loss is then a B-fold composition of the
per-batch guarantee. This module composes the guarantee of one batch — as
the simulator derives it (:func:`bandsim.protocols.mechanism`,
:class:`bandsim.shuffle.BinarySummation`, DP-SE's plan) — with
``dp-accounting`` and converts it to a total (ε, δ):

==========================  ==============================================================
per-batch guarantee          composition (each method is one row of the result)
==========================  ==============================================================
pure ε (Laplace family)      basic Bε; PLD accountant (``DiscreteLaplaceDpEvent(ε/g, g)``
                             or ``LaplaceDpEvent(b)`` for DP-SE); PLD of the audited view
                             (the exact folded pmfs); advanced composition for comparison
RDP ε̂(α) (Skellam)           Theorem 2's curve × B → ``rdp.compute_epsilon``; the audited
                             curve × B likewise
ρ-zCDP (discrete Gaussian)   ``RdpAccountant`` with ``ZCDpEvent(ρ)`` × B; the audited curve
(ε, δ) (shuffle)             advanced composition (Dwork–Rothblum–Vadhan, as Appendix H
                             uses it); PLD of the exact binomial view pmfs
==========================  ==============================================================

Algorithms whose noise is drawn inside their engines (DP-SE, DP-UCB, DP-SE 2,
the episodic and Thompson-sampling policies) declare every release one
participation enters (``Algorithm.participation``,
:mod:`bandsim.privacy.participation`); their rows compose exactly that list
(basic; PLD of every release, composed; advanced composition), the worst of
its cases (e.g. DP-TS's epoch r) reported and named.

The inverse, :func:`calibrate`, finds the largest per-batch ε (the
algorithm's own parameter, hence its noise) whose B-fold composition meets a
target total (ε, δ), by bisection over the mechanism as the simulator would
build it, for each method; Appendix H's closed-form recipe for the shuffle
mechanism (ε_i = ε/(2√(2B log(2/δ))), δ_i = δ/(2B)) is reported next to it.

Neighbouring relation: one user's reward replaced (the per-batch audit's
pair), which for these additive-noise mechanisms is the pair of outputs
shifted by the sensitivity — what dp-accounting's add/remove events with
that sensitivity describe.

References
----------
Chowdhury & Zhou (2023), Appendix H (Assumption 2, eqs. (14), (15), Remarks 8–9),
Appendix I (Theorem 7: advanced composition; Lemma 10: RDP → (ε, δ));
Tenenbaum et al. (2021), Appendix A (Theorem A.1); dp-accounting (Google) PLD and RDP
accountants.
"""
import math
from dataclasses import asdict, dataclass

import numpy as np

from ..errors import ConfigError, check_int, check_range
from ..params import MAX_HORIZON
from ..guarantees import Guarantee
from ..registry import algorithms, get_algorithm, get_mechanism
from . import audit as A
from . import pmf as P
from .participation import NEEDS_DP_ACCOUNTING, cases, declares_releases, pld, releases_of

#: Rényi orders used by the RDP conversions (those the audit computes).
ORDERS = A.ALPHAS
#: Discretization of the PLD accountant.
PLD_INTERVAL = 1e-4


@dataclass
class Composition:
    """The total privacy of B batches by one method.

    Attributes
    ----------
    method : str
    epsilon : float
        Total ε at ``delta``.
    delta : float
        Total δ.
    basis : str
        ``"claimed"`` (the per-batch guarantee of the theorem) or
        ``"exact"`` (the audited per-batch view).
    note : str
    case : str
        The declared case composed (the worst), "" when the releases have none.
    """

    method: str
    epsilon: float
    delta: float
    basis: str = "claimed"
    note: str = ""
    case: str = ""


def advanced_composition(epsilon, delta, returning, delta_slack):
    """(ε_tot, δ_tot) of B-fold (ε, δ)-DP by advanced composition.

    ε_tot = ε √(2B log(1/δ')) + B ε (e^ε − 1), δ_tot = B δ + δ'.

    References
    ----------
    Chowdhury & Zhou (2023), Appendix I, Theorem 7 (Dwork, Rothblum & Vadhan 2010).
    """
    B = returning
    e = epsilon * math.sqrt(2 * B * math.log(1 / delta_slack)) + B * epsilon * math.expm1(epsilon)
    return e, B * delta + delta_slack


def rdp_to_dp(curve, delta, orders=ORDERS):
    """ε at δ of an RDP curve ε(α) over ``orders`` (dp-accounting's conversion).

    Parameters
    ----------
    curve : array_like of float
        ε(α) for every α in ``orders`` (already composed, if it should be).
    delta : float
        δ ∈ (0, 1).

    References
    ----------
    Chowdhury & Zhou (2023), Appendix I, Lemma 10 (RDP → (ε, δ)); dp-accounting
    ``rdp.rdp_privacy_accountant.compute_epsilon`` (its tighter conversion).
    """
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    return float(rdp.compute_epsilon(list(orders), list(np.asarray(curve, float)), delta)[0])


def _rdp_epsilon(curve, returning, delta):
    return rdp_to_dp(returning * np.asarray(curve, float), delta)


def _pld_epsilon_from_views(view, moved, returning, delta):
    """ε(δ) of B-fold composition of the exact pair (view, moved), both directions."""
    from dp_accounting.pld import privacy_loss_distribution as PLD

    def logs(v):
        keep = v.logp > -np.inf
        return dict(zip(np.nonzero(keep)[0].tolist(), v.logp[keep].tolist()))

    pld = PLD.from_two_probability_mass_functions(
        logs(view), logs(moved), value_discretization_interval=PLD_INTERVAL, symmetric=False)
    pld_rev = PLD.from_two_probability_mass_functions(
        logs(moved), logs(view), value_discretization_interval=PLD_INTERVAL, symmetric=False)
    with np.errstate(over="ignore"):  # inside dp-accounting's tail bounds; harmless
        return max(pld.self_compose(returning).get_epsilon_for_delta(delta),
                   pld_rev.self_compose(returning).get_epsilon_for_delta(delta))


class _Batch:
    """One batch of an algorithm as the simulator builds it, for accounting."""

    def __init__(self, algorithm, epsilon, batch_size, delta=None, scale=None, p=None,
                 horizon=10**7):
        algo = get_algorithm(algorithm)
        if algo.name not in A.auditable():
            raise ConfigError("algorithm", algorithm, f"must be one of {', '.join(A.auditable())}")
        self.algorithm = algo.name
        self.n = check_int("batch_size", batch_size, 1, MAX_HORIZON)  # ≤ T users
        self.spec = spec = get_mechanism(algo.mechanism)
        if algo.param("delta") is not None and algo.param("delta").required and delta is None:
            raise ConfigError("delta", None, f"{algorithm} requires the per-batch δ")
        given = {"epsilon": epsilon, "delta": delta, "scale": scale, "p": p}
        self.prm = algo.resolve({k: v for k, v in given.items() if algo.param(k)}, horizon)
        self.horizon = horizon
        self.kind = spec.kind
        self.batch = spec.derive(self.n, self.prm)
        self.mech = self.batch.extra.get("mech", self.batch)
        self.b = self.batch.fpar[0] if self.kind is Guarantee.LAPLACE else None
        self.relax_q = self.batch.extra.get("relax_q")

    def audit(self):
        return A.audit_of(self.spec)[0](self.batch, self.algorithm)

    def _views(self):
        """The two neighbouring output pmfs of one batch and the mass they omit."""
        if hasattr(self.mech, "output_pmfs"):  # the shuffle binary summation
            support, pp, qq, tail = self.mech.output_pmfs(self.n)
            with np.errstate(divide="ignore"):
                return (P.LogPmf(0, np.log(pp), modulus=len(pp)),
                        P.LogPmf(0, np.log(qq), modulus=len(pp)), tail)
        view = P.fold(self.spec.noise_law(self.mech), self.mech.m)
        return view, view.shift(self.mech.g), view.rel_err

    def compose(self, returning, delta, exact=True):
        """List of :class:`Composition` for B = ``returning`` batches at total δ."""
        import dp_accounting
        from dp_accounting import dp_event

        B = returning
        eps = self.prm["epsilon"]
        out = []
        if self.kind.composition == "pld":
            shuffle = self.relax_q is not None
            e_batch = eps
            out.append(Composition("basic composition (B ε)", B * e_batch, 0.0))
            acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=PLD_INTERVAL)
            if self.kind is Guarantee.LAPLACE:
                acc.compose(dp_event.LaplaceDpEvent(self.b), B)
                extra = 0.0
            else:
                g = self.mech.g
                acc.compose(dp_event.DiscreteLaplaceDpEvent(-math.log(self.mech.fpar[1]), g), B)
                extra = 2 * B * self.mech.privacy["epsilon_relaxation"] if shuffle else 0.0
            note = "+ 2Bε̂ of the relaxed SecAgg (basic)" if shuffle else ""
            if delta == 0:  # basic composition is tight at δ = 0; PLD's discretization is not
                return out
            out.append(Composition("PLD accountant (dp-accounting)",
                                   acc.get_epsilon(delta) + extra, delta, note=note))
            if delta > 0:
                e_adv, _ = advanced_composition(e_batch, 0.0, B, delta)
                out.append(Composition("advanced composition (Theorem 7)", e_adv, delta))
            if exact and self.kind is Guarantee.PURE:
                view = P.fold(self.spec.noise_law(self.mech), self.mech.m)
                if shuffle:
                    view = A._relaxed(view, self.relax_q)
                e_ex = _pld_epsilon_from_views(view, view.shift(self.mech.g), B, delta) + extra
                out.append(Composition("PLD of the audited view (d = g)", e_ex, delta, "exact",
                                       note))
            return out
        if self.kind.composition == "rdp":
            curve = [self.spec.claim(self.mech, a)[0] for a in ORDERS]
            out.append(Composition(f"claimed RDP ε̂(α) ({self.spec.source}) × B → (ε, δ)",
                                   _rdp_epsilon(curve, B, delta), delta))
            if exact:
                rep = self.audit()
                audited = [r.exact for r in rep.rows]
                out.append(Composition("audited RDP curve × B → (ε, δ)",
                                       _rdp_epsilon(audited, B, delta), delta, "exact"))
            return out
        if self.kind.composition == "zcdp":
            acc = dp_accounting.rdp.RdpAccountant(orders=list(ORDERS))
            acc.compose(dp_event.ZCDpEvent(self.mech.privacy["rho"]), B)
            out.append(Composition("RdpAccountant, ZCDpEvent(ρ) × B",
                                   float(acc.get_epsilon(delta)), delta))
            if exact:
                rep = self.audit()
                audited = [r.exact for r in rep.rows[1:]]
                out.append(Composition("audited RDP curve × B → (ε, δ)",
                                       _rdp_epsilon(audited, B, delta), delta, "exact"))
            return out
        # shuffle (ε, δ) per batch
        d_batch = self.prm["delta"]
        spent = B * d_batch  # once: the δ' composed and the δ' printed are one number
        if delta > spent:
            e_adv, d_tot = advanced_composition(eps, d_batch, B, delta - spent)
            out.append(Composition("advanced composition (Theorem 7)", e_adv, d_tot,
                                   note=f"δ' = δ − Bδ_batch = {delta - spent:.3g}"))
        else:
            out.append(Composition("advanced composition (Theorem 7)", math.inf, delta,
                                   note=f"δ ≤ Bδ_batch = {spent:.3g}: impossible"))
        if exact:
            view, moved, tail = self._views()
            e_ex = _pld_epsilon_from_views(view, moved, B, max(delta - B * tail, 0.0))
            out.append(Composition("PLD of the exact view pmfs", e_ex, delta, "exact"))
        return out


def _need_dp_accounting(field, value):
    """ConfigError (one line naming the extra) when dp-accounting is not installed."""
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        raise ConfigError(field, value, NEEDS_DP_ACCOUNTING) from None


def accountable():
    """Names of the private algorithms the accountant composes (every release declared, or
    a per-batch mechanism with an exact audit)."""
    return [a.name for a in algorithms().values()
            if a.private and (get_mechanism(a.mechanism).auditable or declares_releases(a))]


def _declared(algorithm, epsilon, horizon):
    """(resolved params, releases) of an algorithm that declares non-batch releases, or None."""
    algo = get_algorithm(algorithm)
    if algo.name not in accountable():
        raise ConfigError("algorithm", algorithm, f"must be one of {', '.join(accountable())}")
    if not declares_releases(algo) or any(p.required and p.name != "epsilon"
                                          for p in algo.params):
        return None  # its batch path resolves (and checks) the per-batch parameters
    prm = algo.resolve({"epsilon": epsilon}, horizon)
    rel = releases_of(algo, prm, horizon)
    if any(r.law == "batch" for r in rel):
        return None
    return prm, rel


def compose_releases(releases, returning, delta):
    """List of :class:`Composition` of B participations, each entering ``releases``.

    Every participation enters the releases of one case (the same case each
    time; the worst case is reported and named in ``note``).

    Parameters
    ----------
    releases : list of bandsim.privacy.participation.Release
        ``laplace`` and ``svt`` releases (an algorithm's declaration).
    returning : int
        B ≥ 1.
    delta : float
        Total δ ∈ [0, 1).

    Returns
    -------
    list of Composition
        basic composition (Σ ε × B, δ = 0), the PLD accountant of the whole
        list (dp-accounting) and advanced composition (Theorem 7) of the
        per-participation ε.

    References
    ----------
    Chowdhury & Zhou (2023), Appendix I, Theorem 7; dp-accounting PLD
    (Laplace mechanism PLDs, composed).
    """
    by_case = cases(releases)
    eps1 = {lab: sum(r.epsilon for r in rs) for lab, rs in by_case.items()}
    worst = max(eps1, key=eps1.get)

    def named(lab):
        return f"worst case {lab} of {len(by_case)}" if len(by_case) > 1 else ""

    out = [Composition("basic composition (B ε)", returning * eps1[worst], 0.0, note=named(worst),
                       case=worst)]
    if delta == 0:
        return out
    totals = {}
    with np.errstate(over="ignore"):
        for lab, rs in by_case.items():
            totals[lab] = pld(rs, PLD_INTERVAL).self_compose(returning).get_epsilon_for_delta(delta)
    lab = max(totals, key=totals.get)
    out.append(Composition("PLD accountant (dp-accounting)", totals[lab], delta, note=named(lab),
                           case=lab))
    e_adv, _ = advanced_composition(eps1[worst], 0.0, returning, delta)
    out.append(Composition("advanced composition (Theorem 7)", e_adv, delta, note=named(worst),
                           case=worst))
    return out


def compose(algorithm, epsilon, batch_size, returning, delta, *, batch_delta=None, scale=None,
            p=None, horizon=10**7, exact=True):
    """Total (ε, δ) of a user who returns in ``returning`` batches of ``algorithm``.

    Parameters
    ----------
    algorithm : str
        One of :data:`bandsim.privacy.audit.AUDITABLE`.
    epsilon : float
        The algorithm's per-batch ε.
    batch_size : int
        n (changes g, τ, m and hence the exact view; not the claimed guarantee).
    returning : int
        B ≥ 1, batches a user takes part in.
    delta : float
        Total δ ∈ [0, 1) at which ε is reported.
    batch_delta : float, optional
        Per-batch δ of the shuffle algorithms.
    exact : bool
        Also compose the audited (exact) per-batch views.

    Returns
    -------
    list of Composition

    References
    ----------
    Chowdhury & Zhou (2023), Appendix H; dp-accounting.
    """
    B = check_int("returning", returning, 1)
    check_int("batch_size", batch_size, 1, MAX_HORIZON)  # even where n changes nothing
    delta = check_range("delta", delta, 0.0, 1.0, lo_open=False)
    _need_dp_accounting("returning", B)
    declared = _declared(algorithm, epsilon, horizon)
    if declared is not None:
        return compose_releases(declared[1], B, delta)
    batch = _Batch(algorithm, epsilon, batch_size, batch_delta, scale, p, horizon)
    return batch.compose(B, delta, exact)


@dataclass
class Calibration:
    """Per-batch parameters meeting a total (ε, δ) after B batches, by one method."""

    method: str
    epsilon_per_batch: float
    delta_per_batch: float
    total_epsilon: float
    noise: dict

    def to_dict(self):
        return asdict(self)


def _bisect(total, target, lo=1e-4, hi=None, rtol=1e-5):
    """Largest x with total(x) ≤ target (total increasing in x), or nan.

    Geometric bisection between ``lo`` and ``hi`` (default: the target, grown
    ×4 while still feasible), to relative tolerance ``rtol``; returns the
    feasible end.
    """
    if total(lo) > target:
        return math.nan
    hi = hi or max(target, 2 * lo)
    while total(hi) <= target:
        lo, hi = hi, 4 * hi
        if hi > 1e4:
            return lo
    while hi / lo > 1 + rtol:
        mid = math.sqrt(lo * hi)
        if total(mid) <= target:
            lo = mid
        else:
            hi = mid
    return lo


def _noise(batch):
    if batch.kind is Guarantee.LAPLACE:
        return dict(noise=f"Lap({batch.b:.6g})", noise_variance=2 * batch.b**2)
    if hasattr(batch.mech, "noise_law"):  # the shuffle binary summation
        trials, prob = batch.mech.noise_law(batch.n)
        return dict(noise=f"Binomial({trials:,}, {prob:.6g})",
                    noise_variance=batch.mech.error_variance(batch.n), tau=batch.mech.tau)
    m = batch.mech
    return dict(noise=m.noise, noise_variance=m.noise_variance, g=m.g, tau=m.tau, m=m.m,
                bits=m.bits)


def calibrate(algorithm, returning, target_epsilon, target_delta, batch_size, *, scale=None,
              p=None, horizon=10**7, exact=False):
    """Per-batch ε (and noise) so that B batches cost at most (target ε, target δ) in total.

    For every composition method of :func:`compose`, the largest per-batch
    ε whose composition meets the target (bisection; the mechanism is rebuilt
    at each ε by the simulator's own derivation). Shuffle algorithms also
    split δ: δ_batch = target_δ/(2B) as Appendix H does; their row
    "Appendix H recipe" is the closed form ε_i = ε/(2√(2B log(2/δ))).

    Returns
    -------
    list of Calibration
    """
    B = check_int("returning", returning, 1)
    target_epsilon = check_range("target_epsilon", target_epsilon, 0.0, None)
    target_delta = check_range("target_delta", target_delta, 0.0, 1.0, lo_open=False)
    _need_dp_accounting("returning", B)
    if _declared(algorithm, 1.0, horizon) is not None:
        return _calibrate_releases(algorithm, B, target_epsilon, target_delta, horizon)
    shuffle = _Batch(algorithm, 1.0, 1, 0.5, horizon=horizon).kind.composition == "approx"
    d_batch = target_delta / (2 * B) if shuffle else None
    if shuffle and target_delta == 0:
        raise ConfigError("target_delta", target_delta, f"{algorithm} needs δ > 0")

    def batch(e):
        return _Batch(algorithm, e, batch_size, d_batch, scale, p, horizon)

    methods = [c.method for c in batch(1.0).compose(B, target_delta, exact)]
    out = []
    for i, method in enumerate(methods):
        def total(e, i=i):
            return batch(e).compose(B, target_delta, exact)[i].epsilon

        e = _bisect(total, target_epsilon)
        if math.isnan(e):
            continue
        b = batch(e)
        out.append(Calibration(method, e, d_batch or 0.0, total(e), _noise(b)))
    if shuffle:
        e_h = target_epsilon / (2 * math.sqrt(2 * B * math.log(2 / target_delta)))
        b = batch(e_h)
        tot = advanced_composition(e_h, d_batch, B, target_delta / 2)[0]
        out.append(Calibration("Appendix H recipe (ε/(2√(2B log(2/δ))), δ/(2B))", e_h, d_batch,
                               tot, _noise(b)))
    return out


def _calibrate_releases(algorithm, B, target_epsilon, target_delta, horizon):
    """:func:`calibrate` for an algorithm that declares its releases: bisection over its ε.

    Each method is bisected on its worst case alone (one PLD per step, not one
    per case); if another case is worse at the result, the bisection is redone
    on that one.
    """
    def rel(e, case=None):
        out = _declared(algorithm, e, horizon)[1]
        return out if case is None else [r for r in out if r.case in ("", case)]

    out = []
    for i, c in enumerate(compose_releases(rel(1.0), B, target_delta)):
        case, tried = c.case, set()
        while True:
            def total(e, i=i, case=case):
                return compose_releases(rel(e, case), B, target_delta)[i].epsilon

            e = _bisect(total, target_epsilon)
            tried.add(case)
            if math.isnan(e):
                break
            full = compose_releases(rel(e), B, target_delta)[i]
            if full.case in tried or full.epsilon <= target_epsilon:
                break
            case = full.case
        if math.isnan(e):
            continue
        noise = dict(noise="; ".join(r.describe() for r in rel(e, case)))
        out.append(Calibration(c.method, e, 0.0, full.epsilon, noise))
    return out


__all__ = ["Calibration", "Composition", "accountable", "advanced_composition", "calibrate",
           "compose", "compose_releases", "rdp_to_dp"]
