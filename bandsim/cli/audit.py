"""``bandsim audit``: exact per-batch privacy audits and returning-user accounting.

Three modes::

    bandsim audit ALGO --epsilon 0.5 --batch-size 1024 [--delta D] [--scale s] [--p p]
        claimed vs exact privacy of one batch (comma lists and ALGO=all give a grid
        and a summary table; --full shows every Rényi order)
    bandsim audit ALGO --epsilon 0.5 --sampled [--batch-size 16] [--draws 1e6] [--seed 0]
        run the real batched and per-user kernels on neighbouring inputs: their
        draws against the audited law (G-test) and an empirical lower bound on ε
    bandsim audit ALGO --epsilon 0.5 --batch-size 1024 --returning B --target-delta D
        total (ε, δ) of a user in B batches, by every composition method
    bandsim audit [ALGO] --returning B --target-epsilon E --target-delta D [--batch-size n]
        the per-batch ε (and noise at batch size n) that meets the total (E, D)
    bandsim audit ALGO --whole-run [--epsilon E] [--horizon 1e5] [--seed 0]
        record every release of one run of the real engine, replay it on neighbours
        with the releases frozen: decisions, sensitivities, scales and the composed ε
        of the whole run (bandsim.cli.wholerun)

Exit status: 0 PASS, 1 if an audit FAILs (an exact figure, or the sampled
lower bound, exceeds its claim; or the kernels do not draw the audited law; or,
with --returning, a total the accountant reports differs from an independent
dp-accounting composition of the declared releases, bandsim.privacy.accountcheck),
2 on bad input or when a batch cannot be audited (too large, unsupported),
with one line saying why.
"""
import itertools
import json
import math
import sys


from ..bai import audit as bai_audit, declarations as bai_declarations
from ..errors import ConfigError, check_int
from ..privacy import accountcheck
from ..privacy.accountant import accountable, calibrate, compose
from ..privacy.audit import audit, auditable
from ..privacy.pmf import PmfTooLarge
from ..privacy.sampled import DRAWS, sampled, sampler_status
from ..registry import algorithms, get_algorithm, get_mechanism
from ..runner import MAX_HORIZON
from .common import command, floats, ints, one_int, registers, strict_json, wide_console
from .run import add_param_flags
from .wholerun import whole_run


def _print_json(x):
    """Strict JSON (null for every non-finite number, never NaN or Infinity)."""
    print(json.dumps(strict_json(x), indent=2, allow_nan=False, default=_plain,
                     ensure_ascii=False))


def _plain(x):
    import numpy as np

    if isinstance(x, np.generic):
        return strict_json(x.item())
    raise TypeError(f"{type(x).__name__} is not JSON serializable")


def _grid(args, default_n, known=None):
    """The audited algorithms (and those skipped for want of δ) and batch sizes.

    Raises
    ------
    ConfigError
        An unknown algorithm, or ``--batch-size`` given with no value.
    """
    names, skipped = _algorithms(args.algorithm, True, args.delta, known, args.sampled)
    if args.batch_size == []:
        raise ConfigError("batch_size", "", f"give at least one value, e.g. --batch-size "
                                            f"{default_n}")
    return names, skipped, args.batch_size or [default_n]


