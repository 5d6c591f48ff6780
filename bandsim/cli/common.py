"""What every command shares: number lists, wide consoles, the summary table."""
import argparse
import json
import math
import sys

from .. import confidence
from ..errors import ConfigError
from ..results import json_safe


_COMMAND_DOC = """

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    console : rich.console.Console
        Standard-error console for progress bars and messages.

    Returns
    -------
    int
        {returns}

    Raises
    ------
    ConfigError
        Bad input, in one line, before any work.
"""
_EXIT = ("Exit status (0 success; bad input is raised as ConfigError and printed by "
         ":func:`bandsim.cli.main` with status 2).")


def command(func=None, *, returns=_EXIT):
    """Decorate a ``cmd_*`` function: append the numpydoc sections every command shares.

    Parameters
    ----------
    func : callable, optional
        ``cmd(args, console) -> int`` whose docstring is its summary.
    returns : str
        Text of the Returns section (the exit statuses).

    Returns
    -------
    callable
        ``func`` itself (or a decorator, when called with ``returns`` only).
    """
    def decorate(f):
        f.__doc__ = (f.__doc__ or "").rstrip() + _COMMAND_DOC.format(returns=returns)
        return f

    return decorate if func is None else decorate(func)


_REGISTERS_DOC = """

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``bandsim`` subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The new subcommand's parser.
"""


def registers(func):
    """Decorate an ``add_parser(sub)``: append the numpydoc sections they all share.

    Parameters
    ----------
    func : callable
        ``add_parser(sub) -> ArgumentParser`` whose docstring is its summary.

    Returns
    -------
    callable
        ``func`` itself.
    """
    func.__doc__ = (func.__doc__ or "").rstrip() + _REGISTERS_DOC
    return func


def floats(text):
    """A comma list of numbers (empty items dropped; the fields' own checks judge ranges).

    Parameters
    ----------
    text : str
        E.g. ``"0.1,0.5"``.

    Returns
    -------
    list of float

    Raises
    ------
    argparse.ArgumentTypeError
        An item is not a number.
    """
    out = []
    for x in text.split(","):
        if x.strip():
            try:
                out.append(float(x))
            except ValueError:
                raise argparse.ArgumentTypeError(f"{x.strip()!r} is not a number") from None
    return out


def ints(text):
    """A comma list of integers such as ``5e7``.

    A non-integer (``1.5``, ``inf``, ``1e400``) is kept as a float so that the
    field's own check names its range.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of int or float

    Raises
    ------
    argparse.ArgumentTypeError
        An item is not a number.
    """
    out = []
    for x in text.split(","):
        if not x.strip():
            continue
        try:
            out.append(int(x))
            continue
        except ValueError:
            pass
        try:
            v = float(x)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{x.strip()!r} is not a number") from None
        out.append(int(v) if math.isfinite(v) and v == int(v) else v)
    return out


def one_int(text):
    """One integer (see :func:`ints`).

    Parameters
    ----------
    text : str

    Returns
    -------
    int or float

    Raises
    ------
    argparse.ArgumentTypeError
        Not exactly one number.
    """
    values = ints(text)
    if len(values) != 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give one number, e.g. 1e6")
    return values[0]


class UsageError(ConfigError):
    """A command line argparse cannot parse (printed as one line, exit status 2)."""

    def __init__(self, prog, message):
        ValueError.__init__(self, f"{prog}: {message}")
        self.field, self.value, self.allowed = "arguments", None, message


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``error: …``, exit status 2)."""

    def error(self, message):
        raise UsageError(self.prog, message)


#: Width of a console that is not a terminal (a pipe, a log file): wide enough that
#: no table cell is ever cut; tables still take only the width their cells need.
PIPE_WIDTH = 100_000


def wide_console(stderr=False):
    """A rich Console: the terminal's width on a terminal, never-truncating in pipes and logs.

    Parameters
    ----------
    stderr : bool
        Print to standard error instead of standard output.

    Returns
    -------
    rich.console.Console
    """
    from rich.console import Console

    c = Console(stderr=stderr)
    return c if c.is_terminal else Console(stderr=stderr, width=PIPE_WIDTH, soft_wrap=True)


def plain(x):
    """``str(x)`` with rich markup escaped, so user text (``[grid]``, ``[nan, nan]``) shows as is.

    Parameters
    ----------
    x : object

    Returns
    -------
    str
    """
    from rich.markup import escape

    return escape(str(x))


def summary_table(rows, first=()):
    """A rich table of summary rows; ``first`` names extra leading columns.

    Parameters
    ----------
    rows : list of dict
        Summary rows (``Result.summary()`` plus ``seed`` and ``seconds``).
    first : sequence of str
        Keys shown as leading columns.

    Returns
    -------
    rich.table.Table
    """
    from rich.table import Table

    t = Table(title="final pseudo-regret (mean ± 95% CI over runs)")
    for c in first:
        t.add_column(c, overflow="fold")
    for c in ("algorithm", "instance", "K", "ε", "confidence", "runs", "T", "seed", "regret",
              "median",
              "Reg(T)/T", "seconds"):
        t.add_column(c, justify="left" if c in ("algorithm", "instance") else "right",
                     overflow="fold")
    for s in rows:
        eps = "-" if s["epsilon"] is None else f"{s['epsilon']:g}"
        secs = "-" if s.get("seconds") is None else f"{s['seconds']:.2f}"
        seed = "-" if s.get("seed") is None else str(s["seed"])
        t.add_row(*("-" if s.get(c) is None else plain(s[c]) for c in first),
                  plain(s["algorithm"]), plain(s["instance"]), str(s["arms"]), eps,
                  confidence.text(s.get("confidence_param"), s.get("confidence")),
                  f"{s['runs']:,}", f"{s['horizon']:.3g}", seed,
                  f"{s['regret_mean']:,.1f} ± {s['regret_ci95']:,.1f}",
                  f"{s['regret_median']:,.1f}", f"{s['time_avg_regret_mean']:.3g}", secs)
    t.caption = plain(confidence.mixed(rows) or "") or None
    return t


def print_rows(rows, as_json):
    """The summary rows as a table, or as strict JSON (``null``, never ``NaN``).

    Parameters
    ----------
    rows : list of dict
    as_json : bool
        Print a JSON list (always a list, also for one row).
    """
    if as_json:
        print(json.dumps(strict_json(list(rows)), indent=2))
        warning = confidence.mixed(rows)
        if warning:  # the table's caption; with --json on standard error
            print(warning, file=sys.stderr)
    else:
        wide_console().print(summary_table(rows))


#: Keys of a summary row that summary_table always shows.
SUMMARY_COLUMNS = ("algorithm", "instance", "arms", "epsilon", "confidence", "confidence_param",
                   "runs", "horizon", "regret_mean",
                   "regret_ci95", "regret_median", "time_avg_regret_mean",
                   "time_avg_regret_ci95", "seed")


def csv_text(rows):
    """Rows as CSV text: a header of the first row's keys, empty cells for None.

    Parameters
    ----------
    rows : list of dict

    Returns
    -------
    str
    """
    import csv
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return buf.getvalue()


def strict_json(x):
    """``x`` with every non-finite float (numpy scalars too) replaced by None (strict JSON).

    Parameters
    ----------
    x : object
        Nested dicts, lists, numbers.

    Returns
    -------
    object
    """
    return json_safe(x)
