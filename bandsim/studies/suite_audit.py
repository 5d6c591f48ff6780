"""The privacy-verdict columns of a board's rows (:mod:`bandsim.studies.suite`).

A row carries the exact audit of its configuration's largest batch and its whole-run
verdict (:func:`audit_columns`, read from the result's ``config["privacy"]``) and, for a
plug-in, the sampled audit of its own samplers (:func:`sampled_columns`); docs/suite.md
explains how the board reads them.
"""
from .. import registry
from ..privacy.sampled import DRAWS, sampled


def audit_columns(privacy, private):
    """The verdict columns of a result's ``config["privacy"]["audit"]``.

    ``verdict`` is ``PASS``/``FAIL`` (the exact audit of the largest batch
    ran), ``not audited`` (an exact audit exists but was too costly at
    simulation time: ``audit_command`` reproduces it; or it could give only a
    lower bound below the claim, INCONCLUSIVE, e.g. a law declared as
    probabilities that underflow: the verdict in ``audit_note``), ``not auditable`` (the
    mechanism has no exact audit) or ``n/a`` (non-private). ``whole_run_verdict``
    is ``config["privacy"]["whole_run"]``'s (:mod:`bandsim.wholerun`: PASS,
    FAIL, not auditable; ``not recorded`` for a result made before it existed),
    with its first failure or reason in ``whole_run_note`` and the line that
    reproduces it in ``whole_run_command``.
    """
    nan = float("nan")
    out = dict(verdict="n/a", audit_quantity="", audit_exact=nan, audit_claimed=nan,
               audit_ratio=nan, audit_batch_size=0, audit_note="", audit_command="",
               whole_run_verdict="n/a", whole_run_note="", whole_run_command="")
    if not private:
        return out
    w = privacy.get("whole_run") or {}
    out.update(whole_run_verdict=w.get("verdict", "not recorded"),
               whole_run_note=(w.get("failures") or [w.get("reason", "")])[0],
               whole_run_command=w.get("command", ""))
    a = privacy.get("audit")
    if not a:
        out.update(verdict="not auditable", audit_note="no audit recorded")
        return out
    out["audit_command"] = a.get("command", "")
    out["audit_batch_size"] = int(a.get("batch_size", 0))
    if str(a.get("verdict", "")).startswith("INCONCLUSIVE"):  # only a lower bound below
        out.update(verdict="not audited", audit_note=a["verdict"])  # the claim: no FAIL
    elif "verdict" in a:
        out.update(verdict="PASS" if a.get("passed") else "FAIL",
                   audit_quantity=a.get("quantity", ""), audit_exact=float(a["exact"]),
                   audit_claimed=float(a["claimed"]),
                   audit_ratio=float(a.get("worst_exact_over_claimed", nan)))
    elif "command" in a:
        out.update(verdict="not audited", audit_note=a.get("skipped", ""))
    else:
        out.update(verdict="not auditable", audit_note=a.get("skipped", ""))
    return out


#: Users per batch of the sampled audit the suite runs for a plug-in (the default of
#: ``bandsim audit --sampled``).
SAMPLED_BATCH = 16


def sampled_columns(job, private, memo):
    """The sampled-audit columns of a row: ``sampled_verdict``, ``sampled_note``, ``sampled_command``.

    A plug-in's samplers are the suite's to check: ``bandsim audit --sampled``
    (:func:`bandsim.privacy.sampled.sampled`, ≥ 10⁶ draws per neighbouring
    input, α = 10⁻⁶) runs at the row's ε and δ on a batch of
    :data:`SAMPLED_BATCH` users, once per (algorithm, ε, δ) (``memo``), so a
    sampler that does not draw its declared law FAILs and is not ranked. A
    built-in's samplers are run by bandsim's own test suite under the same
    audit (``not run`` here, which keeps the quick tier under a minute).

    Parameters
    ----------
    job : Job
    private : bool
        The algorithm declares a privacy guarantee.
    memo : dict
        (algorithm, ε, δ) → columns, shared by the rows of one suite.

    Returns
    -------
    dict
        ``sampled_verdict`` is ``PASS``, ``FAIL``, ``not run`` (a built-in),
        ``not auditable`` (the reason in ``sampled_note``) or ``n/a``
        (non-private).
    """
    if not private:
        return dict(sampled_verdict="n/a", sampled_note="", sampled_command="")
    if registry.is_builtin(job.algorithm):
        return dict(sampled_verdict="not run", sampled_command="",
                    sampled_note="built-in samplers: audited by bandsim's test suite")
    key = (job.algorithm, job.epsilon, job.delta)
    if key not in memo:
        given = {k: v for k, v in (("epsilon", job.epsilon), ("delta", job.delta))
                 if v is not None}
        command = (f"bandsim audit {job.algorithm} --batch-size {SAMPLED_BATCH} --sampled"
                   + "".join(f" --{k} {v:g}" for k, v in given.items()))
        try:
            rep = sampled(job.algorithm, job.epsilon, SAMPLED_BATCH, draws=DRAWS,
                          delta=job.delta)
            verdict = {0: "PASS", 1: "FAIL"}.get(rep.code, "not auditable")
            note = rep.reason or ""
        except Exception as e:  # a plug-in's broken sampler must not sink the board
            verdict, note = "not auditable", f"{type(e).__name__}: {e}"
        memo[key] = dict(sampled_verdict=verdict, sampled_note=note, sampled_command=command)
    return memo[key]


__all__ = ["SAMPLED_BATCH", "audit_columns", "sampled_columns"]
