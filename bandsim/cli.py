"""The ``bandsim`` command line: ``list`` and ``run``.

``bandsim run`` takes comma-separated lists for ALGO, ``--instance``,
``--arms`` and ``--epsilon`` and simulates every combination, with a progress
bar, then prints one summary table (or JSON with ``--json``).
"""
import argparse
import itertools
import json
import sys
import time
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
    run.add_argument("--means", type=_floats, default=None,
                     help="explicit arm means, e.g. 0.9,0.8,0.8")
    run.add_argument("--arms", type=_ints, default=None, help="K; comma list allowed")
    run.add_argument("--rewards", default="bernoulli", help="bernoulli or gaussian (clipped)")
    run.add_argument("--sigma", type=float, default=0.1, help="σ of gaussian rewards")
    run.add_argument("--horizon", type=_int, required=True, help="T, e.g. 5e7")
    run.add_argument("--runs", type=_int, default=1000, help="independent runs (default 1000)")
    run.add_argument("--seed", type=_int, default=None, help="root seed (default: random, recorded)")
    run.add_argument("--checkpoints", type=_int, default=None,
                     help="number of regret checkpoints (default 128)")
    run.add_argument("--threads", type=_int, default=None, help="worker threads")
    run.add_argument("--epsilon", type=_floats, default=None, help=PARAM_FLAGS["epsilon"])
    for name in ("delta", "beta", "p", "growth", "scale"):
        run.add_argument(f"--{name}", type=float, default=None, help=PARAM_FLAGS[name])
    run.add_argument("--out", default=None,
                     help="write Parquet: a file, or a directory when several configs run")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def cmd_list(console):
    from rich.table import Table

    from .algorithms import ALGORITHMS, REQUIRED
    from .instances import NAMED

    t = Table(title="algorithms")
    for c in ("name", "trust model", "parameters (default)", "source", "summary"):
        t.add_column(c)
    for a in ALGORITHMS.values():
        ps = ", ".join(n if d is REQUIRED else (f"{n}={getattr(d, 'label', '1/T')}"
                                                 if callable(d) else f"{n}={d:g}")
                       for n, d in a.params.items())
        t.add_row(a.name, a.trust, ps, a.reference, a.summary)
    console.print(t)
    t = Table(title="instances")
    t.add_column("name")
    t.add_column("description")
    for n, d in NAMED.items():
        t.add_row(n, d)
    t.add_row("--means", "explicit arm means in [0, 1]")
    console.print(t)
    console.print("figures: none yet (`bandsim reproduce` is planned)")
    return 0


def expand(args):
    """The list of simulate() keyword sets that ``bandsim run`` asks for."""
    from . import algorithms

    algos = [algorithms.get(a.strip()) for a in args.algorithm.split(",") if a.strip()]
    instances = [None] if args.means else (args.instance or "").split(",")
    if not args.means and args.instance is None:
        raise ConfigError("instance", None, "give --instance (C1-C4, easy, hard) or --means")
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
                         horizon=args.horizon, runs=args.runs, seed=args.seed,
                         checkpoints=args.checkpoints, threads=args.threads, **params))
    return jobs


def out_path(args, job, n_jobs):
    if args.out is None:
        return None
    if n_jobs == 1 and not Path(args.out).is_dir():
        return Path(args.out)
    d = Path(args.out)
    d.mkdir(parents=True, exist_ok=True)
    eps = job.get("epsilon")
    name = f"{job['algorithm']}_{job['instance'] or 'means'}_K{job['arms'] or len(job['means'])}"
    return d / (name + (f"_eps{eps:g}" if eps is not None else "") + ".parquet")


def summary_table(rows):
    from rich.table import Table

    t = Table(title="final pseudo-regret (mean ± 95% CI over runs)")
    for c in ("algorithm", "instance", "K", "ε", "runs", "T", "regret", "median",
              "Reg(T)/T", "seconds"):
        t.add_column(c, justify="left" if c in ("algorithm", "instance") else "right")
    for s in rows:
        eps = "-" if s["epsilon"] is None else f"{s['epsilon']:g}"
        t.add_row(s["algorithm"], s["instance"], str(s["arms"]), eps, f"{s['runs']:,}",
                  f"{s['horizon']:.3g}", f"{s['regret_mean']:,.1f} ± {s['regret_ci95']:,.1f}",
                  f"{s['regret_median']:,.1f}", f"{s['time_avg_regret_mean']:.3g}",
                  f"{s['seconds']:.2f}")
    return t


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
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from .runner import prepare

    jobs = expand(args)
    prepared = [prepare(**job) for job in jobs]  # every error before any work
    rows = []
    columns = (TextColumn("{task.description}"), BarColumn(),
               TextColumn("{task.completed:,}/{task.total:,} runs"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        tasks = [bar.add_task(f"{j['algorithm']} {j['instance'] or 'means'}"
                              + (f" ε={j['epsilon']:g}" if j.get("epsilon") else ""),
                              total=j["runs"]) for j in jobs]
        for job, prep, task in zip(jobs, prepared, tasks):
            t0 = time.perf_counter()
            res = prep.run(progress=lambda n, task=task: bar.update(task, completed=n))
            s = res.summary()
            s["seconds"] = time.perf_counter() - t0
            s["seed"] = res.config["seed"]
            path = out_path(args, job, len(jobs))
            if path is not None:
                res.to_parquet(path)
                s["out"] = str(path)
            rows.append(s)
    if args.json:
        print(json.dumps(rows[0] if len(rows) == 1 else rows, indent=2))
    else:
        out = wide_console()
        out.print(summary_table(rows))
        table = batch_table(res.config) if len(rows) == 1 else None
        if table is not None:
            out.print(table)
    return 0


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
        return cmd_run(args, console)
    except ConfigError as e:
        console.print(f"[bold red]error:[/] {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