def _sampled(args, console):
    """``--sampled``: the sampled audit of the real kernels, one line per batch."""
    names, skipped, sizes = _grid(args, 16)
    reports = []
    out = _out()
    for name, eps, n in itertools.product(names, args.epsilon, sizes):
        draws = DRAWS if args.draws is None else args.draws  # --draws 0 is refused, not 1e6
        r = sampled(name, eps, n, draws=draws, seed=args.seed, delta=args.delta,
                    scale=args.scale, p=args.p, horizon=args.horizon)
        reports.append(r)
        if args.json:
            continue
        for c in r.checks:
            out.print(f"  {c.path:<25} {c.input:<22} G = {c.statistic:10.4g} on {c.cells:>6,} "
                      f"cells, p = {c.p_value:.3g}{'' if c.passed else '  < α: FAIL'}",
                      highlight=False)
        for b in r.bounds:
            out.print(f"  {b.path:<25} ε_lb = {b.epsilon_lb:.4g} (estimate {b.estimate:.4g}) "
                      f"on {b.event}: {b.counts[0]:,} of {b.draws // 2:,} vs {b.counts[1]:,} of "
                      f"{(b.draws1 or b.draws) // 2:,}",
                      highlight=False)
        for note in r.notes:
            out.print(f"  note: {note}", highlight=False)
        if r.claim and not r.reason:
            out.print(f"  claim: {r.claim['how']}", highlight=False)
        style = {0: "green", 1: "bold red", 2: "yellow"}[r.code]
        out.print(f"[{style}]{r.verdict()}[/]  ({r.seconds:.1f} s)", highlight=False)
    if args.json:
        _print_json([r.to_dict() for r in reports] if len(reports) > 1 else reports[0].to_dict())
    if skipped and not args.json:
        out.print(f"note: {', '.join(skipped)} skipped (they need the per-batch --delta)")
    codes = {r.code for r in reports}
    return 1 if 1 in codes else 2 if 2 in codes else 0


@registers
def add_parser(sub):
    """Register the ``audit`` subcommand on the top-level subparsers."""
    a = sub.add_parser("audit", help="exact privacy of one batch; accounting for returning users",
                       description=__doc__)
    a.add_argument("algorithm", nargs="?", default="all",
                   help=f"algorithm(s), comma-separated, or 'all' ({', '.join(auditable())})")
    a.add_argument("--epsilon", type=floats, default=None,
                   help="the algorithm's ε per batch; comma list allowed")
    a.add_argument("--batch-size", dest="batch_size", type=ints, default=None,
                   help="users n in the batch; comma list allowed (default 1024)")

    add_param_flags(a, ("delta", "scale", "p"))
    a.add_argument("--horizon", type=one_int, default=None,
                   help="T for horizon-dependent defaults (default 1e7; --whole-run: T of the "
                        "audited runs, default 1e5)")
    a.add_argument("--returning", type=one_int, default=None,
                   help="B: batches a returning user takes part in")
    a.add_argument("--target-epsilon", dest="target_epsilon", type=float, default=None,
                   help="total ε to meet over B batches (calibration)")
    a.add_argument("--target-delta", dest="target_delta", type=float, default=None,
                   help="total δ over B batches")
    a.add_argument("--exact", action="store_true",
                   help="calibration: also invert the compositions of the audited views")
    a.add_argument("--full", action="store_true", help="show every Rényi order and every table")
    a.add_argument("--sampled", action="store_true",
                   help="sampled audit of the real kernels (default --batch-size 16)")
    a.add_argument("--draws", type=one_int, default=None,
                   help="--sampled: draws per path and input (default 1e6)")
    a.add_argument("--seed", type=one_int, default=0,
                   help="--sampled: root seed; --whole-run: seed of the runs (default 0)")
    a.add_argument("--whole-run", dest="whole_run", action="store_true",
                   help="record and replay whole runs of the real engine (default T = 1e5)")
    a.add_argument("--json", action="store_true", help="print JSON")
    return a


def _algorithms(text, need_delta, delta, known=None, sampled=False):
    known = auditable() if known is None else known
    if sampled:  # every private algorithm: the report says "not auditable" where it is
        known = [a for a in algorithms() if sampler_status(a) != "not private"]
    names = list(known) if text == "all" else [x.strip() for x in text.split(",") if x]
    for x in names:
        if x not in known:
            raise ConfigError("algorithm", x, f"must be one of {', '.join(known)} or 'all'")
    skipped = []
    if need_delta and delta is None and text == "all":
        skipped = [x for x in names
                   if "delta" in get_mechanism(get_algorithm(x).mechanism).takes]
        names = [x for x in names if x not in skipped]
    return names, skipped


