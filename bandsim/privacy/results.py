"""The privacy every simulation result carries (``config["privacy"]``).

:func:`result_privacy` completes the claimed guarantee an algorithm's plan
states (seed 003 algorithms put it in ``plan.privacy``; the shuffle
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

from . import audit_impl as A

#: Most points an audit may evaluate at simulation time: (pure DP, Rényi) (≲ 1 s).
CHEAP_POINTS = (1 << 23, 1 << 17)


def _command(algorithm, params, n, horizon):
    parts = [f"bandsim audit {algorithm}", f"--epsilon {params['epsilon']:g}",
             f"--batch-size {n}"]
    for k in ("delta", "scale", "p"):
        if k in params:
            parts.append(f"--{k} {params[k]:g}")
    parts.append(f"--horizon {horizon}")
    return " ".join(parts)


def _largest_batch(plan):
    batch = np.asarray(plan.batch)
    s, k = np.unravel_index(np.argmax(batch[:, 2:]), batch[:, 2:].shape)
    return int(batch[s, k + 2]), int(s), int(k + 2)


def _claimed(algo, params, plan):
    claim = dict(plan.privacy) if getattr(plan, "privacy", None) else {}
    mech = (getattr(plan, "notes", None) or {}).get("mechanism")
    if not claim and algo.name in A.SHUFFLE_ALGORITHMS and mech:
        claim = dict(guarantee="(ε, δ)-DP per batch, shuffle model",
                     epsilon=mech["epsilon"], delta=mech["delta"],
                     theorem="seed 000 Theorem A.1",
                     exact_delta_max=mech.get("exact_delta_max"))
    if not claim and algo.name == "dp-se":
        claim = dict(guarantee="ε-DP per epoch, central", epsilon=params["epsilon"],
                     theorem="seed 001 Theorem 5.1.1")
    if not claim and "epsilon" in params:
        claim = dict(guarantee=algo.trust, epsilon=params["epsilon"], theorem=algo.reference)
        if algo.name not in A.AUDITABLE:
            claim["audit"] = dict(skipped="no exact audit for this mechanism (bandsim audit "
                                          f"covers {', '.join(A.AUDITABLE)})")
    if not claim:
        return dict(guarantee="none")
    claim.setdefault("per_user", "each user contributes to one batch (parallel composition); "
                     "for users returning in B batches see `bandsim audit --returning B`")
    return claim


def _json_safe(x):
    return x if isinstance(x, str) or math.isfinite(x) else str(x)


def result_privacy(algo, params, plan, horizon):
    """``config["privacy"]`` of a simulation: the claim and the audit of its largest batch.

    Parameters
    ----------
    algo : bandsim.algorithms.Algorithm
    params : dict
        Resolved parameters.
    plan : Plan
    horizon : int

    Returns
    -------
    dict
        The claimed guarantee (keys as the plan states them) plus ``audit``
        (module docstring), or just ``{"guarantee": "none"}`` for
        non-private algorithms.
    """
    claim = _claimed(algo, params, plan)
    if algo.name not in A.AUDITABLE:
        return claim
    try:
        n, s, k = _largest_batch(plan)
    except (AttributeError, ValueError):
        return claim
    cmd = _command(algo.name, params, n, horizon)
    info = dict(batch_size=n, command=cmd)
    if algo.name in A.PROTOCOL_OF:
        from .. import protocols

        mech = protocols.mechanism(A.PROTOCOL_OF[algo.name], n, params["epsilon"], params["p"],
                                   params.get("scale", 1.0))
        fpar = np.asarray(plan.fpar[s, k])[:len(mech.fpar)]
        info["matches_plan"] = bool(tuple(int(v) for v in plan.ipar[s, k][:3]) == mech.ipar
                                    and np.array_equal(fpar, np.asarray(mech.fpar)))
        renyi = A.PROTOCOL_OF[algo.name] in ("dist-rdp", "dist-cdp")
        limit = CHEAP_POINTS[1] if renyi else CHEAP_POINTS[0]
        fold_max = min(A.FOLD_MAX, limit // 2)  # else H's window, if that is cheaper
        points = A.audit_points(mech, fold_max)
        if points > limit:
            info["skipped"] = (f"the audit evaluates {points:,} points (m = {mech.m:,}) > "
                               f"{limit:,}: not cheap at simulation time; run the command")
            claim["audit"] = info
            return claim
        rep = A.audit_mechanism(mech, algo.name, fold_max)
    elif algo.name == "dp-se":
        b = float(plan.fpar[s, k, 0])
        rep = A.audit_laplace(b, params["epsilon"], n)
        info["matches_plan"] = True
    else:
        from ..shuffle import BinarySummation

        mech = BinarySummation(params["epsilon"], params["delta"])
        info["matches_plan"] = bool(math.isclose(float(plan.fpar[s, k, 0]), mech.tau))
        rep = A.audit_shuffle(mech, n, algo.name)
    h = rep.rows[rep.headline]
    info.update(quantity=h.quantity, claimed=_json_safe(h.claimed), exact=_json_safe(h.exact),
                worst_exact_over_claimed=_json_safe(rep.worst_ratio),
                verdict=rep.verdict(), passed=rep.passed, seconds=round(rep.seconds, 4))
    claim["audit"] = info
    return claim


__all__ = ["CHEAP_POINTS", "result_privacy"]
