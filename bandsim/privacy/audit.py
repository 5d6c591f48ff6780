"""Exact per-batch privacy audits: the privacy a mechanism really provides.

The seeds prove privacy with bounds; an implementation can still get a
parameter wrong (an inverted scale, a τ from the wrong p) and add far less
noise than the proof needs. An audit takes the *simulator's own* parameters
of one batch — from :func:`bandsim.mechanisms.batch`, the Algorithm 3
object :class:`bandsim.shuffle.BinarySummation`, or DP-SE's engine plan — and
computes the privacy of the analyzer's view exactly from its output pmfs
(:mod:`bandsim.privacy.pmf`), then puts it next to the claim.

The view and the neighbouring inputs
------------------------------------
SecAgg protocols (Chowdhury & Zhou (2023)): the analyzer sees ŷ = (Σ x̂_i + Σ η_i) mod m.
Two neighbouring batches differ in one user's reward; her encoding x̂ lies in
{0, …, g} (randomized rounding mixes the two neighbouring integers, and
every divergence used here is jointly quasi-convex, so the worst case is
attained at deterministic encodings). The other users' encodings shift both
views alike and drop out on ℤ_m. So the audited pair is (N mod m, (N + d)
mod m), N the total noise, d ∈ {1, …, g}: for pure DP every d is scanned
(when g·m ≤ 5·10⁷, else d = g); Rényi divergences use d = g, the whole
range (the largest shift; a test checks on small cases that smaller d are
no worse).

* ``dist-dp``, ``central``: N ~ Lap_ℤ(g/ε) — exact ε = max log-ratio.
* ``local``: each user's own message (x̂ + η_i) mod m, η_i ~ Lap_ℤ(g/ε).
* ``dist-dp-shuffle``: N ~ Lap_ℤ(g/ε') and the relaxed SecAgg's output,
  which with probability q̂ is uniform on ℤ_m (the simulated relaxed
  correctness); the audited ε' is then added to the relaxation's 2ε̂ = ε/2,
  which the simulator does not model (it enters the claim only).
* ``dist-rdp``: N ~ Sk(0, g²/ε²) — D_α for α = 2 … 64 next to Theorem 2's
  ε̂(α) (and the per-batch Lemma 3 value).
* ``dist-cdp``: N = sum of n N_ℤ(0, g²/(nε²)) — the per-user protocol's
  exact law (the batched sampler draws one N_ℤ(0, g²/ε²) instead, within
  the TV bound recorded in the result) — D_α for α = 2 … 64 and the implied
  ρ = max_α D_α/α next to Theorem 4 / Lemma 4's ρ = ε̂²/2.

DP-SE (Sajed (2019), Algorithm 9): the epoch sum plus Lap(b) with sensitivity 1
(rewards in [0, 1]); exact ε = 1/b (the supremum of the Laplace log-density
ratio, attained on a half-line).

Shuffle binary summation (Tenenbaum et al. (2021), Algorithm 3): the shuffler's count of
ones, k + B versus k + 1 + B, B ~ Binomial — its exact hockey-stick δ(ε)
curve (:meth:`bandsim.shuffle.BinarySummation.exact_delta`) next to the
claimed (ε, δ).

A claim passes when exact ≤ claimed + error, where ``error`` is the row's
bound on the absolute error of the computed figure: truncation (the fold's
relative error, a window's dropped mass), the law's own approximation error
and floating-point rounding (:func:`_entry_error`), plus a few ulps of the
claim (:attr:`bandsim.privacy.report.Row.tolerance`); otherwise the report's
verdict is FAIL.

The laws are built from the parameters the kernels read: the discrete
Laplace family from q = ``fpar[0]`` (the geometric samplers of the batched,
central and local paths); mechanisms whose per-user sampler reads another
parameter (the Pólya pairs of ``dist-dp`` read β = ``fpar[1]``) declare a
``user_law``, and that path is audited too (a second ε row).

References
----------
Chowdhury & Zhou (2023), Sections 4–5, Theorems 1–6, Appendices C.2, D, E, G;
Sajed (2019), Algorithm 9, Theorem 5.1.1; Tenenbaum et al. (2021), Appendix A, Theorem A.1.
"""
import math
import time
from dataclasses import dataclass

