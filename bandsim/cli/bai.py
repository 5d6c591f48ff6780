"""``bandsim bai``: fixed-confidence best-arm identification, one summary table.

Simulates a fixed-confidence algorithm (``dp-se-bai``, ``se-bai``) and prints
the stopping time τ (mean ± 95 % CI over the stopped runs, the censored count
beside it, median), the error rate with its Clopper–Pearson interval, the
lower bound max(T*_KL, T*_TV/ε)·ln(1/(3δ)) of Azize's thesis (Cor. 4.25) and
E[τ]/bound. ``--out`` writes the runs as Parquet. Parameter flags come from
the algorithms' declarations.
"""
import json
import time

from ..bai import declarations, simulate_bai
from ..results import json_safe
from .common import floats, one_int, plain, wide_console


def add_parser(sub):
    """Register ``bandsim bai``; its parameter flags come from the declarations.

    Parameters
    ----------
    sub : argparse._SubParsersAction

    Returns
    -------
    argparse.ArgumentParser
    """
    p = sub.add_parser("bai", help="fixed-confidence best-arm identification (stopping times)")
    p.add_argument("algorithm", help=f"one of {', '.join(declarations.ALGORITHMS)}")
    p.add_argument("--instance", default=None, help="C1-C4")
    p.add_argument("--means", type=floats, default=None, help="explicit means, e.g. 0.6,0.5")
    p.add_argument("--arms", type=one_int, default=None, help="K (with --instance; default 5)")
    p.add_argument("--budget", type=one_int, default=10**8,
                   help="T_max: a run not stopped by then is censored (default 1e8)")
    p.add_argument("--runs", type=one_int, default=1000, help="independent runs (default 1000)")
    p.add_argument("--seed", type=one_int, default=None, help="root seed (default: drawn)")
    p.add_argument("--threads", type=one_int, default=None, help="worker threads")
    seen = set()
    for a in declarations.ALGORITHMS.values():
        for prm in a.params:
            if prm.name not in seen:
                seen.add(prm.name)
                p.add_argument(prm.flag, dest=prm.name, type=str if prm.choices else float,
                               default=None, help=f"{prm.help} ({prm.range_text()})")
    p.add_argument("--out", default=None, help="write the runs as Parquet")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p


def summary_table(s):
    """A rich table of one summary.

    Parameters
    ----------
    s : dict
        :meth:`bandsim.bai.BAIResult.summary` plus ``seconds``.

    Returns
    -------
    rich.table.Table
    """
    from rich.table import Table

    t = Table(title="stopping time τ (mean ± 95% CI over stopped runs), error rate "
                    "(Clopper–Pearson 95%)")
    for c in ("algorithm", "instance", "ε", "δ", "runs", "censored", "E[τ]", "median",
              "errors", "error CI", "lower bound", "E[τ]/bound", "seconds"):
        t.add_column(c, justify="left" if c in ("algorithm", "instance") else "right")
    cens = s["censored"]
    mean = f"{s['tau_mean']:,.0f} ± {s['tau_ci95']:,.0f}" if s["stopped"] else "-"
    if cens:
        mean += f" (≥ {s['tau_mean_lower']:,.0f} over all)"
    ratio = f"{'≥ ' if cens else ''}{s['ratio']:.3g}" if s["ratio"] == s["ratio"] else "-"
    bound = f"{s['lower_bound']:,.0f}" if s["lower_bound"] == s["lower_bound"] else "- (δ ≥ 1/3)"
    med = "-" if s["tau_median"] != s["tau_median"] else f"{s['tau_median']:,.0f}"
    eps = "-" if s["epsilon"] is None else f"{s['epsilon']:g}"
    t.add_row(plain(s["algorithm"]), plain(s["instance"]), eps, f"{s['delta']:g}",
              f"{s['runs']:,}", f"{cens:,}", mean, med, f"{s['errors']}/{s['stopped']}",
              f"[{s['error_ci95'][0]:.3g}, {s['error_ci95'][1]:.3g}]" if s["stopped"] else "-",
              bound, ratio, f"{s['seconds']:.2f}")
    if cens:
        t.caption = (f"{cens} run(s) not stopped by T_max = {s['budget']:,}: excluded from the "
                     "mean, counted as +∞ in the median; '≥' uses min(τ, T_max) over all runs")
    return t


def cmd_bai(args, console):
    """Run ``bandsim bai``.

    Parameters
    ----------
    args : argparse.Namespace
    console : rich.console.Console

    Returns
    -------
    int
        0 on success (a ConfigError becomes one line and exit 2 in ``main``).
    """
    names = {prm.name for a in declarations.ALGORITHMS.values() for prm in a.params}
    params = {p: getattr(args, p) for p in sorted(names) if getattr(args, p, None) is not None}
    arms = args.arms if args.arms is not None or args.instance is None else 5
    start = time.perf_counter()
    res = simulate_bai(args.algorithm, instance=args.instance, arms=arms, means=args.means,
                       budget=args.budget, runs=args.runs, seed=args.seed,
                       threads=args.threads, **params)
    s = dict(res.summary(), seconds=time.perf_counter() - start, seed=res.config["seed"])
    if args.out:
        res.to_parquet(args.out)
    if args.json:
        print(json.dumps(json_safe(s), indent=2))
    else:
        wide_console().print(summary_table(s))
    return 0
