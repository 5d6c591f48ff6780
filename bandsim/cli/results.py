"""``bandsim results DIR`` and ``bandsim plot DIR``; study options and Ctrl-C for the CLI.

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
``bandsim plot DIR [--out FILE] [--xscale log|linear] [--dpi N] [--time-average]``
    The mean regret curves of every result under DIR (95 % bands), one panel
    per instance, K, reward model and horizon, written as PNG and PDF.

The command line wires this module in with :func:`add_parsers` (new
subcommands, and the study options ``--overwrite``, ``--dpi``, ``--xscale``,
``--format`` on ``sweep``/``reproduce``) and :data:`DISPATCH`, and turns
Ctrl-C into one line with :func:`interrupted`.
"""
import csv
import io
import json
import shlex
import sys
from pathlib import Path

from ..errors import ConfigError
from ..studies.plots import figure_grid, plot_curve, round_axis, save
from ..studies.store import dumps, load_outcome
from ..studies.tables import BASE_COLUMNS, aggregate, collect, consolidate  # noqa: F401
from .common import wide_console


def add_parsers(sub):
    """Add ``results`` and ``plot`` to the ``bandsim`` subparsers, and study options."""
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

    plot = sub.add_parser("plot", help="regret curves of every result in a directory")
    plot.add_argument("dir")
    plot.add_argument("--out", default=None, help="figure file (default DIR/plot.png and .pdf)")
    plot.add_argument("--time-average", action="store_true", help="plot Reg(t)/t")
    plot.add_argument("--allow-missing", action="store_true",
                      help="skip damaged or unreadable result files (each named)")
    _figure_args(plot)

    for name in ("sweep", "reproduce"):
        p = sub.choices.get(name)
        if p is not None:
            p.add_argument("--overwrite", action="store_true",
                           help="recompute stored results of another configuration "
                                "instead of refusing")
    if "reproduce" in sub.choices:
        _figure_args(sub.choices["reproduce"])


def _figure_args(p):
    p.add_argument("--dpi", type=int, default=300, help="PNG resolution (default 300)")
    p.add_argument("--xscale", default="linear", choices=("linear", "log"),
                   help="x axis of regret curves (default linear, as the papers)")
    p.add_argument("--format", default="png,pdf",
                   help="figure formats, comma-separated (default png,pdf)")


def formats(args):
    """The ``--format`` list, validated."""
    out = tuple(f.strip().lower() for f in args.format.split(",") if f.strip())
    bad = [f for f in out if f not in ("png", "pdf", "svg")]
    if bad or not out:
        raise ConfigError("format", args.format, "must be a comma list of png, pdf, svg")
    return out


# ----------------------------------------------------------------------------- results

def varying(rows, columns):
    """The columns among ``columns`` whose value is not the same in every row."""
    return [c for c in columns if len({json.dumps(r.get(c)) for r in rows}) > 1]


def _table_spec(rows):
    """Title, caption, headers, left-justified flags and cells of the results table."""
    fixed = ("algorithm", "instance", "arms")
    skip = set(fixed) | {"mean_regret", "ci95", "median_regret", "time_avg_regret", "file",
                         "key", "version", "job", "panel", "label", "replicate_sd"}
    cols = [c for c in rows[0] if c not in skip]
    show = varying(rows, cols)
    same = {c: rows[0][c] for c in cols if c not in show and rows[0][c] is not None}
    over = ("replicates" if any((r.get("replicates") or 1) > 1 for r in rows) else "runs")
    title = f"final pseudo-regret (mean ± 95% CI over {over})"
    caption = ", ".join(f"{k}={_fmt(v)}" for k, v in same.items()) or None
    lead = [c for c in ("panel", "label", "job") if c in rows[0]]
    headers = lead + list(fixed) + show + ["regret", "Reg(T)/T", "file"]
    left = [c in lead + ["algorithm", "instance", "file"] for c in headers]
    cells = [[_fmt(r[c]) for c in lead + list(fixed) + show]
             + [f"{r['mean_regret']:,.1f} ± {_fmt(r['ci95'], ',.1f')}",
                f"{r['time_avg_regret']:.3g}", r["file"]] for r in rows]
    return title, caption, headers, left, cells


def results_table(rows):
    """A rich table: fixed columns, then every setting that varies between rows."""
    from rich.table import Table

    title, caption, headers, left, cells = _table_spec(rows)
    t = Table(title=title, caption=caption)
    for c, lj in zip(headers, left):
        t.add_column(c, justify="left" if lj else "right")
    for row in cells:
        t.add_row(*row)
    return t


#: More rows than this are printed as plain aligned text (rich renders ~1 ms a row).
PLAIN_ROWS = 1000


