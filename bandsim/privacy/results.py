"""The privacy every simulation result carries (``config["privacy"]``).

:func:`result_privacy` completes the claimed guarantee an algorithm's plan
states (Chowdhury & Zhou (2023) algorithms put it in ``plan.privacy``; the shuffle
algorithms in ``plan.notes["mechanism"]``; DP-SE states none) and adds
``audit``: the exact audit of the **largest batch** the plan can run (the
batch whose parameters are most extreme — the largest n, g and m), when that
is cheap, else the command that computes it:

``audit`` keys
    ``batch_size`` (n of the largest batch), ``quantity``, ``claimed``,
    ``exact``, ``verdict`` (PASS/FAIL), ``seconds``, ``command`` (the
    ``bandsim audit`` line that reproduces it, with every row), and
    ``matches_plan`` (the audited parameters — g, τ, m and the noise — are
    the ones in the plan's tables, i.e. what the engine ran); or
    ``skipped`` with the reason and the ``command``.

Cheap means (:data:`CHEAP_POINTS`): pure-DP Laplace views with at most 2²³
points (closed-form fold, or a window of ~8g points when m is huge — always
cheap in practice), Rényi audits with at most 2¹⁷ points (the fold of
m ≤ 2¹⁶, or H's window; about half a second), the shuffle and DP-SE always.
"""
import math

import numpy as np

from ..registry import get_mechanism
from . import audit as A
from .participation import per_user_text, releases_of
from .auditcache import audit_key, cached
from .pmf import PmfTooLarge

#: Most points an audit may evaluate at simulation time: (pure DP, Rényi) (≲ 1 s).
CHEAP_POINTS = (1 << 23, 1 << 17)


def _command(algo, params, n, horizon):
    parts = [f"bandsim audit {algo.name}", f"--epsilon {params['epsilon']:g}",
             f"--batch-size {n}"]
    for p in algo.params:
        if p.name in ("delta", "scale", "p") and isinstance(params.get(p.name), float):
            parts.append(f"{p.flag} {params[p.name]:g}")
    parts.append(f"--horizon {horizon}")
    return " ".join(parts)


def _largest_batch(plan):
    batch = np.asarray(plan.batch)
    s, k = np.unravel_index(np.argmax(batch[:, 2:]), batch[:, 2:].shape)
    return int(batch[s, k + 2]), int(s), int(k + 2)


def _claimed(algo, spec, params, plan, horizon):
    """The claimed guarantee: the plan's own statement, else the mechanism's batch claim."""
    if spec is None or not spec.kind.private:
        return dict(guarantee="none")
    claim = dict(plan.privacy) if getattr(plan, "privacy", None) else {}
    if not claim:
        claim = dict(spec.derive(1, params).privacy)
        mech_notes = (getattr(plan, "notes", None) or {}).get("mechanism") or {}
        if "exact_delta_max" in mech_notes:
            claim["exact_delta_max"] = mech_notes["exact_delta_max"]
    claim["per_user"] = per_user_text(releases_of(algo, params, horizon), algo.name,
                                      params.get("epsilon"), horizon)
    if not spec.auditable:
        claim["audit"] = dict(skipped="no exact audit for this mechanism (bandsim audit "
                                      f"covers {', '.join(A.auditable())})")
    return claim


def _json_safe(x):
    return x if isinstance(x, str) or math.isfinite(x) else str(x)


def _matches_plan(batch, plan, s, k):
    """The audited batch's kernel parameters are the ones in the engine's tables."""
    fpar = np.asarray(plan.fpar[s, k])[:len(batch.fpar)]
    ipar = np.asarray(plan.ipar[s, k])[:len(batch.ipar)]
    return bool(np.array_equal(fpar, np.asarray(batch.fpar, dtype=float))
                and np.array_equal(ipar, np.asarray(batch.ipar, dtype=np.int64)))


def result_privacy(algo, params, plan, horizon, audit=True):
    """``config["privacy"]`` of a simulation: the claim and the audit of its largest batch.

    Parameters
    ----------
    algo : bandsim.Algorithm
    params : dict
        Resolved parameters.
    plan : Plan
    horizon : int
    audit : bool
        Run the exact audit when it is cheap (else only the command is recorded).

    Returns
    -------
    dict
        The claimed guarantee (keys as the plan states them) plus ``audit``
        (module docstring), or just ``{"guarantee": "none"}`` for
        non-private algorithms.
    """
    spec = get_mechanism(algo.mechanism) if algo.mechanism else None
    claim = _claimed(algo, spec, params, plan, horizon)
    if spec is None or not spec.auditable:
        return claim
    try:
        n, s, k = _largest_batch(plan)
    except (AttributeError, ValueError):  # no batch tables: one release of a sum
        n, s, k = 1, None, None
    info = dict(batch_size=n, command=_command(algo, params, n, horizon))
    batch = spec.derive(n, params)
    if s is not None:
        info["matches_plan"] = _matches_plan(batch, plan, s, k)
    elif getattr(plan, "noise_scale", None) is not None and batch.fpar:
        info["matches_plan"] = bool(math.isclose(plan.noise_scale, batch.fpar[0]))
    limit = CHEAP_POINTS[1] if spec.kind.expensive else CHEAP_POINTS[0]
    fold_max = min(A.FOLD_MAX, limit // 2)  # else H's window, if that is cheaper
    try:
        audit_points = A.audit_of(spec)[1]
        points = audit_points(batch, fold_max) if audit_points else 0
    except (OverflowError, ValueError):
        points = math.inf
    if not audit or points > limit:
        info["skipped"] = (f"the audit evaluates {points:,.0f} points > {limit:,}: not cheap at "
                           "simulation time; run the command") if audit else "not requested"
        claim["audit"] = info
        return claim
    try:
        info.update(_cached_audit(spec, batch, algo.name, fold_max))
    except PmfTooLarge as e:  # an exact law too large to tabulate: no audit, no crash
        info["skipped"] = f"the exact law is too large to tabulate ({e}); `bandsim audit` exits 2"
    claim["audit"] = info
    return claim


_AUDITS = {}


def _cached_audit(spec, batch, algorithm, fold_max):
    """The audit's headline of one batch, computed once per distinct batch and code, in
    this process and across processes (:mod:`bandsim.privacy.auditcache`)."""
    audit = A.audit_of(spec)[0]
    key = audit_key(spec.name, audit, batch, algorithm, fold_max)
    if key not in _AUDITS:
        def compute():
            rep = audit(batch, algorithm, fold_max)
            h = rep.rows[rep.headline]
            return dict(quantity=h.quantity, claimed=_json_safe(h.claimed),
                        exact=_json_safe(h.exact),
                        worst_exact_over_claimed=_json_safe(rep.worst_ratio),
                        verdict=rep.verdict(), passed=rep.passed,
                        seconds=round(rep.seconds, 4))

        _AUDITS[key] = cached(key, compute)
    return dict(_AUDITS[key])


__all__ = ["CHEAP_POINTS", "result_privacy"]
