"""``bandsim results DIR`` and ``bandsim plot DIR``; study options and Ctrl-C for the CLI.

(:data:`PLOT_HELP` holds the ``--help`` text of each command.)

``bandsim results DIR [--json|--csv|--consolidate] [--per-file] [--allow-missing]``
    One row per result file under DIR (a sweep's or a figure's directory, or
    any folder of ``bandsim run --out`` files): mean final pseudo-regret with
    its 95 % confidence half-width, and every setting that varies between the
    results (ε, δ, s, …) as a column; replicates (same configuration, other
    seeds) are merged into one row with their between-replicate spread
    unless ``--per-file``. Every file is verified (or answered by the
    directory's index); a damaged one is named and the command fails unless
    ``--allow-missing``. ``--json`` prints a strict JSON list (NaN → null),
    ``--csv`` a CSV table, ``--consolidate`` writes ``DIR/consolidated.parquet``.
``bandsim plot DIR [--x PARAM] [--by COLS] [--facet COLS] [--yscale log] [--overlay ...]``
    The mean regret curves of every result under DIR (95 % bands), one panel
    per instance, K, reward model and horizon; with ``--x epsilon`` the final
    regret against ε (95 % error bars), one series per ``--by`` value. See
    :mod:`bandsim.studies.plotdir`. ``--width column|page``, ``--format
    png,pdf,svg``, ``--dpi``.

The command line wires this module in with :func:`add_parsers` (new
subcommands, and the study options ``--overwrite``, ``--dpi``, ``--xscale``,
``--format`` on ``sweep``/``reproduce``) and :data:`DISPATCH`, and turns
Ctrl-C into one line with :func:`interrupted`.
"""
import json
import shlex
import sys
from pathlib import Path

from .. import confidence
from ..atomic import probe
from ..errors import ConfigError
from ..studies.plotdir import plot_rows
from ..studies.plots import FORMATS, check_figure_options, check_out_file
from ..studies.store import dumps, result_files
from ..studies.tables import (JOB_COLUMNS, STATISTICS, aggregate,  # noqa: F401 (re-exported)
                              collect, consolidate, partial_text)
from ..studies.bai_study import holds_bai
from .bai import bai_plot, bai_results
from .common import command, csv_text, plain, wide_console

#: ``--help`` descriptions of ``results`` and ``plot``.
PLOT_HELP = {
    "results": "One row per result file under DIR: mean final pseudo-regret with its 95 % "
               "confidence half-width and every setting that varies between the results.\n"
               "--json prints a strict JSON list (NaN -> null), --csv a CSV table; the "
               "columns are documented in docs/results.md.",
    "plot": "Draw every result under DIR: regret curves against t (one panel per instance, "
            "K, reward model and horizon), or with --x PARAM the final regret against a "
            "swept setting with 95 % error bars (--by: series, --facet: panels).\n"
            "Legends sit outside the panels, sorted numerically; the title states T and the "
            "runs simulated, the footer the seed and bandsim version.\n"
            "--overlay lai-robbins,dp-lower adds the asymptotic lower bounds of Lai & Robbins "
            "(1985) and, under ε-DP, of Azize & Basu (NeurIPS 2022, Theorem 3) for fixed "
            "Bernoulli instances.",
}


