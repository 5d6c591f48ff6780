"""``bandsim results DIR`` and ``bandsim plot DIR``; study options and Ctrl-C for the CLI.

(:data:`PLOT_HELP` holds the ``--help`` text of each command.)

``bandsim results DIR [--json|--csv]``
    One row per result file under DIR (a sweep's or a figure's directory, or
    any folder of ``bandsim run --out`` files): mean final pseudo-regret with
    its 95 % confidence half-width, and every setting that varies between the
    results (ε, δ, s, …) as a column. ``--json`` prints a strict JSON list
    (NaN → null), ``--csv`` a CSV table.
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
import csv
import io
import json
import shlex
import sys
from pathlib import Path

from ..errors import ConfigError
from ..results import Result
from ..studies.plotdir import plot_rows
from ..studies.plots import FORMATS, check_figure_options, check_out_file
from ..studies.store import dumps, identity_of, key, result_files
from .common import command, plain, wide_console

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

#: The statistics of the final pseudo-regret, named as in ``Result.summary()``,
#: ``run --json``, ``summary.json``/``summary.parquet`` and the suite
#: (docs/results.md, "One vocabulary").
STATISTICS = ("regret_mean", "regret_ci95", "regret_median", "time_avg_regret_mean",
              "time_avg_regret_ci95")
#: Columns every row of ``bandsim results`` has, in order.
BASE_COLUMNS = ("algorithm", "instance", "arms", "rewards", "sigma", "epsilon", "horizon",
                "runs", "seed", "regret_mean", "regret_ci95", "regret_median",
                "time_avg_regret_mean", "time_avg_regret_ci95", "version", "file", "key")


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

def collect(directory):
    """Summary rows of every result file under ``directory``.

    Parameters
    ----------
    directory : path
        A sweep's or figure's directory, or any folder of result files.

    Returns
    -------
    list of dict
        :data:`BASE_COLUMNS` plus one column per algorithm parameter found
        (None where an algorithm does not take it) plus ``label``/``panel``
        (figures) or ``job`` (sweeps) when the directory's JSON names them.

    Raises
    ------
    ConfigError
        ``directory`` does not exist or holds no readable result.
    """
    d = Path(directory)
    if not d.is_dir():
        raise ConfigError("dir", str(directory), "is not a directory")
    names = _names_from_json(d)
    rows, bad = [], []
    for f in result_files(d):
        try:
            res = _read(f)
        except ValueError:
            bad.append(f)
            continue
        s = res.summary()
        ident = identity_of(res.config, res.checkpoints, res.versions)
        row = dict(algorithm=s["algorithm"], instance=s["instance"], arms=s["arms"],
                   rewards=res.config.get("rewards"), sigma=res.config.get("sigma"),
                   epsilon=s["epsilon"], horizon=s["horizon"], runs=s["runs"],
                   seed=res.config.get("seed"),
                   **{k: s[k] for k in STATISTICS},
                   version=res.versions.get("bandsim"), file=str(f.relative_to(d)),
                   key=key(ident))
        row["params"] = res.config.get("params", {})
        row.update(names.get(str(f.relative_to(d)), {}))
        rows.append(row)
    if not rows:
        why = f" ({len(bad)} unreadable)" if bad else ""
        raise ConfigError("dir", str(directory), f"holds no bandsim result file{why}")
    params = sorted({k for r in rows for k in r["params"]} - {"epsilon"})
    extra = [c for c in ("panel", "label", "job") if any(c in r for r in rows)]
    out = []
    for r in rows:
        p = r.pop("params")
        row = {c: r.get(c) for c in extra}
        row.update({c: r[c] for c in BASE_COLUMNS[:6]})
        row.update({k: p.get(k) for k in params})
        row.update({c: r[c] for c in BASE_COLUMNS[6:]})
        out.append(row)
    return out


def _read(path):
    try:
        return Result.from_parquet(path)
    except Exception as e:  # noqa: BLE001 - unreadable or foreign file
        raise ValueError(str(e)) from None


def _names_from_json(d):
    """file (relative to d) → panel/label (figure JSON) or job (sweep summary.json)."""
    out = {}
    for j in d.glob("*.json"):
        try:
            data = json.loads(j.read_text())
        except (OSError, ValueError):
            continue
        for r in data.get("rows", []) if isinstance(data, dict) else []:
            if isinstance(r, dict) and r.get("file"):
                out[r["file"]] = {k: r[k] for k in ("panel", "label", "job") if k in r}
    return out


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


def results_table(rows):
    """A rich table: fixed columns, then every setting that varies between rows.

    Parameters
    ----------
    rows : list of dict
        From :func:`collect`.

    Returns
    -------
    rich.table.Table
    """
    from rich.table import Table

    fixed = ("algorithm", "instance", "arms")
    skip = set(fixed) | set(STATISTICS) | {"file", "key", "version", "job", "panel", "label"}
    cols = [c for c in rows[0] if c not in skip]
    show = varying(rows, cols)
    same = {c: rows[0][c] for c in cols if c not in show and rows[0][c] is not None}
    t = Table(title="final pseudo-regret (mean ± 95% CI over runs)",
              caption=plain(", ".join(f"{k}={_fmt(v)}" for k, v in same.items())) or None)
    lead = [c for c in ("panel", "label", "job") if c in rows[0]]
    for c in lead + list(fixed) + show + ["regret", "Reg(T)/T", "file"]:
        t.add_column(c, justify="left" if c in lead + ["algorithm", "instance", "file"]
                     else "right")
    for r in rows:
        t.add_row(*(plain(_fmt(r[c])) for c in lead + list(fixed) + show),
                  f"{r['regret_mean']:,.1f} ± {_fmt(r['regret_ci95'], ',.1f')}",
                  f"{r['time_avg_regret_mean']:.3g}", plain(r["file"]))
    return t


def _fmt(v, spec="g"):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "nan" if v != v else format(v, spec)
    return str(v)


@command
def cmd_results(args, console):
    """``bandsim results DIR``: a table, ``--json`` (a list) or ``--csv`` of the results."""
    rows = collect(args.dir)
    if args.json:
        print(dumps(rows, indent=2))
    elif args.csv:
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})
        sys.stdout.write(buf.getvalue())
    else:
        wide_console().print(results_table(rows))
    return 0


# ----------------------------------------------------------------------------- plot

def plot_directory(directory, out=None, *, time_average=False, xscale=None, yscale="linear",
                   dpi=300, formats=("png", "pdf"), x=None, by=None, facet=None, width=None,
                   overlay=()):
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
    rows = collect(d)
    files = {str(f.relative_to(d)): f for f in result_files(d)}
    return plot_rows(rows, files, target, x=x, by=by, facet=facet, time_average=time_average,
                     xscale=xscale, yscale=yscale, overlay=overlay, dpi=dpi, formats=formats,
                     width=width)


@command
def cmd_plot(args, console):
    """``bandsim plot DIR``: draw, then print the files written (one line)."""
    overlay = tuple(o.strip() for o in (args.overlay or "").split(",") if o.strip())
    paths = plot_directory(args.dir, args.out, time_average=args.time_average,
                           xscale=args.xscale, yscale=args.yscale, dpi=args.dpi,
                           formats=formats(args), x=args.x, by=args.by, facet=args.facet,
                           width=args.width, overlay=overlay)
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
