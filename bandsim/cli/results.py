"""``bandsim results DIR`` and ``bandsim plot DIR``; study options and Ctrl-C for the CLI.

``bandsim results DIR [--json|--csv]``
    One row per result file under DIR (a sweep's or a figure's directory, or
    any folder of ``bandsim run --out`` files): mean final pseudo-regret with
    its 95 % confidence half-width, and every setting that varies between the
    results (ε, δ, s, …) as a column. ``--json`` prints a strict JSON list
    (NaN → null), ``--csv`` a CSV table.
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

#: Columns every row of ``bandsim results`` has, in order.
BASE_COLUMNS = ("algorithm", "instance", "arms", "rewards", "sigma", "epsilon", "horizon",
                "runs", "seed", "mean_regret", "ci95", "median_regret", "time_avg_regret",
                "version", "file", "key")


def add_parsers(sub):
    """Add ``results`` and ``plot`` to the ``bandsim`` subparsers, and study options."""
    res = sub.add_parser("results", help="summary table of a sweep or figure directory")
    res.add_argument("dir", help="a directory written by sweep, reproduce or run --out")
    fmt = res.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print a JSON list of rows")
    fmt.add_argument("--csv", action="store_true", help="print CSV")

    plot = sub.add_parser("plot", help="regret curves of every result in a directory")
    plot.add_argument("dir")
    plot.add_argument("--out", default=None, help="figure file (default DIR/plot.png and .pdf)")
    plot.add_argument("--time-average", action="store_true", help="plot Reg(t)/t")
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

def collect(directory):
    """Summary rows of every result file under ``directory``.

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
    from ..studies.store import identity_of, key, result_files

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
                   seed=res.config.get("seed"), mean_regret=s["regret_mean"],
                   ci95=s["regret_ci95"], median_regret=s["regret_median"],
                   time_avg_regret=s["time_avg_regret_mean"],
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
    from ..results import Result

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
    """The columns among ``columns`` whose value is not the same in every row."""
    return [c for c in columns if len({json.dumps(r.get(c)) for r in rows}) > 1]


def results_table(rows):
    """A rich table: fixed columns, then every setting that varies between rows."""
    from rich.table import Table

    fixed = ("algorithm", "instance", "arms")
    skip = set(fixed) | {"mean_regret", "ci95", "median_regret", "time_avg_regret", "file",
                         "key", "version", "job", "panel", "label"}
    cols = [c for c in rows[0] if c not in skip]
    show = varying(rows, cols)
    same = {c: rows[0][c] for c in cols if c not in show and rows[0][c] is not None}
    t = Table(title="final pseudo-regret (mean ± 95% CI over runs)",
              caption=", ".join(f"{k}={_fmt(v)}" for k, v in same.items()) or None)
    lead = [c for c in ("panel", "label", "job") if c in rows[0]]
    for c in lead + list(fixed) + show + ["regret", "Reg(T)/T", "file"]:
        t.add_column(c, justify="left" if c in lead + ["algorithm", "instance", "file"]
                     else "right")
    for r in rows:
        t.add_row(*(_fmt(r[c]) for c in lead + list(fixed) + show),
                  f"{r['mean_regret']:,.1f} ± {_fmt(r['ci95'], ',.1f')}",
                  f"{r['time_avg_regret']:.3g}", r["file"])
    return t


def _fmt(v, spec="g"):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "nan" if v != v else format(v, spec)
    return str(v)


def cmd_results(args, console):
    from .common import wide_console
    from ..studies.store import dumps

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

def plot_directory(directory, out=None, *, time_average=False, xscale="linear", dpi=300,
                   formats=("png", "pdf")):
    """Draw every result under ``directory``: one panel per instance, K, rewards and T.

    Returns
    -------
    list of Path
        The files written.
    """
    from ..studies.plots import figure_grid, plot_curve, round_axis, save
    from ..studies.store import load_outcome, result_files

    d = Path(directory)
    rows = collect(d)
    groups = {}
    for r in rows:
        g = (r["instance"], r["arms"], r["rewards"], r["horizon"])
        groups.setdefault(g, []).append(r)
    fig, axes = figure_grid(len(groups))
    params = [c for c in rows[0] if c not in BASE_COLUMNS and c not in ("panel", "label", "job")]
    files = {str(f.relative_to(d)): f for f in result_files(d)}
    settings = ["epsilon", "seed", "runs", *params]
    for ax, (g, members) in zip(axes, groups.items()):
        for i, r in enumerate(members):
            o = load_outcome(files[r["file"]])
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
                           xscale=args.xscale, dpi=args.dpi, formats=formats(args))
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
