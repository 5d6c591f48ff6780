"""``bandsim reproduce`` and ``bandsim sweep``: the papers' figures and TOML studies."""
from pathlib import Path

from ..studies import bai_figure as fig57
from ..errors import ConfigError, check_int
from ..runner import MAX_HORIZON
from ..studies.figures import FIGURES
from ..studies.reproduce import figure_jobs, reproduce
from ..studies.sweep import read_study, run_study
from . import bai
from .bai import rows_table
from .common import SUMMARY_COLUMNS, command, one_int, plain, summary_table, wide_console
from .results import formats
from .run import check_cost

#: Runs of a job that does not set them (:func:`bandsim.simulate`'s default).
RUNS = 1000


#: Larger studies print one line, not a table (``bandsim results DIR`` shows it).
MAX_TABLE_ROWS = 200


def add_parsers(sub):
    """Register ``bandsim reproduce`` and ``bandsim sweep``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``bandsim`` subcommands.
    """
    rep = sub.add_parser("reproduce", help="simulate and plot one of the papers' figures")
    rep.add_argument("figure", help="figure name (see `bandsim list`)")
    rep.add_argument("--out", required=True, help="output directory")
    rep.add_argument("--runs", type=one_int, default=None, help="override the paper's runs")
    rep.add_argument("--horizon", type=one_int, default=None, help="override the paper's T")
    rep.add_argument("--seed", type=one_int, default=1)
    rep.add_argument("--yes", action="store_true",
                     help="run even if the cost model estimates more than a day of work")
    rep.add_argument("--instance-file", default=None, help="instance file for real-data panels")
    rep.add_argument("--threads", type=one_int, default=None)
    _backend_args(rep)

    sw = sub.add_parser("sweep", help="run a grid of simulations from a TOML study file")
    sw.add_argument("study", help="STUDY.toml (see docs/sweeps.md)")
    sw.add_argument("--out", required=True, help="output directory")
    sw.add_argument("--verbose", action="store_true", help="one line per finished job")
    sw.add_argument("--verify", action="store_true",
                    help="read and verify every stored result (default: files unchanged since "
                         "they were verified are answered by the directory's index)")
    sw.add_argument("--yes", action="store_true",
                    help="run even if the cost model estimates more than a day of work")
    _backend_args(sw)


def _backend_args(p):
    p.add_argument("--backend", default="local", help="local (default) or dask")
    p.add_argument("--scheduler", default=None,
                   help="Dask scheduler address (default: an in-process cluster)")


def check_backend(args):
    """The backend and the Dask scheduler address, refused with one line if unusable.

    Parameters
    ----------
    args : argparse.Namespace
        ``backend`` and ``scheduler``.

    Raises
    ------
    ConfigError
        Bad input, in one line, before any work.
    """
    if args.backend not in ("local", "dask"):
        raise ConfigError("backend", args.backend, "must be local or dask")
    sched = args.scheduler
    if sched is None:
        return
    if args.backend != "dask":
        raise ConfigError("scheduler", sched, "needs --backend dask")
    addr = sched.split("://", 1)[-1]
    host, _, port = addr.rpartition(":")
    if not (host and port.isdigit()) and not sched.startswith("inproc://"):
        raise ConfigError("scheduler", sched, "must be a Dask scheduler address such as "
                                              "tcp://host:8786 (omit --scheduler for an "
                                              "in-process cluster)")


@command
def cmd_reproduce(args, console):
    """``bandsim reproduce FIGURE --out DIR``: simulate (or resume) and draw a figure."""
    if args.runs is not None:
        args.runs = check_int("runs", args.runs, 1, 10**8)
    if args.horizon is not None:
        args.horizon = check_int("horizon", args.horizon, 2, MAX_HORIZON)
    check_backend(args)
    if args.figure == fig57.NAME:  # stopping times (best-arm identification)
        return _reproduce_bai(args, console)
    if args.figure in FIGURES:  # an unknown figure is refused by reproduce, in one line
        jobs, _ = figure_jobs(FIGURES[args.figure], args.runs, args.horizon, args.seed,
                              args.instance_file, args.threads)
        check_cost([j for _, _, j in jobs], args.yes)
    rows, skipped = reproduce(args.figure, args.out, runs=args.runs, horizon=args.horizon,
                              seed=args.seed, instance_file=args.instance_file,
                              threads=args.threads, console=console,
                              backend=args.backend, scheduler=args.scheduler,
                              overwrite=args.overwrite, dpi=args.dpi, xscale=args.xscale,
                              formats=formats(args), width=args.width)
    for note in skipped:
        console.print(f"[yellow]skipped:[/] {plain(note)}")
    wide_console().print(summary_table(rows, first=("panel", "label")))
    out = Path(args.out)  # no "figs//name" for --out figs/
    console.print(f"wrote {out / args.figure}.{{{args.format},json}} and "
                  f"{out / args.figure}/*.parquet", highlight=False, soft_wrap=True)
    return 0


def _reproduce_bai(args, console):
    """``bandsim reproduce azize-fig5.7``: :func:`bandsim.studies.bai_figure.reproduce`; exit 0."""
    rows, missing, paths = fig57.reproduce(
        args.out, runs=args.runs, budget=args.horizon, seed=args.seed, threads=args.threads,
        dpi=args.dpi, formats=formats(args),
        progress=lambda m: console.print(plain(m), highlight=False))
    for name in missing:
        console.print(f"[yellow]skipped:[/] {plain(name)} (not declared yet)")
    wide_console().print(rows_table(rows, title=fig57.TITLE))
    console.print("wrote " + ", ".join(plain(p) for p in paths), highlight=False, soft_wrap=True)
    return 0


@command
def cmd_sweep(args, console):
    """``bandsim sweep STUDY.toml --out DIR``: run (or resume) a grid of simulations."""
    check_backend(args)
    if bai.is_bai_study(args.study):  # stopping times: bandsim.cli.bai.sweep
        return bai.sweep(args.study, args.out, console)
    parsed = read_study(args.study)
    check_cost([dict(j, runs=j.get("runs", RUNS)) for j in parsed[1]], args.yes)
    rows = run_study(parsed, args.out, console=console, backend=args.backend,
                     scheduler=args.scheduler, overwrite=args.overwrite, verbose=args.verbose,
                     verify=args.verify)
    swept = [k for k in rows[0] if k not in ("job", "file", "key", "resumed", "seconds")
             and k not in SUMMARY_COLUMNS]  # every swept setting, as a column
    resumed = sum(bool(r["resumed"]) for r in rows)
    if len(rows) <= MAX_TABLE_ROWS:
        wide_console().print(summary_table(rows, first=("job", *swept)))
    console.print(f"{len(rows):,} results in {args.out} ({len(rows) - resumed:,} computed, "
                  f"{resumed:,} resumed) and summary.parquet"
                  + ("" if len(rows) <= MAX_TABLE_ROWS else
                     f"; the table: bandsim results {args.out}"), highlight=False)
    return 0


