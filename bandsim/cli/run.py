"""``bandsim run``: simulate algorithms on instances, one summary table.

ALGO, ``--instance``, ``--arms`` and ``--epsilon`` take comma-separated lists
and every combination is simulated, with a progress bar; then one summary
table (or JSON with ``--json``). The algorithm-parameter flags are generated
from the registered declarations (plug-ins included).
"""
import itertools
from pathlib import Path

from .. import confidence, resources
from ..atomic import probe, target
from ..errors import ConfigError
from ..datasets import load_instance
from ..registry import all_params, get_algorithm
from ..studies.jobs import job_instance, run_jobs
from ..studies.plots import check_out_dir, check_out_file
from ..studies.store import Interrupted, exact
from ..studies.suite import run_cost
from . import bai
from .common import (command, floats, ints, one_int, print_rows, registers, summary_table,
                     wide_console)


@registers
def add_parser(sub):
    """Register ``bandsim run``; its parameter flags come from the registry."""
    run = sub.add_parser("run", help="simulate an algorithm on an instance")
    run.add_argument("algorithm", help="algorithm name(s), comma-separated (see `bandsim list`)")
    run.add_argument("--instance", default=None, help="C1-C4, easy, hard; comma list allowed")
    run.add_argument("--instance-file", default=None,
                     help="an instance file built from data (`bandsim instances build`)")
    run.add_argument("--means", type=floats, default=None,
                     help="explicit arm means, e.g. 0.9,0.8,0.8")
    run.add_argument("--arms", type=ints, default=None, help="K; comma list allowed")
    run.add_argument("--rewards", default="bernoulli", help="bernoulli or gaussian (clipped)")
    run.add_argument("--sigma", type=float, default=0.1, help="σ of gaussian rewards")
    run.add_argument("--horizon", type=one_int, default=None,
                     help="T, e.g. 5e7 (regret algorithms; required for them)")
    run.add_argument("--budget", type=one_int, default=None,
                     help="best-arm identification: T_max, a run not stopped by then is "
                          "censored (default 1e8)")
    run.add_argument("--runs", type=one_int, default=1000, help="independent runs (default 1000)")
    run.add_argument("--seed", type=one_int, default=None,
                     help="root seed (default: drawn once for the whole grid, recorded)")
    run.add_argument("--checkpoints", type=one_int, default=None,
                     help="number of regret checkpoints (default 128)")
    run.add_argument("--threads", type=one_int, default=None, help="worker threads")
    add_param_flags(run, lists=("epsilon", "delta"))
    bai.add_param_flags(run, skip=all_params())  # identification-only parameters
    add_confidence_flag(run)
    run.add_argument("--out", default=None,
                     help="write Parquet: a file, or a directory when several configs run")
    run.add_argument("--json", action="store_true", help="print the summary as JSON")
    run.add_argument("--yes", action="store_true",
                     help="run even if the cost model estimates more than a day of work")
    run.add_argument("--memory", default=None,
                     help="memory budget, e.g. 8G (default: a third of the available memory; "
                          "env BANDSIM_MEMORY)")
    return run


def add_param_flags(parser, names=None, lists=("epsilon",)):
    """One flag per declared algorithm parameter (ε takes a comma list).

    Parameters
    ----------
    parser : argparse.ArgumentParser
    names : collection of str, optional
        Only these parameters (default: all declared).
    lists : collection of str
        Parameters whose flag takes a comma list (swept).
    """
    for p in all_params().values():
        if names is not None and p.name not in names:
            continue
        kind = (floats if p.name in lists else one_int if p.integer
                else str if p.boolean or p.choices else float)
        text = f"{p.help} [{p.unit}; {p.range_text()}]" if p.unit else p.help
        if p.name == "delta" and "delta" in lists:
            text += ("; comma list allowed. For best-arm identification (pure ε-DP) it is the "
                     "risk δ of fixed confidence, their --confidence")
        parser.add_argument(p.flag, dest=p.name, type=kind, default=None, help=text)


def add_confidence_flag(parser):
    """``--confidence``: every algorithm's confidence parameter, under one name.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    """
    parser.add_argument("--confidence", type=float, default=None,
                        help="the confidence (failure probability) of every algorithm compared, "
                             "whatever its paper calls it (DP-SE's beta, Chowdhury & Zhou's p); "
                             "default: each algorithm's own [probability; (0, 1)]")


