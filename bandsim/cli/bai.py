"""Fixed-confidence best-arm identification on the command line: one summary table.

``bandsim run ALGO …`` with a fixed-confidence algorithm (``bandsim list``,
task "identification") and ``bandsim bai ALGO …`` simulate it and print the
stopping time τ (mean ± 95 % CI over the stopped runs, the censored count
beside it, median), the error rate with its Clopper–Pearson interval, the
lower bound max(T*_KL, T*_TV/ε)·ln(1/(3δ)) of Azize's PhD thesis (2024,
Thm 4.24 / Cor. 4.25), the bound T*_ε·ln(1/(3δ)) of Jourdan & Azize
(NeurIPS 2025) and E[τ]/bound. ``--epsilon`` and ``--delta`` take comma
lists (every combination is simulated: a sweep over ε and δ); ``--out``
writes the runs as Parquet (a directory when several configurations run),
which ``bandsim results`` and ``bandsim plot`` read.

δ: these algorithms are pure ε-DP (no δ of (ε, δ)-DP), and δ is the risk of
fixed confidence, P(stop with a wrong arm) ≤ δ — the name the identification
literature gives it. It is their declared confidence parameter, so
``--confidence`` sets it too. A command line that names both a regret and an
identification algorithm is refused (``--delta`` would mean two things).
"""
import itertools
import json
import sys
import time
from pathlib import Path

from ..bai import BAIResult, declarations, simulate_bai
from ..studies.bai_study import collect, plot, summary_row
from ..errors import ConfigError
from ..registry import all_params
from ..results import json_safe
from ..studies.store import exact
from .common import csv_text, floats, one_int, plain, wide_console

#: Best-arm identification's budget T_max when ``--budget`` is not given.
BUDGET = 10**8


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
    p.add_argument("--budget", type=one_int, default=BUDGET,
                   help="T_max: a run not stopped by then is censored (default 1e8)")
    p.add_argument("--runs", type=one_int, default=1000, help="independent runs (default 1000)")
    p.add_argument("--seed", type=one_int, default=None, help="root seed (default: drawn)")
    p.add_argument("--threads", type=one_int, default=None, help="worker threads")
    add_param_flags(p)
    p.add_argument("--confidence", type=float, default=None,
                   help="the risk δ under its role's name (same as --delta)")
    p.add_argument("--out", default=None, help="write the runs as Parquet")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p


#: Parameters whose flag takes a comma list (swept).
SWEPT = ("epsilon", "delta")


def add_param_flags(parser, skip=()):
    """One flag per parameter the fixed-confidence declarations take (not in ``skip``).

    Parameters
    ----------
    parser : argparse.ArgumentParser
    skip : collection of str
        Names that already have a flag (``bandsim run``'s regret flags).
    """
    seen = set(skip)
    for a in declarations.ALGORITHMS.values():
        for prm in a.params:
            if prm.name in seen:
                continue
            seen.add(prm.name)
            kind = (floats if prm.name in SWEPT else one_int if prm.integer
                    else str if prm.boolean or prm.choices else float)
            parser.add_argument(prm.flag, dest=prm.name, type=kind, default=None,
                                help=f"{prm.help} ({prm.range_text()})"
                                     + ("; comma list allowed" if prm.name in SWEPT else ""))


def is_identification(names):
    """Whether ``bandsim run``'s ALGO names fixed-confidence algorithms.

    Parameters
    ----------
    names : str
        The comma list given on the command line.

    Returns
    -------
    bool
        True when every name is a fixed-confidence declaration, False when none is.

    Raises
    ------
    ConfigError
        The list mixes both tasks (one line naming ``algorithm``).
    """
    got = [n.strip() for n in names.split(",") if n.strip()]
    bai = [n for n in got if n in declarations.ALGORITHMS]
    if bai and len(bai) < len(got):
        other = [n for n in got if n not in declarations.ALGORITHMS]
        raise ConfigError("algorithm", names, f"mixes best-arm identification ({', '.join(bai)}) "
                                              f"with regret algorithms ({', '.join(other)}): "
                                              "run them separately")
    return bool(bai)


#: ``bandsim run`` flags that mean nothing to a fixed-confidence run → what to give instead.
_NOT_FOR_BAI = {"horizon": "it runs until it stops: give --budget T_max",
                "checkpoints": "it has no regret curve",
                "instance_file": "give --instance C1-C4 or --means"}


