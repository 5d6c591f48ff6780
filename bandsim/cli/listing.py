"""``bandsim list``: algorithms, mechanisms, instances and figures, from their declarations."""
from ..instances import NAMED
from ..registry import algorithms, is_builtin, mechanisms, origin
from ..studies.figures import FIGURES
from .common import wide_console


def _plugin(name, kind):
    """`` (plug-in dist 1.0)`` for a plug-in's declaration, nothing for a built-in."""
    if is_builtin(name, kind):
        return ""
    o = origin(name, kind)
    return f" (plug-in {o['distribution']} {o.get('version') or ''}".rstrip() + ")"


def cmd_list(console):
    from rich.table import Table

    t = Table(title="algorithms")
    for c in ("name", "trust model", "engine", "mechanism", "parameters (default)", "rewards",
              "source", "summary"):
        t.add_column(c)
    for a in algorithms().values():
        ps = ", ".join(p.name if p.required else f"{p.name}={p.default_text()}" for p in a.params)
        name = a.name + (" (provisional)" if a.provisional else "") + _plugin(a.name, "algorithm")
        rewards = "all" if len(a.rewards) == 3 else ", ".join(a.rewards)
        t.add_row(name, a.trust, a.engine, a.mechanism or "-", ps or "-", rewards,
                  a.source, a.summary)
    console.print(t)
    t = Table(title="mechanisms")
    for c in ("name", "trust model", "privacy", "samplers", "source", "summary"):
        t.add_column(c)
    for m in mechanisms().values():
        t.add_row(m.name + _plugin(m.name, "mechanism"), m.trust, str(m.kind),
                  ", ".join(m.samplers) or "-", m.source, m.summary)
    console.print(t)
    t = Table(title="instances")
    t.add_column("name")
    t.add_column("description")
    for n, d in NAMED.items():
        t.add_row(n, d)
    t.add_row("--means", "explicit arm means in [0, 1]")
    t.add_row("--instance-file", "an instance file built from data (`bandsim instances build`)")
    console.print(t)

    t = Table(title="figures (bandsim reproduce FIGURE --out DIR)")
    for c in ("name", "source", "title"):
        t.add_column(c)
    for f in FIGURES.values():
        t.add_row(f.name, f.source, f.title)
    console.print(t)
    return 0


