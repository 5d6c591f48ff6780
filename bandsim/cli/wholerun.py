"""``bandsim audit ALGO --whole-run``: the whole-run record–replay audit, as a table.

::

    bandsim audit ALGO|all --whole-run [--epsilon E] [--horizon 1e5] [--seed 0] [--json]

Runs :func:`bandsim.wholerun.audit` for each algorithm (``all``: every
private one) and prints one row per algorithm — verdict, neighbouring pairs
replayed, releases of the reference run, the composed ε of what one user's
reward enters against the claimed ε, seconds — then every failure line.
The verdict at the audit defaults (no ``--epsilon`` or parameter flag, T =
10⁵, seed 0) is kept in the on-disk cache ``bandsim list`` reads.

Below the table, one line per algorithm states what its budget could detect
(the power of checks (g) and (h)).

Exit status: 0 every audit PASSes, 1 one FAILs, 2 one is not auditable,
incomplete or inconclusive (and none FAILs), or bad input (one line, before
any work).
"""
import json
import math

from .. import resources, wholerun
from ..errors import ConfigError
from ..registry import algorithms, get_algorithm
from ..wholerun.cache import power_cell
from ..wholerun.laws import sample_pulls
from .common import plain, strict_json, wide_console

#: Flags of the other audit modes that --whole-run refuses (dest, flag).
REFUSED = (("sampled", "--sampled"), ("returning", "--returning"),
           ("batch_size", "--batch-size"), ("target_epsilon", "--target-epsilon"),
           ("target_delta", "--target-delta"), ("draws", "--draws"), ("exact", "--exact"),
           ("full", "--full"))
STYLE = {"PASS": "green", "FAIL": "bold red", "not auditable": "yellow",
         "incomplete": "yellow", "inconclusive": "yellow", "not private": "dim"}


def _names(text):
    private = [n for n, a in algorithms().items() if a.private]
    names = private if text == "all" else [x.strip() for x in text.split(",") if x.strip()]
    if not names:
        raise ConfigError("algorithm", text, f"must be one of {', '.join(private)} or 'all'")
    for x in names:
        if x not in private:
            raise ConfigError("algorithm", x, f"--whole-run audits a private algorithm: one of "
                                              f"{', '.join(private)} or 'all'")
    return names


def _settings(args, names):
    """(name, params) per audited row; ConfigError for a flag an algorithm does not take."""
    rows = []
    for name in names:
        algo = get_algorithm(name)
        given = {k: getattr(args, k) for k in ("delta", "scale", "p")
                 if getattr(args, k, None) is not None}
        if args.algorithm != "all":
            for k in given:
                if algo.param(k) is None:
                    raise ConfigError(k, given[k], f"{name} takes no --{k}")
        given = {k: v for k, v in given.items() if algo.param(k) is not None}
        for eps in args.epsilon or [None]:
            prm = dict(given)
            if eps is not None:
                prm["epsilon"] = eps
            algo.resolve(_with_defaults(algo, prm), args.horizon)  # bad values fail here
            # the recordings fit, or one line
            resources.check_recording(algo.cost, args.horizon,
                                      sample_pulls=sample_pulls(args.horizon))
            rows.append((name, prm))
    return rows


def _with_defaults(algo, prm):
    return wholerun.checks.audit_params(algo, prm)


