"""``bandsim list``: algorithms, mechanisms, instances and figures, from their declarations."""
from ..instances import NAMED
from ..privacy.sampled import sampler_status
from ..registry import algorithms, is_builtin, mechanisms, origin
from ..studies.figures import FIGURES
from .common import wide_console


def _plugin(name, kind):
    """`` (plug-in dist 1.0)`` for a plug-in's declaration, nothing for a built-in."""
    if is_builtin(name, kind):
        return ""
    o = origin(name, kind)
    return f" (plug-in {o['distribution']} {o.get('version') or ''}".rstrip() + ")"


def sampled_text(name):
    """What ``bandsim audit --sampled`` does for an algorithm (:func:`sampler_status`)."""
    status = sampler_status(name)
    return "its kernels' draws" if status is None else status


def cmd_list(console):
    from rich.table import Table

    t = Table(title="algorithms")
    for c in ("name", "trust model", "engine", "mechanism", "parameters (default)", "rewards",
              "sampled audit", "source", "summary"):
        t.add_column(c, no_wrap=c == "name")
    for a in algorithms().values():
        ps = ", ".join(p.name if p.required else f"{p.name}={p.default_text()}" for p in a.params)
        name = a.name + (" (provisional)" if a.provisional else "") + _plugin(a.name, "algorithm")
        rewards = "all" if len(a.rewards) == 3 else ", ".join(a.rewards)
        t.add_row(name, a.trust, a.engine, a.mechanism or "-", ps or "-", rewards,
                  sampled_text(a.name), a.source, a.summary)
    console.print(t)
    t = Table(title="mechanisms")
    for c in ("name", "trust model", "privacy", "releases", "samplers", "source", "summary"):
        t.add_column(c)
    for m in mechanisms().values():
        t.add_row(m.name + _plugin(m.name, "mechanism"), m.trust, str(m.kind), _releases(m),
                  ", ".join(m.samplers) or "-", m.source, m.summary)
    console.print(t)
    console.print("releases: [bold]integers (float-safe)[/] — exact integer arithmetic, the "
                  "audited law is what the program outputs; [bold]float64 Laplace (not "
                  "float-safe)[/] — ε-DP as mathematics, but the low-order bits of a float64 "
                  "Laplace draw added to a sum can reveal the sum (Mironov, CCS 2012); see "
                  "docs/privacy.md, \"What each audit certifies\"", highlight=False)
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


def _releases(m):
    """The mechanism's declared float safety, in the words of the table."""
    if not m.kind.private:
        return "-"
    if m.float_safe is None:
        return "not declared"
    return "integers (float-safe)" if m.float_safe else "float64 Laplace (not float-safe)"