from typing import Any

import numpy as np

from .. import registry
from ..errors import ConfigError, check_int
from ..params import MAX_HORIZON
from ..registry import get_algorithm, get_mechanism
from . import pmf as P
from .release import audit_points as release_audit_points
from .release import audit_release
from .report import AuditReport, Row

#: Rényi orders audited (α = 2 … 64).
ALPHAS = tuple(range(2, 65))
#: Orders shown in the short table (all are checked).
ALPHAS_SHOWN = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)
#: Largest g·m for which every shift d = 1 … g is scanned (pure DP).
SCAN_BUDGET = 50_000_000
#: Largest modulus folded exactly; beyond, H = Σ x̂ + Σ η is audited on ℤ (a window).
FOLD_MAX = 1 << 22



# --- the views ---------------------------------------------------------------

def _pure_epsilon(view, g):
    """max over d = 1 … g (or d = g only beyond the budget) of both log-ratios."""
    m = view.modulus or len(view.logp)
    shifts = range(1, g + 1) if g * m <= SCAN_BUDGET else (g,)
    best, arg = -math.inf, g
    for d in shifts:
        moved = view.shift(d)
        e = max(P.max_log_ratio(moved, view), P.max_log_ratio(view, moved))
        if e > best:
            best, arg = e, d
    return best, arg, len(shifts)


def _renyi_both(view, d, alphas=ALPHAS):
    moved = view.shift(d)
    return np.maximum(P.renyi(moved, view, alphas), P.renyi(view, moved, alphas))


def _relaxed(view, q_hat):
    """(1 − q̂) f + q̂/m: S's output under q̂-relaxed correctness."""
    m = view.modulus
    lf = np.logaddexp(math.log1p(-q_hat) + view.logp, math.log(q_hat) - math.log(m)) \
        if q_hat > 0 else view.logp
    return P.LogPmf(0, lf, 0.0, view.rel_err, m)


#: Unit roundoff of float64.
EPS = 2.0**-53
#: Floating-point operations behind one log-pmf entry, each rounding once
#: (log-pmf, logsumexp normalization, fold, shift): a generous count.
ROUNDINGS = 16


def _entry_error(view, law=None):
    """Bound on the absolute error of every entry of ``view.logp``.

    The view's relative error (fold truncation, FFT) and dropped mass (a
    window's renormalization), the law's own error (e.g. an asymptotic
    expansion) and floating-point rounding, ``ROUNDINGS`` roundings of
    size ≤ EPS · (1 + max |log p|).
    """
    lp = view.logp[np.isfinite(view.logp)]
    top = float(np.abs(lp).max()) if lp.size else 0.0
    return (view.rel_err + view.dropped + getattr(law, "log_err", 0.0)
            + ROUNDINGS * EPS * (1.0 + top))


def _ratio_error(view, law=None):
    """Error bound of a max log-ratio log P − log Q (two entries, one subtraction)."""
    e = _entry_error(view, law)
    return 2 * e + EPS * 2 * (1.0 + float(np.abs(view.logp[np.isfinite(view.logp)]).max()))


def _renyi_error(view, law=None):
    """Error bound of D_α, α ≥ 2, from entries with error ≤ e.

    D_α = log Σ exp(a + (α − 1)(a − b)) / (α − 1): the exponent errs by at most
    (2α − 1) e, so D_α by (2α − 1) e/(α − 1) ≤ 3e; the sum of N terms adds a
    relative rounding of N·EPS (≤ N·EPS in the log).
    """
    return 3 * _entry_error(view, law) + 3 * len(view.logp) * EPS


def _user_path_row(spec, mech, g, m, folded, relax_q, claimed):
    """ε of the per-user path, whose samplers read their own parameter (``user_law``)."""
    law = spec.user_law(mech)
    view = P.fold(law, m) if folded else _window_view(law, g, False)
    if relax_q is not None and folded:
        view = _relaxed(view, relax_q)
    exact, _, _ = _pure_epsilon(view, g)
    return Row("ε of the per-user path (its own noise parameter)", claimed, exact,
               error=_ratio_error(view, law), short="ε per-user")


