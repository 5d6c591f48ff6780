"""What every command shares: number lists, wide consoles, the summary table."""
import argparse
import json
import math

from ..errors import ConfigError
from ..results import json_safe


def floats(text):
    """A comma list of numbers (empty items dropped; the fields' own checks judge ranges)."""
    out = []
    for x in text.split(","):
        if x.strip():
            try:
                out.append(float(x))
            except ValueError:
                raise argparse.ArgumentTypeError(f"{x.strip()!r} is not a number") from None
    return out


def ints(text):
    """A comma list of integers such as ``5e7``; a non-integer (``1.5``, ``inf``,
    ``1e400``) is kept as a float so that the field's own check names its range."""
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
    """One integer (see :func:`ints`)."""
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


def wide_console(stderr=False):
    """A rich Console at least 120 columns wide, so tables stay readable in logs."""
    from rich.console import Console

    c = Console(stderr=stderr)
    return c if c.is_terminal else Console(stderr=stderr, width=max(c.width, 120))


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


def print_rows(rows, as_json):
    """The summary rows as a table, or as strict JSON (``null``, never ``NaN``)."""
    if as_json:
        print(json.dumps(strict_json(rows[0] if len(rows) == 1 else rows), indent=2))
    else:
        wide_console().print(summary_table(rows))


#: Keys of a summary row that summary_table always shows.
SUMMARY_COLUMNS = ("algorithm", "instance", "arms", "epsilon", "runs", "horizon", "regret_mean",
                   "regret_ci95", "regret_median", "time_avg_regret_mean",
                   "time_avg_regret_ci95", "seed")


def strict_json(x):
    """``x`` with every non-finite float (numpy scalars too) replaced by None (strict JSON)."""

    return json_safe(x)