def plain_table(rows):
    """The results table as plain aligned text (any number of rows, fast)."""
    title, caption, headers, left, cells = _table_spec(rows)
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


def cmd_results(args, console):
    if args.consolidate:
        path, n = consolidate(args.dir, allow_missing=args.allow_missing,
                              warn=lambda m: console.print(f"[yellow]warning:[/] {m}",
                                                           highlight=False))
        console.print(f"wrote {path} ({n:,} runs)", highlight=False)
        return 0
    rows = collect(args.dir, allow_missing=args.allow_missing, full=args.verify,
                   warn=lambda m: console.print(f"[yellow]warning:[/] {m}", highlight=False))
    if not args.per_file:
        rows = aggregate(rows)
        if all(r["replicates"] == 1 for r in rows):
            rows = [{k: v for k, v in r.items() if k not in ("replicates", "replicate_sd")}
                    for r in rows]
    if args.json:
        print(dumps(rows, indent=2))
    elif args.csv:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})
        sys.stdout.write(buf.getvalue())
    elif len(rows) > PLAIN_ROWS:
        sys.stdout.write(plain_table(rows))
    else:
        wide_console().print(results_table(rows))
    return 0


# ----------------------------------------------------------------------------- plot

def plot_directory(directory, out=None, *, time_average=False, xscale="linear", dpi=300,
                   formats=("png", "pdf"), allow_missing=False, warn=None):
    """Draw every result under ``directory``: one panel per instance, K, rewards and T.

    Returns
    -------
    list of Path
        The files written.
    """
    d = Path(directory)
    rows = collect(d, allow_missing=allow_missing, warn=warn)
    groups = {}
    for r in rows:
        g = (r["instance"], r["arms"], r["rewards"], r["horizon"])
        groups.setdefault(g, []).append(r)
    fig, axes = figure_grid(len(groups))
    params = [c for c in rows[0] if c not in BASE_COLUMNS and c not in ("panel", "label", "job")]
    settings = ["epsilon", "seed", "runs", *params]
    for ax, (g, members) in zip(axes, groups.items()):
        for i, r in enumerate(members):
            o = load_outcome(d / r["file"])
            same_algo = [m for m in members if m["algorithm"] == r["algorithm"]]
            label = r.get("label") or " ".join(
                [r["algorithm"]] + [f"{_SHORT.get(c, c)}={_fmt(r[c])}"
                                    for c in varying(same_algo, settings)])
            plot_curve(ax, o.checkpoints, o.mean, o.half95, label=label, index=i,
                       time_average=time_average, xscale=xscale)
        round_axis(ax, xscale)
        inst, k, rewards, T = g
        common = [c for c in settings if c not in varying(members, [c])
                  and members[0][c] is not None and c in ("epsilon", "seed")]
        extra = "".join(f", {_SHORT.get(c, c)} = {_fmt(members[0][c])}" for c in common)
        ax.set_title(f"{inst}, K = {k}, {rewards}, T = {T:.3g}{extra}", fontsize=9)
        ax.set_xlabel("t")
        ax.set_ylabel("Reg(t)/t" if time_average else "Pseudo-regret")
        ax.grid(True, linewidth=0.4, alpha=0.5)
        ax.legend(fontsize=7, frameon=False)
    return save(fig, Path(out) if out else d / "plot.png", dpi=dpi, formats=formats)


_SHORT = {"epsilon": "ε", "delta": "δ", "scale": "s", "beta": "β", "growth": "η"}


def cmd_plot(args, console):
    paths = plot_directory(args.dir, args.out, time_average=args.time_average,
                           xscale=args.xscale, dpi=args.dpi, formats=formats(args),
                           allow_missing=args.allow_missing,
                           warn=lambda m: console.print(f"[yellow]warning:[/] {m}",
                                                        highlight=False))
    console.print("wrote " + ", ".join(str(p) for p in paths))
    return 0


DISPATCH = {"results": cmd_results, "plot": cmd_plot}


# ----------------------------------------------------------------------------- Ctrl-C

def interrupted(exc, argv, console):
    """Print what an interrupted command leaves behind in one line; return 130."""
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
    """Print a study stopped by its surroundings in one line; return 1."""
    command = shlex.join(["bandsim", *(sys.argv[1:] if argv is None else argv)])
    console.print(f"[bold red]error:[/] {exc.reason}: {exc.done} of {exc.total} jobs done, "
                  f"{exc.left} left (stored results are intact); fix it and resume with: "
                  f"{command}", soft_wrap=True, highlight=False)
    return 1


def argv_command(argv):
    args = sys.argv[1:] if argv is None else argv
    return next((a for a in args if not a.startswith("-")), None)