def _window_view(law, g, renyi):
    """H's noise on a window of ℤ wide enough for the audit (instead of the fold).

    Pure DP (discrete Laplace): the log-ratio of a shift by d ≤ g is already
    maximal (= d log 1/β) for every k ≤ 0, so [−4g − 64, 4g + 64] holds the
    supremum. Rényi: the α-tilted sum Σ P_d^α P_0^{1−α} concentrates around
    (α − 1) d from the mode (Gaussian heuristic), so the window spans
    64 g + 40 sd on both sides; the report notes it.
    """
    if not renyi:
        W = 4 * g + 64
    else:
        W = int(64 * g + 40 * math.sqrt(_variance(law))) + 64
    c = int(getattr(law, "center", 0))
    return P.window(law, c - W, c + W)


def _variance(law):
    """Variance of a noise law (Skellam, discrete-Gaussian sum, or a plug-in's ``variance``)."""
    if isinstance(law, P.Skellam):
        return 2 * law.mu
    if isinstance(law, P.DiscreteGaussianSum):
        return law.n * law.sigma2
    return float(law.variance)


def audit_points(mech, fold_max=FOLD_MAX):
    """Points the audit of ``mech`` evaluates per divergence (its cost, roughly).

    The fold needs ≥ 2m points; beyond ``fold_max`` the window of
    :func:`_window_view` is used.
    """
    g, _, m = (int(v) for v in mech.ipar)
    if m <= fold_max:
        return 2 * m
    if _spec(mech).kind.windowed:
        return 2 * int(64 * g + 40 * math.sqrt(mech.noise_variance)) + 129
    return 8 * g + 129


def _spec(mech):
    return get_mechanism(mech.name)


def audit_mechanism(mech, algorithm=None, fold_max=FOLD_MAX):
    """Audit one batch of a SecAgg-family protocol (a :class:`bandsim.mechanisms.secagg.Batch`).

    Parameters
    ----------
    mech : bandsim.protocols.Mechanism
        As :func:`bandsim.mechanisms.batch` returns it (or a hand-altered
        copy, e.g. with less noise, to see the audit fail).
    algorithm : str, optional
        Name for the report (default: the protocol name).
    fold_max : int
        Largest modulus folded exactly; beyond, H = Σ x̂ + Σ η is audited on
        a window of ℤ (an upper bound on the view's divergences).

    Returns
    -------
    AuditReport
    """
    t0 = time.perf_counter()
    spec = _spec(mech)
    if spec.noise_law is None:
        raise ConfigError("mechanism", mech.name, "declares no exact noise law to audit")
    g, tau, m = (int(v) for v in mech.ipar)
    n, eps = mech.n, mech.epsilon
    law = spec.noise_law(mech)
    params = dict(n=n, epsilon=eps, p=mech.p, g=g, tau=tau, m=m, noise=mech.noise)
    if mech.scale != 1.0:
        params["scale"] = mech.scale
    name = algorithm or mech.name
    notes = []
    relax_q = mech.fpar[2] if "relax_q" in mech.extra else None  # what the kernel reads
    folded = m <= fold_max
    if folded:
        view = P.fold(law, m)
    else:
        view = _window_view(law, g, spec.kind.windowed)
        notes.append(f"m = {m:,} is too large to fold: audited H = Σx̂ + Ση on ℤ (the "
                     f"theorems' object) on the window |k| ≤ {view.hi:,} (mass outside ≤ "
                     f"{view.dropped:.1g}); the view ŷ = H mod m is a function of H, so it is "
                     "at least as private")
    strategy = _SECAGG_AUDITS.get(spec.kind.audit)
    if strategy is None:
        raise ConfigError("mechanism", mech.name,
                          f"guarantee {spec.kind} has no audit of the SecAgg protocol")
    return strategy(_View(mech=mech, spec=spec, law=law, view=view, g=g, m=m, n=n,
                          params=params, name=name, notes=notes, t0=t0, folded=folded,
                          relax_q=relax_q))


