"""``bandsim list [--json]``: algorithms, mechanisms, instances and figures.

Generated from the registered declarations (plug-ins included).

The table view prints one table per kind (the algorithms' in three: what
they are, their audits, their sources), at most 120 columns wide with text
wrapped inside the cells; ``--json`` prints one strict JSON
list with one object per entry, each with a ``kind`` (``algorithm``,
``mechanism``, ``instance``, ``figure``) and ``name``.
"""
import json

from ..bai import declarations as bai_declarations
from ..bai.audit import audit_text
from ..studies import bai_figure as fig57
from ..instances import NAMED
from ..privacy.sampled import sampler_status
from ..registry import algorithms, is_builtin, mechanisms, origin
from ..studies.figures import FIGURES
from ..wholerun.cache import lookup, summary
from .common import plain, strict_json, wide_console


#: Widest line of ``bandsim list`` (a terminal narrower than this gets its own width).
LIST_WIDTH = 120
#: Width of the name columns: the longest built-in name (``dist-dp-se-shuffle``).
NAME_WIDTH = 18


def _plugin(name, kind):
    """The plug-in behind a declaration: ``{"distribution", "version"}``, None for a built-in."""
    if is_builtin(name, kind):
        return None
    o = origin(name, kind)
    return dict(distribution=o["distribution"], version=o.get("version"))


def sampled_text(name):
    """What ``bandsim audit --sampled`` does for an algorithm.

    Parameters
    ----------
    name : str
        A registered algorithm's name.

    Returns
    -------
    str
        "its kernels' draws" when the sampled audit runs the code that draws in
        a simulation, else :func:`bandsim.privacy.sampled.sampler_status`'s reason.
    """
    status = sampler_status(name)
    return "its kernels' draws" if status is None else status


def whole_run_text(name):
    """The ``whole-run audit`` cell of ``bandsim list``: the cached verdict, never an audit.

    ``bandsim list`` must stay instant, and a whole-run audit takes seconds per
    algorithm (more on the first compilation), so the cell shows the verdict
    kept on disk (:func:`bandsim.wholerun.cache.lookup`) for the audit
    defaults (T = 10⁵, seed 0, the declaration's defaults and ε = 0.5) and the
    current code; else the command that computes (and caches) it.

    Parameters
    ----------
    name : str
        A registered algorithm's name.

    Returns
    -------
    str
    """
    v = lookup(name)
    if v is None:
        return f"not run — bandsim audit {name} --whole-run"
    return "-" if v["verdict"] == "not private" else summary(v)


def _plugin_text(row):
    """`` (plug-in dist 1.0)`` for a plug-in's row, nothing for a built-in's."""
    p = row.get("plugin")
    if not p:
        return ""
    return f" (plug-in {p['distribution']} {p.get('version') or ''}".rstrip() + ")"


def catalogue():
    """Every algorithm, mechanism, instance and figure bandsim knows, as rows.

    Returns
    -------
    list of dict
        One row per entry: ``kind``, ``name`` and the fields of its table
        (algorithms: ``trust``, ``engine``, ``mechanism``, ``parameters``
        (name → default, None when required), ``confidence`` (the name of its
        confidence parameter, :mod:`bandsim.confidence`, or None), ``rewards``, ``provisional``,
        ``sampled``, ``whole_run`` (:func:`whole_run_text`), ``source``, ``summary``); algorithms and mechanisms also a ``plugin``
        (``distribution``, ``version``; None for a built-in).
    """
    rows = []
    for a in algorithms().values():
        rows.append(dict(kind="algorithm", name=a.name, trust=a.trust, engine=a.engine,
                         mechanism=a.mechanism,
                         parameters={p.name: None if p.required else p.default_text()
                                     for p in a.params},
                         confidence=a.confidence and a.confidence.name,
                         rewards=list(a.rewards), provisional=bool(a.provisional),
                         sampled=sampled_text(a.name), whole_run=whole_run_text(a.name),
                         source=a.source, summary=a.summary, task="regret",
                         plugin=_plugin(a.name, "algorithm")))
    rows += identification_rows()
    for m in mechanisms().values():
        rows.append(dict(kind="mechanism", name=m.name, trust=m.trust, privacy=str(m.kind),
                         releases=_releases(m), samplers=list(m.samplers), source=m.source,
                         summary=m.summary,
                         plugin=_plugin(m.name, "mechanism")))
    for n, d in NAMED.items():
        rows.append(dict(kind="instance", name=n, description=d))
    for f in FIGURES.values():
        rows.append(dict(kind="figure", name=f.name, source=f.source, title=f.title))
    rows.append(dict(kind="figure", name=fig57.NAME, source=fig57.SOURCE, title=fig57.TITLE))
    return rows