def add_parsers(sub):
    """Add ``results`` and ``plot`` to the ``bandsim`` subparsers, and study options.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``bandsim`` subcommands.
    """
    res = sub.add_parser("results", help="summary table of a sweep or figure directory")
    res.add_argument("dir", help="a directory written by sweep, reproduce or run --out")
    fmt = res.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print a JSON list of rows")
    fmt.add_argument("--csv", action="store_true", help="print CSV")
    fmt.add_argument("--consolidate", action="store_true",
                     help="write DIR/consolidated.parquet: every run of every result, one "
                          "dataset for DuckDB/pandas/polars (docs/results.md)")
    res.add_argument("--per-file", action="store_true",
                     help="one row per file (default: replicates merged, with their spread)")
    res.add_argument("--verify", action="store_true",
                     help="read and verify every file (default: files unchanged since they "
                          "were verified are answered by the directory's index)")
    res.add_argument("--allow-missing", action="store_true",
                     help="skip damaged or unreadable result files (each named) instead of "
                          "failing")

    plot = sub.add_parser("plot", help="regret curves, or final regret against a parameter, "
                                       "of every result in a directory")
    plot.add_argument("dir", help="a directory written by sweep, reproduce or run --out")
    plot.add_argument("--out", default=None,
                      help="figure file (default DIR/plot.png; other formats beside it)")
    plot.add_argument("--time-average", action="store_true", help="plot Reg(t)/t")
    plot.add_argument("--x", default=None, metavar="PARAM",
                      help="final regret against this setting (epsilon, scale, arms, ...)")
    plot.add_argument("--by", default=None, metavar="COLS",
                      help="one series per value of these columns (default: algorithm and "
                           "every other varying setting)")
    plot.add_argument("--facet", default=None, metavar="COLS",
                      help="one panel per value of these columns (default: instance, arms, "
                           "rewards, horizon)")
    plot.add_argument("--yscale", default="linear", choices=("linear", "log"))
    plot.add_argument("--overlay", default=None, metavar="NAMES",
                      help="theory overlays for fixed Bernoulli instances: lai-robbins, "
                           "dp-lower (comma list)")
    plot.add_argument("--allow-missing", action="store_true",
                      help="skip damaged or unreadable result files (each named)")
    _figure_args(plot, xscale_default=None)

    for name in ("sweep", "reproduce"):
        p = sub.choices.get(name)
        if p is not None:
            p.add_argument("--overwrite", action="store_true",
                           help="recompute stored results of another configuration "
                                "instead of refusing")
    if "reproduce" in sub.choices:
        _figure_args(sub.choices["reproduce"])


def _figure_args(p, xscale_default="linear"):
    p.add_argument("--dpi", type=int, default=300, help="PNG resolution, 10-2400 (default 300)")
    p.add_argument("--xscale", default=xscale_default, choices=("linear", "log"),
                   help="x axis (default: linear for regret curves, as the papers; log for "
                        "--x over a factor of 10 or more)")
    p.add_argument("--format", default="png",
                   help="figure formats, comma-separated among png, pdf, svg (default png; "
                        "vector pdf/svg for a paper cost ~0.5 s each)")
    p.add_argument("--width", default=None, choices=("column", "page"),
                   help="fit one column (3.5 in) or the page width (7 in) of a two-column "
                        "paper (default: 4 in per panel)")


def formats(args):
    """The ``--format`` list, validated.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    tuple of str

    Raises
    ------
    ConfigError
        An unknown or empty format list.
    """
    out = tuple(f.strip().lower() for f in args.format.split(",") if f.strip())
    bad = [f for f in out if f not in FORMATS]
    if bad or not out:
        raise ConfigError("format", args.format, f"must be a comma list of {', '.join(FORMATS)}")
    return out


# ----------------------------------------------------------------------------- results

def varying(rows, columns):
    """The columns among ``columns`` whose value is not the same in every row.

    Parameters
    ----------
    rows : list of dict
    columns : sequence of str

    Returns
    -------
    list of str
    """
    return [c for c in columns if len({json.dumps(r.get(c)) for r in rows}) > 1]


def _table_spec(rows, partial=None):
    """Title, caption, headers, left-justified flags and cells of the results table
    (``partial``: "k of n jobs" of a partial study, stated in the title)."""
    fixed = ("algorithm", "instance", "arms")
    skip = set(fixed) | set(STATISTICS) | set(JOB_COLUMNS) | {
        "file", "key", "version", "job", "panel", "label", "replicate_sd"}
    cols = [c for c in rows[0] if c not in skip]
    show = varying(rows, cols)
    same = {c: rows[0][c] for c in cols if c not in show and rows[0][c] is not None}
    over = ("replicates" if any((r.get("replicates") or 1) > 1 for r in rows) else "runs")
    title = f"final pseudo-regret (mean ± 95% CI over {over})"
    if partial:
        title = f"PARTIAL STUDY, {partial} done: {title}"
    caption = "\n".join(x for x in (", ".join(f"{k}={_fmt(v)}" for k, v in same.items()),
                                     confidence.mixed(rows)) if x) or None
    lead = [c for c in ("panel", "label", "job") if c in rows[0]]
    headers = lead + list(fixed) + show + ["regret", "Reg(T)/T", "file"]
    left = [c in lead + ["algorithm", "instance", "file"] for c in headers]
    cells = [[_fmt(r[c]) for c in lead + list(fixed) + show]
             + [f"{r['regret_mean']:,.1f} ± {_fmt(r['regret_ci95'], ',.1f')}",
                f"{r['time_avg_regret_mean']:.3g}", r["file"]] for r in rows]
    return title, caption, headers, left, cells