def expand(args):
    """The list of simulate() keyword sets that ``bandsim run`` asks for.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``bandsim run`` command line.

    Returns
    -------
    list of dict
        One keyword set per combination of algorithm, instance, K and ε.

    Raises
    ------
    ConfigError
        Bad input, in one line, before any work.
    """
    algos = [get_algorithm(a.strip()) for a in args.algorithm.split(",") if a.strip()]
    if not algos:
        raise ConfigError("algorithm", args.algorithm, "give at least one algorithm name")
    if args.horizon is None:
        raise ConfigError("horizon", None, "give --horizon T, e.g. 5e7 (required for regret "
                                           "algorithms)")
    if getattr(args, "budget", None) is not None:
        raise ConfigError("budget", args.budget, "is best-arm identification's T_max; regret "
                                                 "algorithms take --horizon")
    if args.means is not None and args.instance is not None:
        raise ConfigError("means", ",".join(f"{m:g}" for m in args.means),
                          f"give either --means or --instance ({args.instance}), not both")
    if args.means == []:
        raise ConfigError("means", "", "give at least two means, e.g. --means 0.9,0.8")
    given_inst = args.means or args.instance_file
    instances = [None] if given_inst else (args.instance or "").split(",")
    if not given_inst and args.instance is None:
        raise ConfigError("instance", None,
                          "give --instance (C1-C4, easy, hard), --means or --instance-file")
    arms = args.arms or [None]
    given = {n: getattr(args, n) for n in all_params() if getattr(args, n, None) is not None}
    if given.get("epsilon") == []:
        raise ConfigError("epsilon", "", "give at least one value, e.g. --epsilon 0.5")
    for name in given:
        if not any(a.param(name) for a in algos):
            names = ", ".join(a.name for a in algos)
            value = given[name]
            if isinstance(value, list):
                value = ",".join(f"{v:g}" for v in value)
            raise ConfigError(name, value, f"not a parameter of {names}")
    conf = getattr(args, "confidence", None)
    if conf is not None and not any(a.confidence for a in algos):
        raise ConfigError("confidence", conf, "none of " + ", ".join(a.name for a in algos)
                          + " declares a confidence parameter")
    eps_list = given.pop("epsilon", [None])
    delta_list = given.get("delta", [None])
    if delta_list == []:
        raise ConfigError("delta", "", "give at least one value, e.g. --delta 1e-6")
    jobs, seen = [], set()
    for algo, inst, k, eps, delta in itertools.product(algos, instances, arms, eps_list,
                                                       delta_list):
        one = {**given, "delta": delta} if "delta" in given else given  # same key order
        params = confidence.apply(algo, {**{n: v for n, v in one.items() if algo.param(n)},
                                         confidence.KEY: conf})
        if algo.param("epsilon"):
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


def check_cost(jobs, yes=False):
    """Refuse, before any work, jobs the suite's cost model puts beyond a day (unless ``yes``).

    The model is :func:`bandsim.studies.suite.run_cost` (seconds per run on one
    core: each algorithm's declared ``run_cost``, :mod:`bandsim.costs`, docs/suite.md),
    times the runs of each job.

    Parameters
    ----------
    jobs : list of dict
        From :func:`expand`.
    yes : bool
        ``--yes``: the user accepts a long run.

    Raises
    ------
    ConfigError
        Naming ``runs`` (or ``horizon`` for a single run), the estimate and
        how to shorten it.
    """
    total, worst = 0.0, None
    for job in jobs:
        k = job.get("arms") or (len(job["means"]) if job.get("means") else None)
        if k is None and job.get("instance_file"):
            k = load_instance(job["instance_file"]).arms
        per_run = run_cost(job["algorithm"], k or 2, float(job["horizon"]), job)  # K missing: later
        total += per_run * float(job["runs"])
        if worst is None or per_run > worst[0]:
            worst = (per_run, job)
    if worst is None or not worst[0]:
        return
    per_run, job = worst
    field, value = ("runs", job["runs"]) if job["runs"] > 1 else ("horizon", job["horizon"])
    what = (f"{len(jobs)} configuration(s), e.g. {job['runs']:,} run(s) of {job['algorithm']} "
            f"at T = {float(job['horizon']):.3g} (≈ {resources.duration(per_run)} per run),")
    resources.check_time(total, field, value, what, "lower --runs or --horizon", yes)


def _is_dir_target(out, n_jobs):
    """``--out`` names a directory: several configs, an existing directory, or a trailing /."""
    return n_jobs > 1 or Path(out).is_dir() or out.endswith(("/", "\\"))


def check_out(args, n_jobs):
    """Refuse an ``--out`` that cannot be written, before any simulation runs.

    Parameters
    ----------
    args : argparse.Namespace
    n_jobs : int
        Configurations to run (several need a directory).

    Raises
    ------
    ConfigError
        Bad input, in one line, before any work.
    """
    if args.out is None:
        return
    out = Path(args.out)
    if _is_dir_target(args.out, n_jobs):
        if out.exists() and not out.is_dir():
            raise ConfigError("out", args.out, "is a file; several results need a directory")
        check_out_dir(out)  # a writable directory, or one that can be created
        return  # created (with its parents) when the first result is written
    if out.parent.is_dir():
        check_out_file(out)  # writable directory; not a directory or device
    if not out.parent.is_dir():
        probe(out.parent, "out", args.out)  # a regular file on the way: "… is not a directory"
        raise ConfigError("out", args.out, f"its directory {out.parent} does not exist "
                                           "(create it, or end --out with / for a directory)")

    target(out)  # a device, FIFO or directory is refused now, not after the simulation


