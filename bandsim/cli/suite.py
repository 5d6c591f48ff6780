"""``bandsim suite``: run the standard set and print the audited leaderboard.

``--quick`` (the default) prints a board in under a minute on one core;
``--full`` is the published board (hours). Files go to ``--out DIR``
(default ``suite-<version>[-quick]``); ``--compare OLD_DIR`` shows what
moved against a previous board. ``--backend local|dask`` (the default for
``--full``: local) runs one task per configuration through the results store in
``OUT/results``: a killed board resumes where it stopped; ``--dry-run`` prints
what the tier costs. See docs/suite.md.
"""
from ..errors import ConfigError
from ..studies import bai_board, board_compare
from ..studies import leaderboard as lb
from ..studies.plots import check_out_dir
from ..studies.jobs import BACKENDS, local_cores
from ..studies.suite import SUITE_VERSION, run_suite, tier_cost
from ..studies.suite_run import run_suite_stored
from .common import command, one_int, plain, registers, wide_console


@registers
def add_parser(sub):
    """Register ``bandsim suite``."""
    p = sub.add_parser("suite", help="the private-bandit benchmark and its audited leaderboard")
    tier = p.add_mutually_exclusive_group()
    tier.add_argument("--quick", dest="tier", action="store_const", const="quick",
                      help="a subset that runs in under a minute (default)")
    tier.add_argument("--full", dest="tier", action="store_const", const="full",
                      help="the published board (1,000 runs; hours)")
    p.set_defaults(tier="quick")
    p.add_argument("--out", default=None,
                   help="output directory (default suite-<version>, -quick for --quick)")
    p.add_argument("--compare", default=None, metavar="OLD_DIR",
                   help="a previous board's directory: show what moved")
    p.add_argument("--algorithms", default=None,
                   help="only these algorithms, comma-separated (a non-standard board)")
    p.add_argument("--runs", type=one_int, default=None,
                   help="override the tier's runs (a non-standard board)")
    p.add_argument("--threads", type=one_int, default=None,
                   help="worker threads (default: the cores this process may use)")
    p.add_argument("--cells", dest="cells", action="store_true", default=None,
                   help="print every cell's table (default: when there are at most 200 rows)")
    p.add_argument("--no-cells", dest="cells", action="store_false",
                   help="print only the boards")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar")
    p.add_argument("--backend", choices=BACKENDS, default=None,
                   help="run one task per configuration through the results store in "
                        "OUT/results (resumable; default for --full: local)")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="Dask scheduler address (default: a local cluster of this machine's "
                        "cores)")
    p.add_argument("--overwrite", action="store_true",
                   help="recompute stored results of another configuration instead of refusing")
    p.add_argument("--dry-run", action="store_true",
                   help="print what the tier costs (core-hours by the declared run costs) "
                        "and exit")
    return p


def print_cost(term, tier, algorithms):
    """The ``--dry-run`` table: core-hours per algorithm × T and in total.

    Parameters
    ----------
    term : rich.console.Console
    tier : str
    algorithms : list of str or None
    """
    from rich.table import Table

    rows = tier_cost(tier, algorithms)
    t = Table(title=f"bandsim suite {SUITE_VERSION}, {tier} tier: cost by the declared run "
                    "costs (one core)")
    for c in ("algorithm", "engine", "cost unit", "T", "configurations", "runs each",
              "core-hours", "costliest (h)"):
        t.add_column(c, justify="left" if c in ("algorithm", "engine", "cost unit") else "right")
    for r in rows:
        t.add_row(r["algorithm"], r["engine"], r["unit"], f"{r['horizon']:.0e}",
                  f"{r['configurations']:,}", ", ".join(f"{n:,}" for n in r["runs"]),
                  f"{r['core_hours']:,.2f}", f"{r['max_hours']:,.2f}")
    term.print(t)
    total = sum(r["core_hours"] for r in rows)
    n = sum(r["configurations"] for r in rows)
    term.print(f"total: {n:,} configurations, {total:,.1f} core-hours "
               f"(≈ {total / local_cores():,.1f} h on this machine's {local_cores()} core(s))",
               highlight=False)


