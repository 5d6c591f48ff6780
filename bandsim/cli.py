"""The ``bandsim`` command line: ``list``, ``run``, ``instances`` and ``audit``.

``bandsim audit`` (exact per-batch privacy, returning users) lives in
:mod:`bandsim.privacy.cli`.

``bandsim run`` takes comma-separated lists for ALGO, ``--instance``,
``--arms`` and ``--epsilon`` and simulates every combination, with a progress
bar, then prints one summary table (or JSON with ``--json``).
"""
import argparse
import itertools
import json
import sys
from pathlib import Path

from .errors import ConfigError

#: Algorithm parameters settable from the command line: flag → help.
PARAM_FLAGS = {
    "epsilon": "privacy level ε (per batch/epoch); comma list allowed",
    "delta": "δ of (ε, δ)-DP",
    "beta": "confidence β of DP-SE (default 1/T)",
    "p": "confidence p of Algorithm 1 (default 0.1)",
    "growth": "batch growth factor η, l(b) = η^b",
    "scale": "scaling factor s ≥ 1 (Skellam / discrete Gaussian)",
    "batch_size": "fixed batch size m of sdp-ae (default ⌈σ²_ε,δ⌉, Corollary 3.2)",
}


def _floats(text):
    return [float(x) for x in text.split(",") if x.strip()]


def _ints(text):
    out = []
    for x in text.split(","):
        v = float(x)
        if v != int(v):
            raise argparse.ArgumentTypeError(f"{x!r} is not an integer")
        out.append(int(v))
    return out


def _int(text):
    return _ints(text)[0]