@dataclass(frozen=True, kw_only=True)
class _View:
    """What every SecAgg audit strategy reads: the batch, its declaration and its view."""

    mech: object
    spec: object
    law: object
    view: object
    g: int
    m: int
    n: int
    params: dict
    name: str
    notes: list
    t0: float
    folded: bool
    relax_q: float = None


def _secagg_pure(c):
    """ε-DP: the largest log-ratio of the view under shifts d = 1…g (both paths)."""
    mech, spec, view, g, m, relax_q = c.mech, c.spec, c.view, c.g, c.m, c.relax_q
    if relax_q is not None and c.folded:
        view = _relaxed(view, relax_q)
    exact, d, scanned = _pure_epsilon(view, g)
    err = _ratio_error(view, c.law)
    v = (f"view: {spec.view} = (x̂ + noise) mod m = {m:,}, noise {mech.noise}; "
         f"neighbours: x̂ moved by d ∈ 1…{g} "
         f"({scanned} shift(s) scanned, worst d = {d})")
    if relax_q is not None:
        priv = mech.privacy
        eps_sa, eps_rel = priv["epsilon_secagg"], priv["epsilon_relaxation"]
        rows = [Row("ε' of the modular sum (max log-ratio)", eps_sa, exact, error=err,
                    short="ε'"),
                Row("ε = 2ε̂ + ε' (ε̂ from the relaxation, not simulated)",
                    priv["epsilon"], 2 * eps_rel + exact, error=err, short="ε = 2ε̂ + ε'")]
        v += f"; S is q̂-relaxed: uniform on ℤ_m w.p. q̂ = {relax_q:.3g}"
        c.notes.append("the relaxed SecAgg's ε̂-security (Cheu–Yan shuffle) is taken from "
                       "Chowdhury & Zhou's Theorem 3, not audited: the simulator does not "
                       "model the shuffled bit vectors")
        guarantee = f"ε-DP via shuffling ({mech.theorem})"
        headline = 1
    else:
        rows = [Row("ε (max log-ratio)", mech.privacy["epsilon"], exact, error=err, short="ε")]
        guarantee = f"{spec.trust} ({mech.theorem})"
        headline = 0
    if spec.user_law is not None:
        rows.append(_user_path_row(spec, mech, g, m, c.folded, relax_q, rows[0].claimed))
        v += ("; the batched path's law is read from fpar[0], the per-user path's from "
              "its own parameter (both audited)")
    return AuditReport(algorithm=c.name, guarantee=guarantee, view=v, params=c.params,
                       rows=rows, headline=headline, notes=c.notes,
                       seconds=time.perf_counter() - c.t0)


def _secagg_approx(c):
    """(ε, δ)-DP: the hockey-stick divergence δ(ε) of the view."""
    return _audit_approx(c.mech, c.spec, c.view, c.name, c.params, c.notes, c.t0)


def _secagg_rdp(c):
    """RDP: D_α of the view shifted by d = g, against the claimed curve ε̂(α)."""
    mech, spec, g, m = c.mech, c.spec, c.g, c.m
    div = _renyi_both(c.view, g)
    err = _renyi_error(c.view, c.law)
    rows = []
    for a, x in zip(ALPHAS, div):
        claim, also = spec.claim(mech, a)
        rows.append(Row(f"ε(α), α = {a}", claim, float(x), error=err, also=also,
                        shown=a in ALPHAS_SHOWN, short=f"ε(α={a})"))
    guarantee = f"(α, ε̂(α))-RDP for α = 2, 3, … ({mech.theorem})"
    v = (f"view: ŷ = (x̂ + N) mod m = {m:,}, N ~ {mech.noise}; neighbours: x̂ moved by "
         f"d = g = {g}; claimed ε̂(α): {mech.privacy.get('formula', spec.source)}")
    return AuditReport(algorithm=c.name, guarantee=guarantee, view=v, params=c.params,
                       rows=rows, notes=c.notes, seconds=time.perf_counter() - c.t0)