@command
def cmd_suite(args, console):
    """``bandsim suite``: run the benchmark suite and print its leaderboard."""
    algorithms = None
    if args.algorithms is not None:
        algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        if not algorithms:
            raise ConfigError("algorithms", args.algorithms, "give at least one algorithm name")
    algorithms, identification = bai_board.split(algorithms)  # regret / best-arm identification
    out = args.out or f"suite-{SUITE_VERSION}" + ("-quick" if args.tier == "quick" else "")
    if algorithms == []:  # only identification names: the BAI board alone, never an empty one
        return _identification_only(args, console, out, identification)
    old = lb.read(args.compare) if args.compare is not None else None  # fail before any work
    term = wide_console()
    if args.dry_run:
        print_cost(term, args.tier, algorithms)
        return 0
    check_out_dir(out)  # a file, a full or read-only disk: refused before the suite runs
    backend = args.backend or ("dask" if args.scheduler else "local" if args.tier == "full" else None)
    if args.scheduler and backend != "dask":
        raise ConfigError("scheduler", args.scheduler, "needs --backend dask")
    if backend is None:
        rows, meta = run_suite(args.tier, algorithms=algorithms, runs=args.runs,
                               threads=args.threads, console=console, progress=args.progress)
    else:
        rows, meta = run_suite_stored(args.tier, out, algorithms=algorithms, runs=args.runs,
                                      backend=backend, scheduler=args.scheduler,
                                      threads=args.threads, console=console,
                                      progress=args.progress, overwrite=args.overwrite)
    lb.rank_rows(rows)
    board = lb.board_rows(rows)
    bai = bai_board.board(args.tier, identification, args.runs, args.threads)
    paths = lb.write(out, rows, board, meta, bai=bai)
    show_cells = args.cells if args.cells is not None else len(rows) <= 200
    term.print(f"[bold]{lb.title_of(meta)}[/]")
    for line in lb.header_lines(meta, rows):
        term.print(plain(line), highlight=False)
    for table in lb.rich_tables(lb.sections(rows, board, meta, cells=show_cells)):
        term.print(table)
    term.print(lb.LEGEND, style="dim", highlight=False)
    if old is not None:
        secs, counts = board_compare.compare(old, rows, board, meta, label=str(args.compare))
        for table in lb.rich_tables(secs):
            term.print(table)
        path = board_compare.write_compare(out, secs, counts, str(args.compare))
        term.print(f"{board_compare.summary(counts)} ({path})", highlight=False)
        for note in counts["notes"]:
            term.print(f"[yellow]note:[/] {plain(note)}", highlight=False)
    console.print(f"wrote {', '.join(p.name for p in paths.values())} to {out}",
                  highlight=False)
    status = 0
    if meta["errors"]:
        console.print(f"[bold red]{len(meta['errors'])} configuration(s) failed[/] "
                      "(see the Skipped table and suite.json)")
        status = 1
    status |= bai_board.report(bai, out, console, term)
    failed = sorted({b["algorithm"] for b in board if b.get("failed")})
    if failed:
        console.print(f"[bold red]privacy audit FAILed[/] for {plain(', '.join(failed))}: "
                      "not ranked (see the \"failed audit\" table)", highlight=False)
        status = 1
    return status


def _identification_only(args, console, out, names):
    """``--algorithms`` naming best-arm identification algorithms only: their board alone
    (no regret board); a regret-board flag is refused in one line, before any work."""
    for dest, flag in (("compare", "--compare"), ("backend", "--backend"),
                       ("scheduler", "--scheduler")):
        if getattr(args, dest, None) is not None:
            raise ConfigError(dest, getattr(args, dest), f"{flag} is for the regret board; "
                                                         f"--algorithms {args.algorithms} names "
                                                         "best-arm identification algorithms only")
    term = wide_console()
    if args.dry_run:
        term.print(f"no regret configurations: --algorithms names best-arm identification "
                   f"algorithms only ({', '.join(names)}); their board: C1–C4, K = 5, δ = 0.01, "
                   "ε ∈ {0.1, 1} (no declared run cost)", highlight=False)
        return 0
    check_out_dir(out)
    console.print(f"regret board: not run (--algorithms names best-arm identification "
                  f"algorithms only: {', '.join(names)})", highlight=False)
    return bai_board.run(args.tier, out, console, names, args.runs, args.threads, term)