def build_parser():
    parser = argparse.ArgumentParser(
        prog="bandsim",
        description="Fast, exact Monte Carlo simulation of differentially private bandits.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="algorithms, instances and figures")

    run = sub.add_parser("run", help="simulate an algorithm on an instance")
    run.add_argument("algorithm", help="algorithm name(s), comma-separated (see `bandsim list`)")
    run.add_argument("--instance", default=None,
                     help="C1-C4, easy, hard; comma list allowed")
    run.add_argument("--instance-file", default=None,
                     help="an instance file built from data (`bandsim instances build`)")
    run.add_argument("--means", type=_floats, default=None,
                     help="explicit arm means, e.g. 0.9,0.8,0.8")
    run.add_argument("--arms", type=_ints, default=None, help="K; comma list allowed")
    run.add_argument("--rewards", default="bernoulli", help="bernoulli or gaussian (clipped)")
    run.add_argument("--sigma", type=float, default=0.1, help="σ of gaussian rewards")
    run.add_argument("--horizon", type=_int, required=True, help="T, e.g. 5e7")
    run.add_argument("--runs", type=_int, default=1000, help="independent runs (default 1000)")
    run.add_argument("--seed", type=_int, default=None,
                     help="root seed (default: drawn once for the whole grid, recorded)")
    run.add_argument("--checkpoints", type=_int, default=None,
                     help="number of regret checkpoints (default 128)")
    run.add_argument("--threads", type=_int, default=None, help="worker threads")
    run.add_argument("--epsilon", type=_floats, default=None, help=PARAM_FLAGS["epsilon"])
    for name in ("delta", "beta", "p", "growth", "scale"):
        run.add_argument(f"--{name}", type=float, default=None, help=PARAM_FLAGS[name])
    run.add_argument("--batch-size", dest="batch_size", type=_int, default=None,
                     help=PARAM_FLAGS["batch_size"])
    run.add_argument("--out", default=None,
                     help="write Parquet: a file, or a directory when several configs run")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")

    rep = sub.add_parser("reproduce", help="simulate and plot one of the seeds' figures")
    rep.add_argument("figure", help="figure name (see `bandsim list`)")
    rep.add_argument("--out", required=True, help="output directory")
    rep.add_argument("--runs", type=_int, default=None, help="override the paper's runs")
    rep.add_argument("--horizon", type=_int, default=None, help="override the paper's T")
    rep.add_argument("--seed", type=_int, default=1)
    rep.add_argument("--instance-file", default=None, help="instance file for real-data panels")
    rep.add_argument("--threads", type=_int, default=None)
    _backend_args(rep)

    sw = sub.add_parser("sweep", help="run a grid of simulations from a TOML study file")
    sw.add_argument("study", help="STUDY.toml (see docs/sweeps.md)")
    sw.add_argument("--out", required=True, help="output directory")
    _backend_args(sw)
    add_instances_parser(sub)
    from .privacy.cli import add_audit_parser

    add_audit_parser(sub, _floats, _ints, _int)
    from .results_cli import add_parsers  # results, plot; --overwrite, --dpi, --xscale

    add_parsers(sub)
    return parser


def _backend_args(p):
    p.add_argument("--backend", default="local", help="local (default) or dask")
    p.add_argument("--scheduler", default=None,
                   help="Dask scheduler address (default: an in-process cluster)")


def cmd_list(console):
    from rich.table import Table

    from .algorithms import ALGORITHMS, REQUIRED, Derived
    from .instances import NAMED

    t = Table(title="algorithms")
    for c in ("name", "trust model", "parameters (default)", "source", "summary"):
        t.add_column(c)
    for a in ALGORITHMS.values():
        ps = ", ".join(n if d is REQUIRED
                       else f"{n}={getattr(d, 'label', '1/T')}"
                       if isinstance(d, Derived) or callable(d) else f"{n}={d:g}"
                       for n, d in a.params.items())
        t.add_row(a.name, a.trust, ps, a.reference, a.summary)
    console.print(t)
    t = Table(title="instances")
    t.add_column("name")
    t.add_column("description")
    for n, d in NAMED.items():
        t.add_row(n, d)
    t.add_row("--means", "explicit arm means in [0, 1]")
    t.add_row("--instance-file", "an instance file built from data (`bandsim instances build`)")
    console.print(t)
    from .figures import FIGURES

    t = Table(title="figures (bandsim reproduce FIGURE --out DIR)")
    for c in ("name", "source", "title"):
        t.add_column(c)
    for f in FIGURES.values():
        t.add_row(f.name, f.source, f.title)
    console.print(t)
    return 0


def cmd_reproduce(args, console):
    from .reproduce import reproduce

    from .results_cli import formats

    rows, skipped = reproduce(args.figure, args.out, runs=args.runs, horizon=args.horizon,
                              seed=args.seed, instance_file=args.instance_file,
                              threads=args.threads, console=console,
                              backend=args.backend, scheduler=args.scheduler,
                              overwrite=args.overwrite, dpi=args.dpi, xscale=args.xscale,
                              formats=formats(args))
    for note in skipped:
        console.print(f"[yellow]skipped:[/] {note}")
    wide_console().print(summary_table(rows, first=("panel", "label")))
    console.print(f"wrote {args.out}/{args.figure}.{{{args.format},json}} "
                  f"and {args.figure}/*.parquet")
    return 0


def cmd_sweep(args, console):
    from .sweep import sweep

    rows = sweep(args.study, args.out, console=console, backend=args.backend,
                 scheduler=args.scheduler, overwrite=args.overwrite)
    swept = [k for k in rows[0] if k not in ("job", "file", "key", "resumed", "seconds")
             and k not in summary_table.columns]  # every swept setting, as a column
    wide_console().print(summary_table(rows, first=("job", *swept)))
    console.print(f"wrote {len(rows)} results and summary.parquet to {args.out}")
    return 0


def expand(args):
    """The list of simulate() keyword sets that ``bandsim run`` asks for."""
    from . import algorithms

    algos = [algorithms.get(a.strip()) for a in args.algorithm.split(",") if a.strip()]
    given_inst = args.means or args.instance_file
    instances = [None] if given_inst else (args.instance or "").split(",")
    if not given_inst and args.instance is None:
        raise ConfigError("instance", None,
                          "give --instance (C1-C4, easy, hard), --means or --instance-file")
    arms = args.arms or [None]
    given = {n: getattr(args, n) for n in PARAM_FLAGS if getattr(args, n) is not None}
    for name in given:
        if not any(name in a.params for a in algos):
            names = ", ".join(a.name for a in algos)
            raise ConfigError(name, given[name], f"not a parameter of {names}")
    eps_list = given.pop("epsilon", [None])
    jobs, seen = [], set()
    for algo, inst, k, eps in itertools.product(algos, instances, arms, eps_list):
        params = {n: v for n, v in given.items() if n in algo.params}
        if "epsilon" in algo.params:
            params["epsilon"] = eps
        key = (algo.name, inst, k, tuple(sorted(params.items())))
        if key in seen:
            continue
        seen.add(key)
        jobs.append(dict(algorithm=algo.name, instance=inst and inst.strip(), arms=k,
                         means=args.means, rewards=args.rewards, sigma=args.sigma,
                         instance_file=args.instance_file,
                         horizon=args.horizon, runs=args.runs, seed=args.seed,
                         checkpoints=args.checkpoints, threads=args.threads, **params))
    return jobs


def out_path(args, job, n_jobs):
    from .jobs import job_instance
    from .store import exact

    if args.out is None:
        return None
    if n_jobs == 1 and not Path(args.out).is_dir():
        return Path(args.out)
    d = Path(args.out)
    d.mkdir(parents=True, exist_ok=True)
    eps = job.get("epsilon")
    name = f"{job['algorithm']}_{job_instance(job)}"
    if not job.get("instance_file"):
        name += f"_K{job['arms'] or len(job['means'])}"
    eps = "" if eps is None else f"_eps{exact(eps)}"  # 0.1 and 0.1000001 differ
    return d / (name + eps + ".parquet")


def summary_table(rows, first=()):
    """A rich table of summary rows; ``first`` names extra leading columns."""
    from rich.table import Table

    t = Table(title="final pseudo-regret (mean ± 95% CI over runs)")
    for c in first:
        t.add_column(c)
    for c in ("algorithm", "instance", "K", "ε", "runs", "T", "regret", "median",
              "Reg(T)/T", "seconds"):
        t.add_column(c, justify="left" if c in ("algorithm", "instance") else "right")
    for s in rows:
        eps = "-" if s["epsilon"] is None else f"{s['epsilon']:g}"
        secs = "-" if s.get("seconds") is None else f"{s['seconds']:.2f}"
        t.add_row(*("-" if s.get(c) is None else str(s[c]) for c in first), s["algorithm"],
                  s["instance"], str(s["arms"]), eps, f"{s['runs']:,}", f"{s['horizon']:.3g}",
                  f"{s['regret_mean']:,.1f} ± {s['regret_ci95']:,.1f}",
                  f"{s['regret_median']:,.1f}", f"{s['time_avg_regret_mean']:.3g}", secs)
    return t


#: Keys of a summary row that summary_table always shows.
summary_table.columns = ("algorithm", "instance", "arms", "epsilon", "runs", "horizon",
                         "regret_mean", "regret_ci95", "regret_median", "time_avg_regret_mean",
                         "time_avg_regret_ci95", "seed")


def batch_table(config):
    """Per-batch protocol parameters (n, g, τ, m, bits) of a result, or None.

    Only for plans whose stages carry the protocol's g, τ and m (the
    algorithms of seed 003 built on the protocol P = (R, S, A)).
    """
    from rich.table import Table

    stages = config.get("stages") or []
    if not stages or not all(k in stages[0] for k in ("g", "tau", "m")):
        return None
    t = Table(title=f"{config['algorithm']}: per-batch protocol parameters "
                    f"(k = K = {config['arms']} active arms)")
    for c in ("batch b", "n = l(b)", "g", "τ", "m", "bits/user", "2β(b)"):
        t.add_column(c, justify="right")
    for st in stages:
        t.add_row(str(st["stage"]), f"{st['n']:,}", f"{st['g']:,}", f"{st['tau']:,}",
                  f"{st['m']:,}", str(st["bits"]), f"{st['width']:.4g}")
    priv = config.get("privacy") or {}
    keys = [k for k in ("guarantee", "epsilon", "epsilon_hat", "rho", "scale") if k in priv]
    if keys:
        t.caption = "privacy: " + ", ".join(
            f"{k}={priv[k]:.4g}" if isinstance(priv[k], float) else f"{k}={priv[k]}"
            for k in keys)
        if "rdp_epsilon" in priv:
            t.caption += ", RDP ε̂(α) for α = 2, 4, 8, 16: " + ", ".join(
                f"{priv['rdp_epsilon'][a - 2]:.4g}" for a in (2, 4, 8, 16))
    return t


def cmd_run(args, console):
    from .jobs import run_jobs

    if args.seed is None:  # one root seed for the whole grid: common random instances
        args.seed = __import__("secrets").randbits(63)
    jobs = expand(args)
    rows = [None] * len(jobs)
    try:
        for i, res, seconds in run_jobs(jobs, console=console):
            rows[i] = summarize(res, seconds, out_path(args, jobs[i], len(jobs)))
    except KeyboardInterrupt:
        from .store import Interrupted

        raise Interrupted(sum(r is not None for r in rows), len(jobs)) from None
    print_rows(rows, args.json)
    table = batch_table(res.config) if len(jobs) == 1 and not args.json else None
    if table is not None:
        wide_console().print(table)
    return 0


def summarize(res, seconds, path=None):
    """The summary row of one result; writes it to ``path`` when given."""
    s = res.summary()
    s["seconds"] = seconds
    s["seed"] = res.config["seed"]
    if path is not None:
        res.to_parquet(path)
        s["out"] = str(path)
    return s


def print_rows(rows, as_json):
    if as_json:  # strict JSON: NaN (the CI of one run) is null
        from .store import dumps

        print(dumps(rows[0] if len(rows) == 1 else rows, indent=2))
    else:
        wide_console().print(summary_table(rows))


def add_instances_parser(sub):
    """``bandsim instances build mslr|obd PATH --out FILE`` and ``bandsim instances show FILE``."""
    inst = sub.add_parser("instances", help="build instance files from data, show them")
    isub = inst.add_subparsers(dest="instances_command", required=True)
    build = isub.add_parser("build", help="build an instance file from a dataset")
    bsub = build.add_subparsers(dest="kind", required=True)
    mslr = bsub.add_parser("mslr", help="MSLR-WEB10K / LETOR file: k-means clusters as "
                                        "categorical arms (relevance/4); needs bandsim[data]")
    mslr.add_argument("path", nargs="+",
                      help="LETOR text file(s), e.g. MSLR-WEB10K/Fold1/{train,vali,test}.txt "
                           "(several are concatenated)")
    mslr.add_argument("--clusters", type=_int, default=50, help="K (default 50, as the paper)")
    mslr.add_argument("--seed", type=_int, default=0, help="clustering seed (default 0)")
    mslr.add_argument("--standardize", action="store_true",
                      help="scale features to unit variance before clustering")
    obd = bsub.add_parser("obd", help="Open Bandit Dataset log (uniform-random policy): "
                                      "items as Bernoulli arms with their CTR")
    obd.add_argument("path", help="e.g. open-bandit-dataset/random/all/all.csv")
    obd.add_argument("--position", type=_int, default=None,
                     help="keep only this slot (1-3; default: all slots pooled)")
    obd.add_argument("--min-clicks", type=_int, default=10,
                     help="warn about arms with fewer clicks (default 10)")
    for p in (mslr, obd):
        p.add_argument("--out", required=True, help="output instance file (.parquet)")
        p.add_argument("--name", default=None, help="instance name (default: file stem)")
    show = isub.add_parser("show", help="print an instance file's arms")
    show.add_argument("file")
    show.add_argument("--json", action="store_true", help="print the arms as JSON")


def cmd_instances(args, console):
    """Build (``mslr``/``obd``) or show an instance file."""
    import warnings

    from . import datasets

    if args.instances_command == "show":
        return show_instance(args.file, args.json)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if args.kind == "mslr":
            inst = datasets.build_mslr(args.path, args.out, clusters=args.clusters,
                                       seed=args.seed, standardize=args.standardize,
                                       name=args.name)
        else:
            inst = datasets.build_obd(args.path, args.out, position=args.position,
                                      min_clicks=args.min_clicks, name=args.name)
    for w in caught:
        console.print(f"[bold yellow]warning:[/] {w.message}")
    console.print(f"wrote {args.out}: {inst.arms} arms, {inst.rewards} rewards, "
                  f"best mean {inst.location.max():.6g}")
    return show_instance(args.out, False)


def show_instance(path, as_json):
    """Print an instance file's arms (mean, gap, support, data size, extras)."""
    import numpy as np
    from rich.table import Table

    from .datasets import load_instance, read_instance_table

    table, meta = read_instance_table(path)
    inst = load_instance(path)
    cols = table.to_pydict()
    means = inst.means
    gaps = means.max() - means
    rows = []
    for a in range(inst.arms):
        row = {"arm": a, "label": cols.get("label", [f"arm {a}"] * inst.arms)[a],
               "mean": float(means[a]), "gap": float(gaps[a]),
               "support": [v for v, p in zip(cols["values"][a], cols["probs"][a]) if p > 0]}
        for k, v in cols.items():
            if k not in ("arm", "label", "values", "probs", "mean"):
                row[k] = v[a]
        rows.append(row)
    if as_json:
        print(json.dumps({"meta": meta, "arms": rows}, indent=2, default=float))
        return 0
    extra = [k for k in rows[0] if k not in ("arm", "label", "mean", "gap", "support")
             and not (k == "size" and "impressions" in rows[0])]
    src = meta.get("provenance", {}).get("source", {})
    src = ", ".join(x.get("path", "?") for x in (src if isinstance(src, list) else [src]))
    t = Table(title=f"{meta.get('name')} ({meta.get('kind')}, {inst.rewards} rewards, "
                    f"K = {inst.arms}) from {src}")
    for c in ["arm", "label", "mean", "gap", "support"] + extra:
        t.add_column(c, justify="left" if c in ("label", "support") else "right")
    order = np.argsort(-means, kind="stable")
    for a in order:
        r = rows[a]
        support = ", ".join(f"{v:g}" for v in r["support"])
        t.add_row(str(r["arm"]), str(r["label"]), f"{r['mean']:.6g}", f"{r['gap']:.6g}",
                  "{" + support + "}", *(f"{r[k]:.4g}" if isinstance(r[k], float)
                                         else f"{r[k]}" for k in extra))
    console = wide_console()
    console.print(t)
    second = np.sort(means)[-2]
    console.print(f"best arm {int(order[0])} (mean {means.max():.6g}); smallest positive gap "
                  f"{means.max() - second:.6g}; arms sorted by mean")
    return 0


def cmd_audit(args, console):
    """``bandsim audit``: exact per-batch privacy and accounting (:mod:`bandsim.privacy.cli`)."""
    from .privacy.cli import cmd_audit as run

    return run(args, console)


def wide_console(stderr=False):
    """A rich Console at least 120 columns wide, so tables stay readable in logs."""
    from rich.console import Console

    c = Console(stderr=stderr)
    return c if c.is_terminal else Console(stderr=stderr, width=max(c.width, 120))


def main(argv=None):
    args = build_parser().parse_args(argv)
    console = wide_console(stderr=True)
    try:
        if args.command == "list":
            return cmd_list(wide_console())
        from .results_cli import DISPATCH

        return {"run": cmd_run, "reproduce": cmd_reproduce, "sweep": cmd_sweep,
                "instances": cmd_instances, "audit": cmd_audit,
                **DISPATCH}[args.command](args, console)
    except ConfigError as e:
        console.print(f"[bold red]error:[/] {e}", soft_wrap=True)  # one line, even if long
        return 2
    except KeyboardInterrupt as e:  # one line: done, left, the command that resumes
        from .results_cli import interrupted

        return interrupted(e, argv, console)


if __name__ == "__main__":
    sys.exit(main())
