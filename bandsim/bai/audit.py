"""Privacy audits of the fixed-confidence algorithms: exact, sampled, whole run.

``bandsim audit ALGO`` for a fixed-confidence algorithm (``dp-se-bai``,
``adap-tt``, ``adap-tt-star``, a plug-in :class:`~bandsim.bai.toptwo.TopTwoBAI`):

exact
    Every Laplace release its plan can make — one per active arm per epoch
    (elimination engine: ``fpar[s, k, 0]`` of the plan's tables), one per
    closed episode of an arm (top-two engine: ``tables.fpar[0]``), each on a
    sum of rewards in [0, 1] (sensitivity 1) — is audited exactly by
    :func:`bandsim.privacy.audit.audit_laplace` at the scale the kernel reads
    from the plan: ε-DP iff that scale is ≥ 1/ε. Each user's reward enters one
    release (the declared participation), so the algorithm is ε-DP.
``--sampled``
    The release primitive both engines call (:func:`kernels.protocols.batch_estimate`,
    Laplace code) is sampled on the sums 0 and 1 at the scale the plan hands it
    (:func:`bandsim.privacy.sampled.sampled_audit`, the regret algorithms'
    ``laplace-sum`` path): its draws against Lap(scale) (G-test) and an
    empirical lower bound on ε.
``--whole-run``
    The engine's recording specialisation, record–replay
    (:mod:`bandsim.bai.wholerun`): scales, participation, per-class laws,
    independence, replays on neighbours with frozen releases.

A FAIL is never ranked (the BAI board, :mod:`bandsim.studies.bai_board`). ε-DP here is
Sajed & Sheffet's (ICML 2019) DP-SE guarantee, as used for fixed confidence by
Azize, Jourdan, Al Marjani & Basu (NeurIPS 2023), and AdaP-TT's (same paper, §4:
Laplace on each episode sum, episodes disjoint).
"""
import dataclasses
import math
import time

import numpy as np

from ..errors import ConfigError, check_int
from ..kernels import codes
from ..privacy.audit import audit_laplace
from ..privacy.report import AuditReport, Row
from ..privacy.sampled import sampled_audit
from ..registry import get_mechanism
from ..results import json_safe
from . import declarations, wholerun as record_replay

#: Family-wise significance of the whole-run checks (:mod:`bandsim.bai.wholerun`).
ALPHA = 1e-6
#: Engines whose plans the exact and sampled audits read.
ENGINES = ("bai-elimination", "bai-toptwo")
#: Flags of the regret audits that a fixed-confidence audit refuses (dest, flag).
REFUSED = (("returning", "--returning"), ("target_epsilon", "--target-epsilon"),
           ("target_delta", "--target-delta"), ("batch_size", "--batch-size"),
           ("scale", "--scale"), ("p", "--p"), ("exact", "--exact"), ("full", "--full"),
           ("horizon", "--horizon"))
#: The whole-run audit's instance (C3, K = 5).
C3 = (0.75, 0.53125, 0.375, 0.28125, 0.25)


def audit_text(algo):
    """What ``bandsim audit`` does for a fixed-confidence algorithm (``bandsim list`` cell).

    Parameters
    ----------
    algo : Algorithm
        A fixed-confidence declaration.

    Returns
    -------
    str
    """
    if algo.mechanism in (None, "none"):
        return "-"
    if has_exact(algo):
        return f"bandsim audit {algo.name} [--sampled | --whole-run]"
    return f"bandsim audit {algo.name} --whole-run (recorded releases; no exact per-plan audit)"


def has_exact(algo):
    """Whether the exact per-release audit reads this algorithm's plan (an engine of
    :data:`ENGINES` with Laplace releases)."""
    return algo.engine in ENGINES and algo.mechanism == "laplace"


def plan_scales(plan):
    """The Laplace scales on episode (epoch) sums the engine reads from ``plan``.

    Parameters
    ----------
    plan : BAIPlan or TopTwoPlan

    Returns
    -------
    list of (float, int)
        (scale, rewards in the sum) per distinct scale: the elimination tables'
        ``fpar[s, k, 0]`` of every reachable (stage, k), or the top-two
        ``tables.fpar[0]`` (every episode, n = 1 reported); [(0, 1)] when the plan
        releases exact sums (mechanism code ``NONE``).

    Raises
    ------
    ConfigError
        The plan's mechanism code is not Laplace.
    """
    t = plan.tables
    mech = int(np.max(t.mech))
    if mech == codes.NONE:  # a private declaration whose plan releases exact sums
        return [(0.0, 1)]
    if mech != codes.LAPLACE:
        raise ConfigError("mechanism", mech, "the plan's releases are not Laplace: no exact "
                                             "audit")
    if t.fpar.ndim == 1:  # the top-two engine: one scale for every episode sum
        return [(float(t.fpar[0]), 1)]
    seen, out = set(), []
    for s in range(t.batch.shape[0]):
        for k in range(2, t.batch.shape[1]):
            n = int(t.batch[s, k])
            if n <= 0 or float(t.fpar[s, k, 0]) in seen:  # n does not change the privacy
                continue
            seen.add(float(t.fpar[s, k, 0]))
            out.append((float(t.fpar[s, k, 0]), n))
    return out