def whole_run(args):
    """Run ``bandsim audit --whole-run`` (module docstring).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed ``bandsim audit`` command line (``horizon`` and ``seed`` checked).

    Returns
    -------
    int
        0 every audit PASSes, 1 one FAILs, 2 one is not auditable, incomplete or
        inconclusive.

    Raises
    ------
    ConfigError
        Bad input (a flag of another audit mode, an unknown or non-private
        algorithm, a parameter the algorithm does not take), before any work.
    """
    for dest, flag in REFUSED:
        v = getattr(args, dest, None)
        if v not in (None, False):
            raise ConfigError(dest.replace("_", "-"), v, f"{flag} is another audit mode; "
                                                         "--whole-run does not take it")
    if args.epsilon == []:
        raise ConfigError("epsilon", "", "give at least one value, e.g. --epsilon 0.5")
    rows = _settings(args, _names(args.algorithm))
    reports = _run(rows, args)
    if args.json:
        out = [dict(algorithm=r.algorithm, params=r.params, **r.to_dict()) for r in reports]
        for d, r in zip(out, reports):
            d["failures"] = list(r.failures)  # all of them (the summary keeps 20)
        print(json.dumps(strict_json(out if len(out) > 1 else out[0]), indent=2,
                         allow_nan=False, ensure_ascii=False, default=_plain))
    else:
        _table(reports)
    verdicts = {r.verdict for r in reports}
    return 1 if "FAIL" in verdicts else 2 if verdicts - {"PASS"} else 0


def _run(rows, args):
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    reports = []
    show = len(rows) > 1 and not args.json
    with Progress(TextColumn("whole-run audit {task.description}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                  transient=True, disable=not show, console=wide_console(stderr=True)) as bar:
        task = bar.add_task("", total=len(rows))
        for name, prm in rows:
            bar.update(task, description=name)
            r = wholerun.audit(name, prm, horizon=args.horizon, seed=args.seed)
            if not prm:
                wholerun.cache.remember(r, args.seed)
            reports.append(r)
            bar.advance(task)
    return reports


def _plain(x):
    """A numpy scalar as its Python value (for ``json.dumps``)."""
    if hasattr(x, "item"):
        return strict_json(x.item())
    raise TypeError(f"{type(x).__name__} is not JSON serializable")


def _num(x):
    return "—" if x is None or not math.isfinite(x) else f"{x:.6g}"


def _table(reports):
    from rich.table import Table

    out = wide_console()
    t = Table(title=f"whole-run record–replay audit (T = {reports[0].horizon:,})")
    for c in ("algorithm", "ε", "verdict", "neighbours", "runs", "releases", "composed ε",
              "claimed ε", "detects", "seconds"):
        t.add_column(c, justify="left" if c in ("algorithm", "verdict") else "right")
    for r in reports:
        eps = r.params.get("epsilon")
        t.add_row(plain(r.algorithm), _num(eps) if isinstance(eps, (int, float)) else "",
                  f"[{STYLE[r.verdict]}]{r.verdict}[/]", f"{r.neighbours:,}", f"{r.runs:,}",
                  f"{r.releases:,}", _num(r.epsilon),
                  _num(r.claimed) if math.isfinite(r.claimed) or r.verdict not in ("PASS", "FAIL")
                  else "per batch",
                  power_cell(r.power)[len("detects "):] if r.power else "—",
                  f"{r.seconds:.2f}")
    out.print(t)
    for r in reports:
        for line in r.failures:
            out.print(f"[bold red]FAIL[/] {plain(r.algorithm)}: {plain(line)}", highlight=False)
        if r.verdict in ("not auditable", "incomplete", "inconclusive"):
            out.print(f"[yellow]{r.verdict}[/] {plain(r.algorithm)}: {plain(r.reason)}",
                      highlight=False)
        if r.unexercised:
            out.print(f"[dim]unexercised[/] {plain(r.algorithm)}: no neighbour or recorded run entered "
                      f"{len(r.unexercised)} declared release(s) or structure(s), so nothing was checked of "
                      f"them: {plain('; '.join(r.unexercised[:3]))}"
                      + (" …" if len(r.unexercised) > 3 else ""), highlight=False)
    for r in reports:
        if r.detects:
            out.print(f"[dim]power[/] {plain(r.algorithm)} ({r.runs:,} runs): "
                      f"{plain(r.detects)}", highlight=False)
    if any(not math.isfinite(r.claimed) for r in reports if r.verdict == "PASS"):
        out.print("claimed ε \"per batch\": each reward enters one batch of the mechanism, "
                  "whose per-batch guarantee the exact audit certifies (`bandsim audit ALGO "
                  "--epsilon E`)", highlight=False)