def expand(args):
    """The :func:`~bandsim.bai.simulate_bai` keyword sets a command line asks for.

    Parameters
    ----------
    args : argparse.Namespace
        ``bandsim run`` or ``bandsim bai`` arguments.

    Returns
    -------
    list of dict
        One per combination of algorithm, instance, K, ε and δ.

    Raises
    ------
    ConfigError
        Bad input, one line naming the flag, before any work.
    """
    algos = [declarations.get(n.strip()) for n in args.algorithm.split(",") if n.strip()]
    for name, why in _NOT_FOR_BAI.items():
        if getattr(args, name, None) is not None:
            raise ConfigError(name, getattr(args, name), f"not for best-arm identification ({why})")
    if getattr(args, "rewards", "bernoulli") != "bernoulli":
        raise ConfigError("rewards", args.rewards, "best-arm identification simulates bernoulli "
                                                   "rewards")
    names = {p.name for a in algos for p in a.params}
    for flag in sorted(set(all_params()) | {p.name for a in declarations.ALGORITHMS.values()
                                            for p in a.params}):
        if getattr(args, flag, None) is not None and flag not in names:
            raise ConfigError(flag, getattr(args, flag), f"not a parameter of "
                              f"{', '.join(a.name for a in algos)}"
                              + (" (non-private)" if flag == "epsilon" else ""))
    extra = {n: getattr(args, n) for n in sorted(names - set(SWEPT))
             if getattr(args, n, None) is not None}
    eps = _values(args, "epsilon")
    delta = _values(args, "delta")
    conf = getattr(args, "confidence", None)
    if conf is not None:
        if delta != [None]:
            raise ConfigError("confidence", conf, "give either --confidence or --delta (the risk "
                                                  "δ of fixed confidence), not both")
        delta = [conf]
    if args.means is not None and args.instance is not None:
        raise ConfigError("means", ",".join(f"{m:g}" for m in args.means),
                          f"give either --means or --instance ({args.instance}), not both")
    instances = [None] if args.means is not None else \
        [i.strip() for i in (args.instance or "").split(",") if i.strip()] or [None]
    arms = args.arms if isinstance(args.arms, list) else [args.arms]
    if args.means is None:
        arms = [5 if k is None else k for k in arms]
    jobs, seen = [], set()
    for algo, inst, k, e, d in itertools.product(algos, instances, arms, eps, delta):
        params = {"delta": d, **{n: v for n, v in extra.items() if algo.param(n)}}
        if algo.param("epsilon"):
            params["epsilon"] = e
        key = (algo.name, inst, k, tuple(sorted(params.items(), key=str)))
        if key in seen:
            continue
        seen.add(key)
        jobs.append(dict(algorithm=algo.name, instance=inst, arms=None if args.means else k,
                         means=args.means, budget=getattr(args, "budget", None) or BUDGET,
                         runs=args.runs, seed=args.seed, threads=args.threads, **params))
    return jobs


def _values(args, name):
    v = getattr(args, name, None)
    if v is None:
        return [None]
    v = v if isinstance(v, list) else [v]
    if not v:
        raise ConfigError(name, "", "give at least one value")
    return v


def out_path(out, job, n_jobs):
    """Where one job's runs go: ``out`` itself, or a file in the directory ``out``.

    Parameters
    ----------
    out : str or None
    job : dict
    n_jobs : int

    Returns
    -------
    pathlib.Path or None
    """
    if out is None:
        return None
    if n_jobs == 1 and not (Path(out).is_dir() or out.endswith("/")):
        return Path(out)
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    name = f"{job['algorithm']}_{job['instance'] or 'means'}_K{job['arms'] or len(job['means'])}"
    if job.get("epsilon") is not None:
        name += f"_eps{exact(job['epsilon'])}"
    if job.get("delta") is not None:  # None: the declaration's default (a plug-in's)
        name += f"_delta{exact(job['delta'])}"
    return d / f"{name}.parquet"


def run_jobs(args, console):
    """Simulate every job of the command line, print one table (or JSON); exit status 0.

    Parameters
    ----------
    args : argparse.Namespace
    console : rich.console.Console

    Returns
    -------
    int
    """
    import secrets

    if args.seed is None:  # one root seed for the whole grid, recorded in every result
        args.seed = secrets.randbits(63)
    jobs = expand(args)
    for job in jobs:  # every configuration is validated before any runs
        algo = declarations.get(job["algorithm"])
        algo.resolve({p.name: job[p.name] for p in algo.params if job.get(p.name) is not None},
                     job["budget"])
    rows = []
    for job in jobs:
        path = out_path(args.out, job, len(jobs))
        start = time.perf_counter()
        res = stored(path, job) if getattr(args, "resume", False) else None
        resumed = res is not None
        if res is None:
            res = simulate_bai(**{k: v for k, v in job.items() if v is not None or k == "seed"})
        seconds = time.perf_counter() - start
        row = summary_row(res)
        row["seconds"] = seconds
        if path is not None:
            if not resumed:
                res.to_parquet(path)
            row["out"] = str(path)
        rows.append(row)
    if args.json:
        print(json.dumps(json_safe(rows if len(rows) > 1 or args.command == "run" else rows[0]),
                         indent=2))
    else:
        wide_console().print(rows_table(rows))
    return 0