def _secagg_zcdp(c):
    """ρ-zCDP: max_α D_α/α of the view shifted by d = g, against the claimed ρ."""
    mech, law, g, m, n, notes = c.mech, c.law, c.g, c.m, c.n, c.notes
    div = _renyi_both(c.view, g)
    err = _renyi_error(c.view, law)
    rho = mech.privacy["rho"]
    ratios = div / np.array(ALPHAS, dtype=float)
    lb = not c.view.exact
    rows = [Row("ρ = max_α D_α/α (zCDP)", rho, float(ratios.max()), error=err,
                also=f"argmax α = {ALPHAS[int(ratios.argmax())]}; "
                     f"ε̂ = {mech.privacy['epsilon_hat']:.6g}", lower_bound=lb, short="ρ")]
    for a, x in zip(ALPHAS, div):
        rows.append(Row(f"D_α, α = {a}", rho * a, float(x), error=err, shown=a in ALPHAS_SHOWN,
                        lower_bound=lb))
    if lb:
        notes.append(f"per-user σ² = {law.sigma2:.3g} is too small for the Poisson-summation "
                     f"form: the sum's pmf is known on |k| ≤ {law.support_limit:,} only, and "
                     "the divergences are lower bounds")
    c.params["sigma2_per_user"] = mech.fpar[0] / n
    guarantee = f"ρ-zCDP, ρ = ε̂²/2 ({mech.theorem}, Lemma 4 per batch)"
    v = (f"view: ŷ = (x̂ + N) mod m = {m:,}, N = sum of n = {n:,} N_ℤ(0, {mech.fpar[0] / n:.6g}) "
         f"(exact law, {law.method}; modulation {law.modulation:.2g}); neighbours: x̂ moved "
         f"by d = g = {g}; the check covers α = 2…64")
    notes.append("ρ-zCDP asks D_α ≤ ρα for every α > 1; orders in (1, 2) and above 64 are not "
                 "audited")
    return AuditReport(algorithm=c.name, guarantee=guarantee, view=v, params=c.params,
                       rows=rows, notes=notes, seconds=time.perf_counter() - c.t0)


#: The audit of the SecAgg protocol's view for each guarantee's statistic (``Guarantee.audit``).
_SECAGG_AUDITS = {"max-log-ratio": _secagg_pure, "hockey-stick": _secagg_approx,
                  "renyi": _secagg_rdp, "renyi/alpha": _secagg_zcdp}


def _audit_approx(mech, spec, view, name, params, notes, t0):
    """(ε, δ)-DP of a SecAgg view: exact δ(ε) at the claimed ε, worst shift d ∈ 1…g."""
    g, m = int(mech.ipar[0]), int(mech.ipar[2])
    eps, delta = mech.privacy["epsilon"], mech.privacy["delta"]
    shifts = range(1, g + 1) if g * len(view.logp) <= SCAN_BUDGET else (g,)
    exact, worst = -1.0, g
    for d in shifts:
        moved = view.shift(d)
        x = max(P.hockey_stick(moved, view, eps), P.hockey_stick(view, moved, eps))
        if x > exact:
            exact, worst = x, d
    # δ = Σ P(1 − e^{ε − r}): entries off by ≤ e move it by ≤ 3e (Σ P ≤ 1), plus the
    # dropped mass and the rounding of a sum of N terms
    err = view.dropped + 3 * _entry_error(view) + len(view.logp) * EPS
    rows = [Row(f"δ(ε = {eps:g})", delta, exact, error=err, short="δ(ε)")]
    for f in (0.5, 2.0):
        rows.append(Row(f"δ(ε = {f * eps:g})", None,
                        max(P.hockey_stick(view.shift(worst), view, f * eps),
                            P.hockey_stick(view, view.shift(worst), f * eps)), error=err))
    v = (f"view: {spec.view} = (x̂ + noise) mod m = {m:,}, noise {mech.noise}; neighbours: "
         f"x̂ moved by d ∈ 1…{g} ({len(shifts)} shift(s) scanned, worst d = {worst}); "
         "δ(ε) = hockey-stick divergence, the larger of both directions")
    return AuditReport(algorithm=name, guarantee=f"(ε, δ)-DP, {spec.trust} ({mech.theorem})",
                       view=v, params=params, rows=rows, notes=notes,
                       seconds=time.perf_counter() - t0)