def identification_rows():
    """``bandsim list`` rows of the fixed-confidence algorithms (:mod:`bandsim.bai.declarations`).

    Returns
    -------
    list of dict
        As the regret algorithms' rows of :func:`catalogue`, with ``task``
        ``identification``; ``parameters`` shows the risk δ.
    """
    rows = []
    for a in bai_declarations.ALGORITHMS.values():
        rows.append(dict(kind="algorithm", name=a.name, trust=a.trust, engine=a.engine,
                         mechanism=a.mechanism,
                         parameters={p.name: None if p.required else p.default_text()
                                     for p in a.params},
                         confidence=a.confidence and a.confidence.name, rewards=["bernoulli"],
                         provisional=bool(a.provisional), sampled="-",
                         whole_run=audit_text(a), source=a.source, summary=a.summary,
                         task="identification", plugin=None))
    return rows


def cmd_list(args, console=None):
    """Print the catalogue as tables, or as a JSON list with ``--json``.

    Parameters
    ----------
    args : argparse.Namespace
        ``json`` (bool).
    console : rich.console.Console, optional
        Unused (tables go to standard output).

    Returns
    -------
    int
        Exit status 0.
    """
    from rich.table import Table

    rows = catalogue()
    if getattr(args, "json", False):
        print(json.dumps(strict_json(rows), indent=2))
        return 0
    from rich.console import Console

    out = Console(width=min(wide_console().width, LIST_WIDTH))  # wrapped in cells, never cut
    of = {}
    for r in rows:
        of.setdefault(r["kind"], []).append(r)

    def table(title, columns):
        t = Table(title=title)
        for c in columns:  # names are never split: the longest built-in one fits
            t.add_column(c, overflow="fold", min_width=NAME_WIDTH if c == "name" else None)
        return t

    # three tables of the same rows, so that each fits LIST_WIDTH columns
    t = table("algorithms", ("name", "trust model", "engine", "mechanism",
                             "parameters (default)", "rewards"))
    audits = table("algorithms: audits", ("name", "sampled audit", "whole-run audit"))
    sources = table("algorithms: sources", ("name", "source", "summary"))
    for a in of["algorithm"]:
        if a["task"] != "regret":
            continue
        ps = ", ".join(k if v is None else f"{k}={v}" for k, v in a["parameters"].items())
        rewards = "all" if len(a["rewards"]) == 3 else ", ".join(a["rewards"])
        name = a["name"] + (" (provisional)" if a["provisional"] else "") + _plugin_text(a)
        t.add_row(*map(plain, (name, a["trust"], a["engine"], a["mechanism"] or "-",
                               ps or "-", rewards)))
        audits.add_row(*map(plain, (a["name"], a["sampled"], a["whole_run"])))
        sources.add_row(*map(plain, (a["name"], a["source"], a["summary"])))
    out.print(t)
    out.print(audits)
    out.print(sources)
    t = table("algorithms: best-arm identification, fixed confidence (bandsim run ALGO "
              "--epsilon E --delta RISK)", ("name", "trust model", "engine", "parameters",
                                            "audit", "source"))
    for a in of["algorithm"]:
        if a["task"] == "regret":
            continue
        ps = ", ".join(k if v is None else f"{k}={v}" for k, v in a["parameters"].items())
        name = a["name"] + (" (provisional)" if a["provisional"] else "")
        t.add_row(*map(plain, (name, a["trust"], a["engine"], ps or "-", a["whole_run"],
                               a["source"])))
    out.print(t)
    t = table("mechanisms", ("name", "trust model", "privacy", "releases", "samplers", "source",
                             "summary"))
    for m in of.get("mechanism", []):
        t.add_row(*map(plain, (m["name"] + _plugin_text(m), m["trust"], m["privacy"],
                               m["releases"], ", ".join(m["samplers"]) or "-", m["source"],
                               m["summary"])))
    out.print(t)
    out.print("releases: [bold]integers (float-safe)[/] — exact integer arithmetic, the "
              "audited law is what the program outputs; [bold]float64 Laplace (not "
              "float-safe)[/] — ε-DP as mathematics, but the low-order bits of a float64 "
              "Laplace draw added to a sum can reveal the sum (Mironov, CCS 2012); see "
              "docs/privacy.md, \"What each audit certifies\"", highlight=False)
    t = table("instances", ("name", "description"))
    for i in of["instance"]:
        t.add_row(plain(i["name"]), plain(i["description"]))
    t.add_row("--means", "explicit arm means in [0, 1]")
    t.add_row("--instance-file", "an instance file built from data (`bandsim instances build`)")
    out.print(t)
    t = table("figures (bandsim reproduce FIGURE --out DIR)", ("name", "source", "title"))
    for f in of["figure"]:
        t.add_row(plain(f["name"]), plain(f["source"]), plain(f["title"]))
    out.print(t)
    return 0


def _releases(m):
    """The mechanism's declared float safety, in the words of the table."""
    if not m.kind.private:
        return "-"
    if m.float_safe is None:
        return "not declared"
    return "integers (float-safe)" if m.float_safe else "float64 Laplace (not float-safe)"