def _plan(name, epsilon, delta, budget, arms=5):
    algo = _private(name)
    if not has_exact(algo):
        raise ConfigError("algorithm", name, f"has no exact per-plan audit (its engine "
                                             f"{algo.engine} is not one of {', '.join(ENGINES)} "
                                             "with Laplace releases): use --whole-run")
    prm = algo.resolve({"epsilon": epsilon, "delta": delta}, budget)
    return prm, algo.plan(prm, arms, budget)


def exact(name, epsilon, delta=0.01, budget=10**8, plan=None):
    """Exact audit of every release scale the plan of ``name`` can use.

    Parameters
    ----------
    name : str
        A fixed-confidence algorithm with Laplace releases.
    epsilon, delta : float
        ε and the risk δ.
    budget : int
        T_max of the plan.
    plan : BAIPlan or TopTwoPlan, optional
        The plan to read (default: the declaration's at these parameters; a
        negative control passes an altered one).

    Returns
    -------
    list of bandsim.privacy.report.AuditReport
        One per distinct noise scale of the plan (the episode size does not
        change the privacy of a sum of sensitivity 1).

    Raises
    ------
    ConfigError
        Not private, or no plan the audit reads.
    """
    prm, own = _plan(name, epsilon, delta, budget)
    return [audit_laplace(b, prm["epsilon"], n, algorithm=name) if b > 0 else AuditReport(
        algorithm=name, guarantee="ε-DP, central", params=dict(n=n, epsilon=prm["epsilon"],
                                                               noise="none"),
        view="view: Σ r released exactly (the plan's mechanism code is NONE)",
        rows=[Row("ε (max log-density ratio)", float(prm["epsilon"]), math.inf, short="ε")])
        for b, n in plan_scales(own if plan is None else plan)]


def sampled(name, epsilon, delta=0.01, draws=10**6, seed=0, budget=10**8, plan=None):
    """Sampled audit of the release primitive at the plan's scales (module docstring).

    Parameters
    ----------
    name : str
    epsilon, delta : float
    draws : int
        Draws per neighbouring sum (0 and 1).
    seed : int
    budget : int
    plan : BAIPlan or TopTwoPlan, optional
        As :func:`exact`.

    Returns
    -------
    list of bandsim.privacy.sampled.SampledReport
        One per distinct scale (``code`` 0 PASS, 1 FAIL).
    """
    prm, own = _plan(name, epsilon, delta, budget)
    out = []
    for b, n in plan_scales(own if plan is None else plan):
        batch = dataclasses.replace(get_mechanism("laplace").derive(1, prm), fpar=(b,))
        rep = sampled_audit(batch, name, draws, seed)
        rep.notes.append(f"the {_private(name).engine} engine's release primitive "
                         f"(kernels.protocols.batch_estimate) at its plan's scale {b:.6g}")
        out.append(rep)
    return out


def _private(name):
    algo = declarations.get(name)
    if algo.mechanism in (None, "none"):
        raise ConfigError("algorithm", name, "is not private: nothing to audit")
    return algo


def whole_run(name, epsilon, delta=0.01, means=C3, runs=2000, seed=0, budget=10**8,
              scale_factor=1.0, plan=None, replays=record_replay.REPLAYS):
    """Record–replay audit of ``runs`` runs of the real engine (:mod:`bandsim.bai.wholerun`).

    Parameters
    ----------
    name : str
    epsilon, delta : float
    means : sequence of float
        Bernoulli instance (default C3, K = 5).
    runs, seed : int
    budget : int
        T_max of the plan (the recorder's capacity follows it).
    scale_factor : float
        Multiplies the noise scale of the plan (1: as declared; a negative control
        gives 0.8).
    plan : BAIPlan or TopTwoPlan, optional
        The plan to run (default the declaration's).
    replays : int
        Runs replayed on neighbours.

    Returns
    -------
    dict
        :func:`bandsim.bai.wholerun.audit`'s, with ``algorithm``, ``epsilon``, ``seconds``.
    """
    t0 = time.perf_counter()
    algo = _private(name)
    prm = algo.resolve({"epsilon": epsilon, "delta": delta}, budget)
    plan = algo.plan(prm, len(means), budget) if plan is None else plan
    if scale_factor != 1.0:  # a negative control: scale the plan's noise table
        plan.tables.fpar[...] *= scale_factor
    r = record_replay.audit(plan, means, prm["epsilon"], runs=runs, seed=seed, replays=replays)
    return dict(algorithm=name, epsilon=prm["epsilon"], **r,
                seconds=round(time.perf_counter() - t0, 2))