def results_table(rows, partial=None):
    """A rich table: fixed columns, then every setting that varies between rows.

    Parameters
    ----------
    rows : list of dict
        From :func:`collect`.
    partial : str, optional
        "k of n jobs" of a partial study (:func:`bandsim.studies.tables.partial_text`),
        stated in the title.

    Returns
    -------
    rich.table.Table
    """
    from rich.table import Table

    title, caption, headers, left, cells = _table_spec(rows, partial)
    t = Table(title=title, caption=plain(caption) if caption else None)
    for c, lj in zip(headers, left):
        t.add_column(c, justify="left" if lj else "right")
    for row in cells:
        t.add_row(*map(plain, row))
    return t


#: More rows than this are printed as plain aligned text (rich renders ~1 ms a row).
PLAIN_ROWS = 1000


def plain_table(rows, partial=None):
    """The results table as plain aligned text (any number of rows, fast).

    Parameters
    ----------
    rows : list of dict
        From :func:`bandsim.studies.tables.collect` (or merged by ``aggregate``).
    partial : str, optional
        As :func:`results_table`.

    Returns
    -------
    str
        The title, the header and one line per row, columns padded to width.
    """
    title, caption, headers, left, cells = _table_spec(rows, partial)
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]

    def line(vals):
        return "  ".join(v.ljust(w) if lj else v.rjust(w)
                         for v, w, lj in zip(vals, widths, left)).rstrip()

    out = [title, line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    if caption:
        out.append(caption)
    return "\n".join(out) + "\n"


def _fmt(v, spec="g"):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "nan" if v != v else format(v, spec)
    return str(v)


def warn_partial(console, directory, rows):
    """Print "warning: DIR is a partial study: k of n jobs done" (stderr) when it is one;
    return the "k of n jobs" text or None.

    Parameters
    ----------
    console : rich.console.Console
    directory : path
    rows : bandsim.studies.tables.Rows
        From :func:`collect`.

    Returns
    -------
    str or None
    """
    partial = partial_text(rows.studies) if getattr(rows, "studies", None) else None
    if partial:
        console.print(f"[yellow]warning:[/] {plain(str(directory))} is a partial study: "
                      f"{plain(partial)} done; what follows covers only those (rerun the study "
                      "to complete it)", highlight=False, soft_wrap=True)
    return partial


@command
def cmd_results(args, console):
    if holds_bai(args.dir):  # stopping times, not regret
        return bai_results(args, console)
    if args.consolidate:
        probe(args.dir, "dir")  # a full or read-only disk is refused before the files are read
        path, n, rows = consolidate(args.dir, allow_missing=args.allow_missing,
                                    warn=lambda m: console.print(
                                        f"[yellow]warning:[/] {plain(m)}", highlight=False),
                                    with_rows=True)
        warn_partial(console, args.dir, rows)
        console.print(f"wrote {path} ({n:,} runs)", highlight=False)
        return 0
    rows = collect(args.dir, allow_missing=args.allow_missing, full=args.verify,
                   warn=lambda m: console.print(f"[yellow]warning:[/] {plain(m)}",
                                                highlight=False))
    partial = warn_partial(console, args.dir, rows)
    if not args.per_file:
        rows = aggregate(rows)
        if all(r["replicates"] == 1 for r in rows):
            rows = [{k: v for k, v in r.items() if k not in ("replicates", "replicate_sd")}
                    for r in rows]
    if args.json:
        print(dumps(rows, indent=2))
    elif args.csv:
        sys.stdout.write(csv_text(rows))
    elif len(rows) > PLAIN_ROWS:
        sys.stdout.write(plain_table(rows, partial))
    else:
        wide_console().print(results_table(rows, partial))
    return 0


# ----------------------------------------------------------------------------- plot

def plot_directory(directory, out=None, *, time_average=False, xscale=None, yscale="linear",
                   dpi=300, formats=("png", "pdf"), x=None, by=None, facet=None, width=None,
                   overlay=(), allow_missing=False, warn=None):
    """Draw every result under ``directory`` (:mod:`bandsim.studies.plotdir`).

    Parameters
    ----------
    directory : path
        A sweep's, a figure's or any folder of result files.
    out : path, optional
        Figure file (default ``DIR/plot.png`` and the other formats beside it).
    time_average : bool
        Reg(t)/t instead of Reg(t).
    xscale, yscale : {"linear", "log"}, optional
    dpi : int
        PNG resolution, in :data:`bandsim.studies.plots.DPI_RANGE`.
    formats : sequence of str
        Among ``png``, ``pdf``, ``svg``.
    x : str, optional
        Plot final regret against this setting instead of curves against t.
    by, facet : str, optional
        Comma lists of columns: series and panels.
    width : {"column", "page"}, optional
    overlay : sequence of str
        Theory overlays (:data:`bandsim.studies.plotdir.OVERLAYS`).
    allow_missing : bool
        Skip damaged result files (each named through ``warn``) instead of failing.
    warn : callable(str), optional
        Receives one line per skipped file, and one if the study is partial
        (its figure's title then says "PARTIAL STUDY: k of n jobs").

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    ConfigError
        Bad options or output path, or a directory without results (before drawing).
    """
    check_figure_options(dpi, formats, width)
    d = Path(directory)
    target = Path(out) if out else d / "plot.png"
    if out is not None:
        check_out_file(out)
    rows = collect(d, allow_missing=allow_missing, warn=warn)
    partial = partial_text(rows.studies) if rows.studies else None
    if partial and warn is not None:
        warn(f"{d} is a partial study: {partial} done; the figure shows only those and says so")
    files = {str(f.relative_to(d)): f for f in result_files(d)}
    return plot_rows(rows, files, target, x=x, by=by, facet=facet, time_average=time_average,
                     xscale=xscale, yscale=yscale, overlay=overlay, dpi=dpi, formats=formats,
                     width=width, partial=partial, warn=warn)


@command
def cmd_plot(args, console):
    """``bandsim plot DIR``: draw, then print the files written (one line)."""
    if holds_bai(args.dir):  # τ against ε or δ, with the lower bounds
        return bai_plot(args, console, formats(args))
    overlay = tuple(o.strip() for o in (args.overlay or "").split(",") if o.strip())
    paths = plot_directory(args.dir, args.out, time_average=args.time_average,
                           xscale=args.xscale, yscale=args.yscale, dpi=args.dpi,
                           formats=formats(args), x=args.x, by=args.by, facet=args.facet,
                           width=args.width, overlay=overlay,
                           allow_missing=args.allow_missing,
                           warn=lambda m: console.print(f"[yellow]warning:[/] {plain(m)}",
                                                        highlight=False))
    console.print("wrote " + ", ".join(plain(p) for p in paths), soft_wrap=True)
    return 0


DISPATCH = {"results": cmd_results, "plot": cmd_plot}


# ----------------------------------------------------------------------------- Ctrl-C

def interrupted(exc, argv, console):
    """Print what an interrupted command leaves behind in one line; return 130.

    Parameters
    ----------
    exc : KeyboardInterrupt
        With ``done``, ``total``, ``left`` when a study was interrupted.
    argv : list of str or None
        The command line (None: ``sys.argv``).
    console : rich.console.Console

    Returns
    -------
    int
        130.
    """
    command = shlex.join(["bandsim", *(sys.argv[1:] if argv is None else argv)])
    done = getattr(exc, "done", None)
    if done is None:
        console.print("interrupted; nothing was left half-written. Run again: " + command,
                      soft_wrap=True)
    elif argv_command(argv) == "run":
        console.print(f"interrupted: {done} of {exc.total} jobs done, {exc.left} left; "
                      f"bandsim run keeps no partial grid, run again: {command}", soft_wrap=True)
    else:
        console.print(f"interrupted: {done} of {exc.total} jobs done, {exc.left} left; "
                      f"resume with: {command}", soft_wrap=True)
    return 130


def failed(exc, argv, console):
    """Print a study stopped by its surroundings (full disk, lost scheduler, …) in one line.

    Parameters
    ----------
    exc : bandsim.studies.store.StudyFailed
        What stopped it: ``reason``, jobs ``done``, ``left`` and ``total``.
    argv : list of str or None
        The command line (None: ``sys.argv``), repeated as the command that resumes.
    console : rich.console.Console
        Where the line goes (standard error).

    Returns
    -------
    int
        Exit status 1.
    """
    command = shlex.join(["bandsim", *(sys.argv[1:] if argv is None else argv)])
    console.print(f"[bold red]error:[/] {plain(exc.reason)}: {exc.done} of {exc.total} jobs done, "
                  f"{exc.left} left (stored results are intact); fix it and resume with: "
                  f"{plain(command)}", soft_wrap=True, highlight=False)
    return 1


def argv_command(argv):
    """The subcommand of a command line.

    Parameters
    ----------
    argv : list of str or None
        None: ``sys.argv[1:]``.

    Returns
    -------
    str or None
    """
    args = sys.argv[1:] if argv is None else argv
    return next((a for a in args if not a.startswith("-")), None)