@command(returns="0 if every audit passes, 1 if one fails, 2 if a batch cannot be audited")
def cmd_audit(args, console):
    """Run ``bandsim audit`` (see the module docstring)."""
    if any(n.strip() in bai_declarations.ALGORITHMS for n in args.algorithm.split(",")):
        return bai_audit.cmd(args, console)  # stopping-time engines: their own checks
    whole = getattr(args, "whole_run", False)
    default = 10**5 if whole else 10**7
    args.horizon = check_int("horizon", default if args.horizon is None else args.horizon, 2,
                             MAX_HORIZON)
    if whole:
        args.seed = check_int("seed", args.seed, 0, 2**63 - 1)
        return whole_run(args)

    if args.returning is None:
        for flag in ("target_epsilon", "target_delta"):
            if getattr(args, flag) is not None:
                raise ConfigError(flag, getattr(args, flag), "needs --returning B")
        if args.epsilon is None:
            raise ConfigError("epsilon", None, "required (the per-batch ε to audit)")
        if not args.epsilon:
            raise ConfigError("epsilon", "", "give at least one value, e.g. --epsilon 0.5")
        if args.sampled:
            return _sampled(args, console)
        if args.draws is not None:
            raise ConfigError("draws", args.draws, "needs --sampled")
        return _audit(args, console)
    if args.sampled:
        raise ConfigError("sampled", True, "audits one batch; it does not take --returning")
    if args.target_delta is None:
        raise ConfigError("target_delta", None, "required with --returning (total δ)")
    if args.target_epsilon is not None:
        return _calibrate(args, console)
    if args.epsilon is None:
        raise ConfigError("epsilon", None,
                          "give --epsilon (compose it B times) or --target-epsilon (calibrate)")
    return _compose(args, console)


def _out():
    return wide_console()


def _audit(args, console):
    from rich.table import Table

    names, skipped, sizes = _grid(args, 1024)
    reports = []
    for name, eps, n in itertools.product(names, args.epsilon, sizes):
        try:
            reports.append(audit(name, eps, n, delta=args.delta, scale=args.scale, p=args.p,
                                 horizon=args.horizon))
        except PmfTooLarge as e:
            _out().print(f"cannot audit: {name} at ε = {eps:g}, n = {n:,}: the exact law is too "
                         f"large to tabulate ({e}); audit another --batch-size or --scale",
                         highlight=False)
            return 2
    if args.json:
        _print_json([r.to_dict() for r in reports] if len(reports) > 1 else reports[0].to_dict())
        return 1 if any(r.failures for r in reports) else 0
    out = _out()
    if len(reports) == 1 or args.full:
        for r in reports:
            out.print(r.table(full=args.full))
            out.print(r.view)
            out.print(f"parameters: {r.params_line()}")
            for note in r.notes:
                out.print(f"note: {note}")
            style = "green" if r.passed else "bold red" if r.failures else "yellow"
            out.print(f"[{style}]{r.verdict()}[/]  ({r.seconds:.2f} s)")
    if len(reports) > 1:
        t = Table(title="exact privacy of one batch: claimed vs exact")
        for c in ("algorithm", "ε", "n", "g", "m", "quantity", "claimed", "exact", "slack",
                  "max exact/claimed", "verdict", "s"):
            t.add_column(c, justify="left" if c in ("algorithm", "quantity", "verdict")
                         else "right")
        for r in reports:
            h = r.rows[r.headline]
            verdict = ("[green]PASS[/]" if r.passed else "[bold red]FAIL[/]" if r.failures
                       else "[yellow]?[/]")
            t.add_row(r.algorithm, f"{r.params['epsilon']:g}", f"{r.params['n']:,}",
                      f"{r.params['g']:,}" if "g" in r.params else "",
                      f"{r.params['m']:,}" if "m" in r.params else "", h.short or h.quantity,
                      f"{h.claimed:.6g}", f"{h.exact:.6g}", f"{h.slack:+.3g}",
                      f"{r.worst_ratio:.6g}", verdict, f"{r.seconds:.2f}")
        out.print(t)
    if skipped:
        out.print(f"note: {', '.join(skipped)} skipped (they need the per-batch --delta)")
    return 1 if any(r.failures for r in reports) else 0