def cmd(args, console):
    """``bandsim audit ALGO`` for fixed-confidence algorithms; exit 0 PASS, 1 FAIL, 2 otherwise.

    Parameters
    ----------
    args : argparse.Namespace
        ``algorithm``, ``epsilon`` (list), ``delta``, ``whole_run``, ``sampled``, ``draws``,
        ``seed``, ``json``.
    console : rich.console.Console
        Unused (verdicts go to standard output).

    Returns
    -------
    int
    """
    import json

    for dest, flag in REFUSED:
        v = getattr(args, dest, None)
        if v not in (None, False):
            raise ConfigError(dest.replace("_", "-"), v, f"the audits of a best-arm "
                                                         f"identification algorithm take no {flag} "
                                                         "(its runs stop at τ ≤ T_max)")
    if args.whole_run and args.sampled:
        raise ConfigError("sampled", True, "--sampled and --whole-run are two audit modes: "
                                           "give one")
    if getattr(args, "draws", None) is not None and not args.sampled:
        raise ConfigError("draws", args.draws, "needs --sampled")
    draws = check_int("draws", 10**6 if getattr(args, "draws", None) is None else args.draws,
                      1000, 10**9)
    names = [n.strip() for n in args.algorithm.split(",") if n.strip()]
    eps = args.epsilon or [0.5]
    delta = getattr(args, "delta", None) or 0.01
    out, seen = [], set()
    for name in names:
        for e in eps:
            if args.whole_run:
                r = whole_run(name, e, delta, seed=args.seed or 0)
                seen.add({"PASS": 0, "FAIL": 1}.get(r["verdict"], 2))
                out.append(r)
                if not args.json:
                    print(f"{name} ε={e:g}: whole-run (record–replay) {r['verdict']}: "
                          f"{r['releases']:,} releases of {r['runs']} runs ({r['seconds']} s), "
                          f"scale as declared {r['scale_ok']}, one episode sum per user "
                          f"{r['blocks_ok']}, replays unchanged {r['replay_ok']} (ε of a "
                          f"replayed run ≤ {r['epsilon_replay']:.4g}), all releases KS p = "
                          f"{r['ks_pvalue']:.3g}")
                    for line in r["failures"]:
                        print(f"  {line}")
                    for line in r["thin"]:
                        print(f"  under {record_replay.laws.FLOOR:,} draws: {line}")
                    print(f"  power: {r['power_text']}")
            elif args.sampled:
                for rep in sampled(name, e, delta, draws=draws,
                                   seed=args.seed or 0):
                    seen.add(rep.code)
                    out.append({**rep.to_dict(), "epsilon": e})
                    if not args.json:
                        for c in rep.checks:
                            print(f"  {c.path:<20} {c.input:<8} G = {c.statistic:10.4g} on "
                                  f"{c.cells:>6,} cells, p = {c.p_value:.3g}")
                        for b in rep.bounds:
                            print(f"  ε_lb = {b.epsilon_lb:.4g} (estimate {b.estimate:.4g})")
                        print(f"{name} ε={e:g} sampled (release primitive): "
                              f"{rep.verdict()} ({rep.seconds:.1f} s)")
            else:
                for rep in exact(name, e, delta):
                    seen.add(0 if rep.passed else 1)
                    out.append(dict(algorithm=name, epsilon=e, verdict=rep.verdict(),
                                    params=rep.params, seconds=rep.seconds))
                    if not args.json:
                        print(f"{name} ε={e:g} {rep.params['noise']}: {rep.verdict()}")
    if args.json:
        print(json.dumps(json_safe(out if len(out) > 1 else out[0]), indent=2))
    return 1 if 1 in seen else 2 if 2 in seen else 0


__all__ = ["ENGINES", "audit_text", "cmd", "exact", "has_exact", "plan_scales", "sampled",
           "whole_run"]
