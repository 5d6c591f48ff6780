"""Privacy audits of the fixed-confidence algorithms: exact per release, and recorded runs.

``bandsim audit ALGO`` for a fixed-confidence algorithm (``dp-se-bai``):

exact
    Every Laplace release its plan can make (one per active arm per epoch, on
    the epoch sum of rewards in [0, 1], sensitivity 1) is audited exactly by
    :func:`bandsim.privacy.audit.audit_laplace` at the scale the kernel reads
    (``fpar[0]`` of the plan's tables): ε-DP iff that scale is ≥ 1/ε.
``--whole-run``
    Runs of the real engine are recorded through the release primitive
    (:mod:`kernels.record`) and checked: (a) every release is a Laplace
    release at the scale declared for it (1/ε on a sum), (b) the recorded
    blocks of pulls sum to at most τ in every run (no reward enters two
    releases: one epoch or episode sum per user, the participation the privacy
    proof uses; for DP-SE every pull is released, tests/test_bai.py), and (c) the
    released noise (value − true sum)/(1/ε) follows Laplace(1) (Kolmogorov–
    Smirnov at significance 10⁻⁶ over every release of the runs; the stated
    power is what a 20 % scale deficit gives at that count). This is a check
    of what the engine records and draws, not the record–replay audit of the
    regret engines (:mod:`bandsim.wholerun`), which does not read stopping-time
    engines yet.

A FAIL is never ranked (the BAI board, :mod:`bandsim.studies.bai_board`). ε-DP here is
Sajed & Sheffet's (ICML 2019) DP-SE guarantee, as used for fixed confidence by
Azize, Jourdan, Al Marjani & Basu (NeurIPS 2023).
"""
import numpy as np

from ..errors import ConfigError
from ..kernels import codes, record
from ..privacy.audit import audit_laplace
from ..results import json_safe
from . import declarations

#: Significance of the Kolmogorov–Smirnov test of the recorded noise.
ALPHA = 1e-6


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
    if algo.engine == "bai-elimination":
        return f"bandsim audit {algo.name} [--whole-run]"
    return f"bandsim audit {algo.name} --whole-run (recorded releases; no exact per-plan audit)"


def has_exact(algo):
    """Whether the exact per-release audit reads this algorithm's plan (elimination tables)."""
    return algo.engine == "bai-elimination" and algo.mechanism not in (None, "none")


def exact(name, epsilon, delta=0.01, budget=10**8):
    """Exact audit of every release scale the plan of ``name`` can use.

    Parameters
    ----------
    name : str
        A fixed-confidence algorithm with Laplace releases.
    epsilon, delta : float
        ε and the risk δ.
    budget : int
        T_max of the plan.

    Returns
    -------
    list of bandsim.privacy.report.AuditReport
        One per distinct noise scale of the plan's tables (the epoch size does not
        change the privacy of a sum of sensitivity 1).
    """
    algo = _private(name)
    if not has_exact(algo):
        raise ConfigError("algorithm", name, "has no exact per-plan audit (its engine is not the "
                                             "elimination engine): use --whole-run")
    prm = algo.resolve({"epsilon": epsilon, "delta": delta}, budget)
    plan = algo.plan(prm, 5, budget)
    t = plan.tables
    seen, out = set(), []
    for s in range(t.batch.shape[0]):
        for k in range(2, t.batch.shape[1]):
            n = int(t.batch[s, k])
            if n <= 0 or float(t.fpar[s, k, 0]) in seen:  # n does not change the privacy
                continue
            seen.add(float(t.fpar[s, k, 0]))
            out.append(audit_laplace(float(t.fpar[s, k, 0]), prm["epsilon"], n, algorithm=name))
    return out


def _private(name):
    algo = declarations.get(name)
    if algo.mechanism in (None, "none"):
        raise ConfigError("algorithm", name, "is not private: nothing to audit")
    return algo