def stored(path, job):
    """The result stored at ``path`` if it is the one ``job`` asks for, else None.

    Parameters
    ----------
    path : pathlib.Path or None
    job : dict
        :func:`bandsim.bai.simulate_bai` keywords (runs, budget, seed, parameters).

    Returns
    -------
    BAIResult or None
    """
    if path is None or not path.exists():
        return None
    try:
        res = BAIResult.from_parquet(path)
    except Exception:  # damaged: computed again
        return None
    c = res.config
    same = (c["algorithm"], c["runs"], c["budget"], c["seed"]) == (
        job["algorithm"], job["runs"], job["budget"], job["seed"])
    return res if same and all(c["params"].get(k) == job[k] for k in c["params"]
                               if job.get(k) is not None) else None


#: Keys of a sweep's TOML that a best-arm identification grid takes.
SWEEP_KEYS = ("algorithm", "instance", "arms", "means", "epsilon", "delta", "confidence",
              "budget", "runs", "seed", "threads")


def sweep(path, out, console):
    """``bandsim sweep STUDY.toml`` whose algorithms are fixed-confidence ones; exit 0.

    The TOML is the regret sweep's (``[study]`` shared, ``[grid]`` lists crossed,
    docs/sweeps.md) with the keys of :data:`SWEEP_KEYS` (``budget``, not ``horizon``);
    any other key of a declared parameter is passed to the algorithms that declare it.
    Results go to ``out`` (one file per configuration) and are resumed when stored with
    the same configuration.

    Parameters
    ----------
    path : path
        The study file.
    out : path
    console : rich.console.Console

    Returns
    -------
    int

    Raises
    ------
    ConfigError
        An unknown key, a missing algorithm, as :func:`expand`.
    """
    import argparse
    import tomllib

    study = tomllib.loads(Path(path).read_text())
    merged = {**study.get("study", {}), **study.get("grid", {})}
    merged.pop("name", None)
    declared = {p.name for a in declarations.ALGORITHMS.values() for p in a.params}
    bad = sorted(set(merged) - set(SWEEP_KEYS) - declared - set(_NOT_FOR_BAI))
    if bad:
        raise ConfigError(bad[0], merged[bad[0]], "is not a key of a best-arm identification "
                                                  f"sweep (keys: {', '.join(SWEEP_KEYS)})")

    def listed(key):
        v = merged.get(key)
        return None if v is None else [float(x) for x in (v if isinstance(v, list) else [v])]

    args = argparse.Namespace(**{k: None for k in declared | set(all_params())})
    args.__dict__.update(
        algorithm=",".join(_words(merged.get("algorithm"))),
        instance=",".join(_words(merged.get("instance"))) or None,
        arms=[int(a) for a in _words(merged.get("arms"))] or [None], means=merged.get("means"),
        epsilon=listed("epsilon"), delta=listed("delta"), confidence=merged.get("confidence"),
        budget=int(float(merged.get("budget", BUDGET))), runs=int(merged.get("runs", 1000)),
        seed=merged.get("seed", 1), threads=merged.get("threads"),
        out=str(out).rstrip("/") + "/", json=False, command="sweep", resume=True,
        **{k: merged[k] for k in _NOT_FOR_BAI if k in merged},
        **{k: merged[k] for k in declared - set(SWEPT) if k in merged})
    if not args.algorithm:
        raise ConfigError("algorithm", None, "give the algorithms in [grid] or [study]")
    return run_jobs(args, console)


def _words(v):
    return [] if v is None else [str(x) for x in (v if isinstance(v, list) else [v])]


def is_bai_study(path):
    """Whether a sweep's TOML names fixed-confidence algorithms.

    Parameters
    ----------
    path : path
        The study file.

    Returns
    -------
    bool
        False for an unreadable file (the regret reader then names the problem).
    """
    import tomllib

    try:
        study = tomllib.loads(Path(path).read_text())
    except (OSError, ValueError):
        return False  # the regret reader names the problem
    names = _words({**study.get("study", {}), **study.get("grid", {})}.get("algorithm"))
    return bool(names) and is_identification(",".join(names))


