"""What every command shares: number lists, wide consoles, the summary table."""
import argparse
import json
import math


def floats(text):
    return [float(x) for x in text.split(",") if x.strip()]


def ints(text):
    out = []
    for x in text.split(","):
        v = float(x)
        if v != int(v):
            raise argparse.ArgumentTypeError(f"{x!r} is not an integer")
        out.append(int(v))
    return out


def one_int(text):
    return ints(text)[0]


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
    """``x`` with every non-finite float replaced by None (strict JSON)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: strict_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [strict_json(v) for v in x]
    return x