def whole_run(name, epsilon, delta=0.01, means=(0.75, 0.53125, 0.375, 0.28125, 0.25),
              runs=2000, seed=0, budget=10**8, scale_factor=1.0):
    """Record ``runs`` runs of the real engine and check their releases (module docstring).

    Parameters
    ----------
    name : str
    epsilon, delta : float
    means : sequence of float
        Bernoulli instance (default C3, K = 5).
    runs : int
    seed : int
    budget : int
    scale_factor : float
        Multiplies the noise scale of the plan (1: as declared; a negative control
        gives 0.8).

    Returns
    -------
    dict
        ``verdict`` (PASS/FAIL), ``releases``, ``scale_ok``, ``blocks_ok``,
        ``ks_pvalue``, ``power`` (probability that a 20 % scale deficit is caught
        at this count, by simulation of the same test), ``runs``.
    """
    from scipy import stats

    algo = _private(name)
    prm = algo.resolve({"epsilon": epsilon, "delta": delta}, budget)
    plan = algo.plan(prm, len(means), budget)
    if scale_factor != 1.0:  # a negative control: only the elimination tables can be scaled
        if not has_exact(algo):
            raise ConfigError("scale_factor", scale_factor, f"{name}'s plan has no noise table")
        plan.tables.fpar[...] *= scale_factor
    rng = np.random.default_rng(seed)
    noise, scale_ok, blocks_ok = [], True, True
    rpar = np.asarray(means, float)[None, :, None].copy()
    declared = 1 / prm["epsilon"]
    for _ in range(runs):
        rec = record.recorder(codes.RECORD, 4096)
        tau, arm, st = np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.bool_)
        plan.run_shard(rng, 0, rpar, tau, arm, st, rec)
        n = int(rec.counts[1])
        rel, val = rec.rel[:n], rec.val[:n]
        scale_ok &= bool((rel[:, record.REL_LAW] == codes.LAW_LAPLACE).all()
                         and np.allclose(val[:, record.VAL_SCALE], declared, rtol=1e-12))
        blocks_ok &= bool(rel[:, record.REL_N].sum() <= tau[0])  # no reward released twice
        noise.append((val[:, record.VAL_VALUE] - val[:, record.VAL_TRUE]) / declared)
    z = np.concatenate(noise)
    p = float(stats.kstest(z, stats.laplace.cdf).pvalue)
    ctl = np.random.default_rng(seed + 1)
    power = float(np.mean([stats.kstest(ctl.laplace(0, 0.8, z.size), stats.laplace.cdf).pvalue
                           < ALPHA for _ in range(50)]))
    ok = scale_ok and blocks_ok and p >= ALPHA
    return dict(algorithm=name, verdict="PASS" if ok else "FAIL", epsilon=prm["epsilon"],
                runs=runs, releases=int(z.size), scale_ok=scale_ok, blocks_ok=blocks_ok,
                ks_pvalue=p, alpha=ALPHA, power=power)


def cmd(args, console):
    """``bandsim audit ALGO`` for fixed-confidence algorithms; exit 0 PASS, 1 FAIL.

    Parameters
    ----------
    args : argparse.Namespace
        ``algorithm``, ``epsilon`` (list), ``delta``, ``whole_run``, ``seed``, ``json``.
    console : rich.console.Console
        Unused (verdicts go to standard output).

    Returns
    -------
    int
    """
    import json

    names = [n.strip() for n in args.algorithm.split(",") if n.strip()]
    eps = args.epsilon or [0.5]
    delta = getattr(args, "delta", None) or 0.01
    out, failed = [], False
    for name in names:
        for e in eps:
            if args.whole_run:
                r = whole_run(name, e, delta, seed=args.seed or 0)
                failed |= r["verdict"] != "PASS"
                out.append(r)
                if not args.json:
                    print(f"{name} ε={e:g}: whole-run (recorded releases) {r['verdict']}: "
                          f"{r['releases']:,} releases of {r['runs']} runs, scale as "
                          f"declared {r['scale_ok']}, blocks sum to τ {r['blocks_ok']}, "
                          f"KS p = {r['ks_pvalue']:.3g} (α = {ALPHA:g}; power against "
                          f"a 20 % scale deficit {r['power']:.0%})")
            else:
                for rep in exact(name, e, delta):
                    failed |= not rep.passed
                    out.append(dict(algorithm=name, epsilon=e, verdict=rep.verdict(),
                                    params=rep.params))
                    if not args.json:
                        print(f"{name} ε={e:g} {rep.params['noise']}: {rep.verdict()}")
    if args.json:
        print(json.dumps(json_safe(out if len(out) > 1 else out[0]), indent=2))
    return 1 if failed else 0


__all__ = ["audit_text", "cmd", "exact", "whole_run"]