def _compose(args, console):
    from rich.table import Table

    names, skipped, sizes = _grid(args, 1024, accountable())
    rows, bad = [], []
    for name, eps, n in itertools.product(names, args.epsilon, sizes):
        kw = dict(batch_delta=args.delta, scale=args.scale, p=args.p, horizon=args.horizon)
        comps = compose(name, eps, n, args.returning, args.target_delta, **kw)
        bad += accountcheck.check(name, comps, eps, n, args.returning, args.target_delta, **kw)
        for c in comps:
            rows.append(dict(algorithm=name, epsilon_per_batch=eps, n=n, method=c.method,
                             basis=c.basis, total_epsilon=c.epsilon, total_delta=c.delta,
                             note=c.note))
    if args.json:
        _print_json(rows)
        return _checked(bad, len(rows), json=True)
    t = Table(title=f"total privacy of a user in B = {args.returning} batches "
                    f"(total δ = {args.target_delta:g})")
    for c in ("algorithm", "ε/batch", "n", "method", "basis", "total ε", "total δ", "note"):
        t.add_column(c, justify="right" if c in ("ε/batch", "n", "total ε", "total δ")
                     else "left")
    for r in rows:
        t.add_row(r["algorithm"], f"{r['epsilon_per_batch']:g}", f"{r['n']:,}", r["method"],
                  r["basis"], _num(r["total_epsilon"]), f"{r['total_delta']:.3g}", r["note"])
    _out().print(t)
    if skipped:
        _out().print(f"note: {', '.join(skipped)} skipped (they need the per-batch --delta)")
    return _checked(bad, len(rows))


def _checked(bad, rows, json=False):
    """Print the accountant check's verdict (one line per mismatch); the exit status."""
    from rich.markup import escape

    for m in bad:
        if json:  # stdout stays JSON
            print(m.line(), file=sys.stderr)
        else:
            _out().print(f"[bold red]{escape(m.line())}[/]", highlight=False)
    if not bad and not json:
        _out().print("[green]PASS[/] accountant vs dp-accounting: every row equals an "
                     "independent dp-accounting composition of the declaration (its releases "
                     f"or its batch), B times ({rows} rows; bandsim.privacy.accountcheck)",
                     highlight=False)
    return 1 if bad else 0


def _num(x):
    return "inf" if not math.isfinite(x) else f"{x:.6g}"


def _calibrate(args, console):
    from rich.table import Table

    names, _ = _algorithms(args.algorithm, False, None, accountable())
    n = (args.batch_size or [1024])[0]
    rows, bad = [], []
    for name in names:
        kw = dict(scale=args.scale, p=args.p, horizon=args.horizon, exact=args.exact)
        cal = calibrate(name, args.returning, args.target_epsilon, args.target_delta, n, **kw)
        bad += accountcheck.check_calibration(name, cal, args.returning, args.target_epsilon,
                                              args.target_delta, n, **kw)
        rows += [dict(algorithm=name, **c.to_dict()) for c in cal]
    if args.json:
        _print_json(rows)
        return _checked(bad, len(rows), json=True)
    t = Table(title=f"per-batch privacy for a total ({args.target_epsilon:g}, "
                    f"{args.target_delta:g})-DP over B = {args.returning} batches "
                    f"(noise at batch size n = {n:,})")
    for c in ("algorithm", "method", "ε per batch", "δ per batch", "total ε", "noise",
              "Var noise", "g", "m"):
        t.add_column(c, justify="left" if c in ("algorithm", "method", "noise") else "right")
    for r in rows:
        nz = r["noise"]
        t.add_row(r["algorithm"], r["method"], f"{r['epsilon_per_batch']:.6g}",
                  f"{r['delta_per_batch']:.3g}" if r["delta_per_batch"] else "0",
                  _num(r["total_epsilon"]), str(nz.get("noise", "")),
                  f"{nz.get('noise_variance', math.nan):.4g}",
                  f"{nz['g']:,}" if "g" in nz else "", f"{nz['m']:,}" if "m" in nz else "")
    _out().print(t)
    return _checked(bad, len(rows))