def rows_table(rows, title=None):
    """A rich table of fixed-confidence summaries, one row each.

    Parameters
    ----------
    rows : list of dict
        :func:`bandsim.studies.bai_study.summary_row` (plus ``seconds`` when timed).
    title : str, optional

    Returns
    -------
    rich.table.Table
    """
    from rich.table import Table

    t = Table(title=title or "stopping time τ (mean ± 95% CI over stopped runs), error rate "
                             "(Clopper–Pearson 95%)")
    cols = ["algorithm", "instance", "ε", "δ", "runs", "censored", "E[τ]", "median", "errors",
            "error CI", "bound (thesis)", "E[τ]/bound", "bound (JA'25)"]
    timed = all("seconds" in r for r in rows)
    for c in cols + (["seconds"] if timed else []):
        t.add_column(c, justify="left" if c in ("algorithm", "instance") else "right")
    censored = [r for r in rows if r["censored"]]
    for s in rows:
        t.add_row(*map(plain, _cells(s) + ([f"{s['seconds']:.2f}"] if timed else [])))
    if censored:
        budgets = sorted({r["budget"] for r in censored})
        t.caption = ("run(s) not stopped by T_max = " + ", ".join(f"{b:,}" for b in budgets)
                     + " are censored: excluded from the mean, counted as +∞ in the median; "
                       "'≥' uses min(τ, T_max) over all runs")
    return t


def _num(x, spec=",.0f"):
    return "-" if x is None or x != x else format(x, spec)


def _cells(s):
    cens = s["censored"]
    mean = f"{s['tau_mean']:,.0f} ± {_num(s['tau_ci95'])}" if s["stopped"] else "-"
    if cens:
        mean += f" (≥ {s['tau_mean_lower']:,.0f} over all)"
    ratio = f"{'≥ ' if cens else ''}{s['ratio']:.3g}" if s["ratio"] == s["ratio"] else "-"
    bound = _num(s["lower_bound"]) if s["lower_bound"] == s["lower_bound"] else "- (δ ≥ 1/3)"
    eps = "-" if s["epsilon"] is None else f"{s['epsilon']:g}"
    return [s["algorithm"], s["instance"], eps, f"{s['delta']:g}", f"{s['runs']:,}",
            f"{cens:,}", mean, _num(s["tau_median"]), f"{s['errors']}/{s['stopped']}",
            f"[{s['error_ci95'][0]:.3g}, {s['error_ci95'][1]:.3g}]" if s["stopped"] else "-",
            bound, ratio, _num(s.get("lower_bound_ja25"))]


def summary_table(s):
    """A rich table of one summary (:func:`rows_table` of one row).

    Parameters
    ----------
    s : dict
        :meth:`bandsim.bai.BAIResult.summary` plus ``seconds``.

    Returns
    -------
    rich.table.Table
    """
    return rows_table([s])


def cmd_bai(args, console):
    """Run ``bandsim bai`` (the same as ``bandsim run`` with a fixed-confidence algorithm).

    Parameters
    ----------
    args : argparse.Namespace
    console : rich.console.Console

    Returns
    -------
    int
        0 on success (a ConfigError becomes one line and exit 2 in ``main``).
    """
    return run_jobs(args, console)


def bai_results(args, console):
    """``bandsim results DIR`` of a directory of fixed-confidence results: one row per file.

    Parameters
    ----------
    args : argparse.Namespace
        ``dir``, ``json``, ``csv``, ``allow_missing``.
    console : rich.console.Console

    Returns
    -------
    int
        0.
    """
    if getattr(args, "consolidate", False):
        raise ConfigError("consolidate", True, "is for regret results; a best-arm identification "
                                               "directory is read run by run with "
                                               "bandsim.load(DIR, level=\"run\")")
    rows = collect(args.dir, allow_missing=args.allow_missing,
                   warn=lambda m: console.print(f"[yellow]warning:[/] {plain(m)}",
                                                highlight=False))
    if args.json:
        print(json.dumps(json_safe(rows), indent=2))
    elif args.csv:
        sys.stdout.write(csv_text(rows))
    else:
        wide_console().print(rows_table(rows))
    return 0


def bai_plot(args, console, fmts=("png",)):
    """``bandsim plot DIR`` of fixed-confidence results: τ against ``--x`` (ε by default).

    Parameters
    ----------
    args : argparse.Namespace
    console : rich.console.Console
    fmts : tuple of str
        Figure formats (``--format``, validated by the caller).

    Returns
    -------
    int
        0.
    """
    paths = plot(args.dir, args.out, x=args.x or "epsilon", dpi=args.dpi, formats=fmts,
                 rows=collect(args.dir, allow_missing=args.allow_missing))
    console.print("wrote " + ", ".join(plain(p) for p in paths), soft_wrap=True)
    return 0