def audit_laplace(scale, epsilon, n, sensitivity=1.0, algorithm="dp-se"):
    """Audit DP-SE's Laplace mechanism: the epoch sum of n rewards plus Lap(scale).

    Exact ε = sensitivity/scale: log f(z)/f(z − Δ) = (|z − Δ| − |z|)/b is at
    most Δ/b, with equality for every z ≤ 0.

    Parameters
    ----------
    scale : float
        Laplace scale b of the noise on the sum (the engine's ``fpar[0]``).
    epsilon : float
        The claimed ε (per epoch).
    n : int
        Rewards in the epoch sum (does not change the privacy).
    """
    t0 = time.perf_counter()
    z = np.linspace(-50 * scale, 50 * scale + sensitivity, 20001)
    ratio = (np.abs(z - sensitivity) - np.abs(z)) / scale
    exact = float(max(ratio.max(), (-ratio).max()))
    err = 4 * EPS * (float(np.abs(z).max()) + sensitivity) / scale  # |z − Δ| − |z|, / b
    rows = [Row("ε (max log-density ratio)", float(epsilon), exact, error=err, short="ε")]
    view = (f"view: Σ r + Lap(b), b = {scale:.6g}, rewards in [0, 1] (sensitivity 1); "
            f"the ratio is constant (= ε) on a half-line, so the grid maximum is exact")
    return AuditReport(algorithm=algorithm, guarantee="ε-DP, central (Sajed & Sheffet 2019, "
                       "Algorithm 9, Theorem 5.1.1)", view=view,
                       params=dict(n=int(n), epsilon=float(epsilon), noise=f"Lap({scale:.6g})"),
                       rows=rows, notes=[], seconds=time.perf_counter() - t0)


def audit_shuffle(mech, n, algorithm="sdp-ae"):
    """Audit the shuffle binary summation on a batch of n users (Tenenbaum et al. (2021), Algorithm 3).

    Parameters
    ----------
    mech : bandsim.shuffle.BinarySummation
    n : int
        Users in the batch.

    Returns
    -------
    AuditReport
        Rows: exact δ at the claimed ε (vs the claimed δ), the exact ε at
        the claimed δ (vs the claimed ε), and the δ(ε) curve.
    """
    t0 = time.perf_counter()
    eps, delta = mech.epsilon, mech.delta
    trials, prob = mech.noise_law(n)
    support, _, _, tail = mech.output_pmfs(n)
    d_exact = mech.exact_delta(n)
    # δ(ε) ≥ the mass where one output pmf vanishes, for every ε: if that alone
    # exceeds δ, no finite ε holds (exact_epsilon would search forever).
    e_exact = mech.exact_epsilon(n) if mech.exact_delta(n, 700.0) <= delta else math.inf
    # δ = Σ max(0, p − e^ε q) over S terms of pmfs with a few ulps of error each
    tail = tail + 4 * EPS * (1 + math.exp(min(eps, 700.0))) + len(support) * EPS
    rows = [Row(f"δ(ε = {eps:g})", delta, d_exact, error=tail, short="δ(ε)"),
            Row(f"ε at δ = {delta:.3g}", eps, e_exact, error=1e-9, short="ε at δ")]
    for f in (0.25, 0.5, 2.0, 4.0):
        e = f * eps
        rows.append(Row(f"δ(ε = {e:.4g})", None, mech.exact_delta(n, e), error=tail))
    view = (f"view: the shuffler's count of ones, k + B vs k + 1 + B, B ~ Binomial({trials:,}, "
            f"{prob:.6g}) ({mech.regime(n)} regime, τ = {mech.tau:.6g}); δ(ε) = hockey-stick "
            "divergence, the larger of both directions")
    notes = []
    if eps >= 1:
        notes.append("Theorem A.1 of Tenenbaum et al. (2021) is stated for ε < 1")
    return AuditReport(algorithm=algorithm,
                       guarantee="(ε, δ)-DP, shuffle (Tenenbaum et al. 2021, Theorem A.1)", view=view,
                       params=dict(n=int(n), epsilon=eps, delta=delta, tau=mech.tau,
                            noise=f"Binomial({trials:,}, {prob:.6g})"),
                       rows=rows, headline=0, notes=notes, seconds=time.perf_counter() - t0)