def out_path(args, job, n_jobs):
    """The Parquet path of one job's result (None without ``--out``).

    Parameters
    ----------
    args : argparse.Namespace
    job : dict
        The job's simulate() keywords.
    n_jobs : int

    Returns
    -------
    pathlib.Path or None
    """
    if args.out is None:
        return None
    if not _is_dir_target(args.out, n_jobs):
        return Path(args.out)
    d = Path(args.out)
    d.mkdir(parents=True, exist_ok=True)
    eps = job.get("epsilon")
    name = f"{job['algorithm']}_{job_instance(job)}"
    if not job.get("instance_file"):
        name += f"_K{job['arms'] or len(job['means'])}"
    eps = "" if eps is None else f"_eps{exact(eps)}"  # 0.1 and 0.1000001 differ
    if len(getattr(args, "delta", None) or ()) > 1 and job.get("delta") is not None:
        eps += f"_delta{exact(job['delta'])}"  # a sweep over δ: one file per value
    return d / (name + eps + ".parquet")


def batch_table(config):
    """Per-batch protocol parameters (n, g, τ, m, bits) of a result, or None.

    Only for plans whose stages carry the protocol's g, τ and m (the
    algorithms of Chowdhury & Zhou (2023) built on the protocol P = (R, S, A)).

    Parameters
    ----------
    config : dict
        A result's configuration.

    Returns
    -------
    rich.table.Table or None
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


@command
def cmd_run(args, console):
    """``bandsim run``: simulate every combination, print one summary table (or JSON list)."""
    previous = resources.set_budget(args.memory) if args.memory is not None else None
    try:
        return _run(args, console)
    finally:  # --memory holds for this command only (main() may be called again in-process)
        if args.memory is not None:
            resources.restore_budget(previous)


def _run(args, console):
    import secrets

    if bai.is_identification(args.algorithm):  # stopping times, not regret
        return bai.run_jobs(args, console)
    if args.seed is None:  # one root seed for the whole grid: common random instances
        args.seed = secrets.randbits(63)
    jobs = expand(args)
    check_out(args, len(jobs))
    check_cost(jobs, args.yes)
    rows = [None] * len(jobs)
    clock = CompileClock()
    try:
        with clock:
            for i, res, seconds in run_jobs(jobs, console=console):
                compiled = clock.take()  # JIT compilation during this job, not simulation
                rows[i] = summarize(res, max(0.0, seconds - compiled),
                                    out_path(args, jobs[i], len(jobs)))
                rows[i]["compile_seconds"] = compiled
    except KeyboardInterrupt:
        raise Interrupted(sum(r is not None for r in rows), len(jobs)) from None
    if clock.total >= 0.05:
        console.print(f"compiled the kernels in {clock.total:.1f} s, once (cached on disk; "
                      "the seconds below are simulation only)", highlight=False)
    if len(args.delta or ()) > 1:  # a sweep over (ε, δ)-DP's δ: its value on every row
        for row, job in zip(rows, jobs):
            row["delta"] = job.get("delta")
    if len(args.delta or ()) > 1 and not args.json:
        wide_console().print(summary_table(rows, first=("delta",)))
    else:
        print_rows(rows, args.json)
    table = batch_table(res.config) if len(jobs) == 1 and not args.json else None
    if table is not None:
        wide_console().print(table)
    return 0


def summarize(res, seconds, path=None):
    """The summary row of one result; writes it to ``path`` when given.

    Parameters
    ----------
    res : Result
    seconds : float
        Simulation time (JIT compilation excluded).
    path : pathlib.Path, optional

    Returns
    -------
    dict
        ``Result.summary()`` plus ``seconds``, ``seed`` and ``out``.
    """
    s = res.summary()
    s["seconds"] = seconds
    s["seed"] = res.config["seed"]
    if path is not None:
        res.to_parquet(path)
        s["out"] = str(path)
    return s




class CompileClock:
    """Seconds Numba spends compiling kernels while it is active (``numba:compile`` events).

    Nested compilations (a kernel compiling its callees) count once. Loading
    kernels from the on-disk cache is not compilation.

    Attributes
    ----------
    total : float
        Seconds of compilation since the clock started.
    """

    def __init__(self):
        self.total = 0.0
        self._taken = 0.0
        self._depth = 0
        self._t0 = 0.0
        self._listener = None

    def __enter__(self):
        import time

        from numba.core import event

        clock = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                if clock._depth == 0:
                    clock._t0 = time.perf_counter()
                clock._depth += 1

            def on_end(self, ev):
                clock._depth -= 1
                if clock._depth == 0:
                    clock.total += time.perf_counter() - clock._t0

        self._listener = _Listener()
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc):
        from numba.core import event

        event.unregister("numba:compile", self._listener)
        return False

    def take(self):
        """Seconds compiled since the last call (float)."""
        new, self._taken = self.total - self._taken, self.total
        return new