def audit(algorithm: str, epsilon: float, batch_size: int, delta: float | None = None,
          scale: float | None = None, p: float | None = None, horizon: int = 10**7) -> Any:
    """Audit one batch of ``batch_size`` users of ``algorithm`` at privacy level ``epsilon``.

    Parameters
    ----------
    algorithm : str
        A registered algorithm whose mechanism has an exact audit
        (:func:`auditable`; plug-ins included).
    epsilon : float
        The algorithm's ε (per batch / epoch).
    batch_size : int
        n, users in the batch (any n ≥ 1, not only the schedule's l(b)).
    delta, scale, p : float, optional
        The algorithm's δ, scaling factor s and confidence p when it takes
        them (default: the algorithm's defaults at ``horizon``); ignored
        otherwise.
    horizon : int
        T, used only for defaults that depend on it (p = 1/(2T), β = 1/T).

    Returns
    -------
    AuditReport

    Raises
    ------
    ConfigError
        Unknown or non-auditable algorithm, missing or out-of-range parameters.
    """
    algo = get_algorithm(algorithm)
    if algo.name not in auditable():
        raise ConfigError("algorithm", algorithm, f"must be one of {', '.join(auditable())}")
    n = check_int("batch_size", batch_size, 1, MAX_HORIZON)  # ≤ T users
    given = {"epsilon": epsilon, "delta": delta, "scale": scale, "p": p}
    prm = algo.resolve({k: v for k, v in given.items() if algo.param(k)}, horizon)
    spec = get_mechanism(algo.mechanism)
    return audit_of(spec)[0](spec.derive(n, prm), algo.name)


def secagg_audit(b: Any, algorithm: str, fold_max: int | None = None) -> Any:
    """The exact audit of one batch of any SecAgg-family mechanism (plug-ins too)."""
    return audit_mechanism(b, algorithm, fold_max or FOLD_MAX)


def secagg_audit_points(b: Any, fold_max: int | None = None) -> int:
    """Points :func:`secagg_audit` evaluates (its cost)."""
    return audit_points(b, fold_max or FOLD_MAX)


def _laplace_sum_audit(b, algorithm, fold_max=None):
    """Lap(b.fpar[0]) on a sum of sensitivity 1: what bandsim's sum kernel draws."""
    return audit_laplace(b.fpar[0], b.privacy["epsilon"], b.n, algorithm=algorithm)


def _shuffle_audit(b, algorithm, fold_max=None):
    """The exact audit of the shuffle's count, with τ = fpar[0] (what the kernels read)."""
    import copy

    mech = b.extra["mech"]
    if mech.tau != b.fpar[0]:
        mech = copy.copy(mech)
        mech.tau = float(b.fpar[0])
    return audit_shuffle(mech, b.n, algorithm)


#: The exact audit each family supplies (``Mechanism.default_audit``): (audit, its cost).
FAMILY_AUDITS = {
    "secagg": (secagg_audit, secagg_audit_points),
    "laplace-sum": (_laplace_sum_audit, lambda b, fold_max=None: 20001),
    "shuffle": (_shuffle_audit, lambda b, fold_max=None: 4 * b.n),
    "release": (audit_release, release_audit_points),
}


def audit_of(spec):
    """(audit, audit_points) of a mechanism declaration: its own, else its family's.

    Returns ``(None, None)`` for a mechanism without an exact audit.
    """
    if spec.audit is not None:
        return spec.audit, spec.audit_points
    return FAMILY_AUDITS.get(spec.default_audit(), (None, None))


def auditable():
    """Registered algorithms whose mechanism has an exact audit (names)."""
    return registry.auditable()


__all__ = ["ALPHAS", "AuditReport", "FAMILY_AUDITS", "Row", "audit", "audit_laplace",
           "audit_mechanism", "audit_of", "audit_shuffle", "auditable", "secagg_audit",
           "secagg_audit_points"]
