"""The suite board's HTML page and its figures: regret against ε, one figure per trust model.

:func:`regret_figures` draws, for every trust model with private entries, the
mean final pseudo-regret of each algorithm against ε (log–log, 95 % error
bars over runs), one panel per instance × T, with the non-private
counterparts of its algorithms as horizontal lines (the privacy cost is the
gap). Figures are SVG files under ``figures/`` beside the board, written
without a date and with a fixed hash salt, so a board regenerates the same
bytes on the same versions of bandsim, numpy, numba and matplotlib.

:func:`to_html` renders the board's sections (:class:`bandsim.studies.leaderboard.Section`)
as one self-contained page that links its figures and data files by relative
paths, so the directory can be published as it is.
"""
import html
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import save_figure
from .plots import figure_grid, plot_level, plot_points, provenance, shared_legend

#: The sub-directory of a board that holds its figures.
FIGURES = "figures"
#: The data files a board links (written by :func:`bandsim.studies.leaderboard.write`).
DATA_FILES = (("leaderboard.md", "the board in Markdown"),
              ("rows.parquet", "one row per configuration"),
              ("board.parquet", "one row per trust model × algorithm"),
              ("suite.json", "tier, standard set, skipped configurations, versions"))

CSS = ("body{font-family:system-ui,sans-serif;margin:2em;max-width:95em}"
       "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
       "th,td{border:1px solid #ccc;padding:0.2em 0.5em;text-align:left;font-size:0.9em}"
       "th{background:#f2f2f2}td.pass{color:#070}td.fail{color:#b00;font-weight:bold}"
       "figure{margin:1em 0}img{max-width:100%;height:auto}")


@dataclass
class Section:
    """A titled table (rendered to the terminal, Markdown and HTML alike); ``figure`` is an
    optional (relative path, alt text) drawn after it in Markdown and HTML."""

    title: str
    columns: list
    rows: list = field(default_factory=list)
    caption: str = ""
    level: int = 3
    figure: tuple = None


def slug(text):
    """A file-name stem for a trust model: ``central ε-DP`` → ``central-e-dp``.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        Lower-case ASCII letters, digits and single hyphens.
    """
    text = text.lower().replace("ε", "e").replace("δ", "d")
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-") or "none"


def _finite(x):
    return x is not None and x == x and math.isfinite(x)


def _panels(rows, trust):
    """{(instance, T): {algorithm: [rows]}} of the trust model's private entries with an ε."""
    out = {}
    for r in rows:
        if r["trust"] == trust and r["role"] == "entry" and r["private"] and _finite(
                r["epsilon"]):
            out.setdefault((r["instance"], int(r["horizon"])), {}).setdefault(
                r["algorithm"], []).append(r)
    return dict(sorted(out.items(), key=lambda kv: (kv[0][1], kv[0][0])))


def _tick(y, _pos=None):
    return f"{y:,.0f}" if y >= 1 else f"{y:.2g}"


def _minor_tick(y, _pos=None):
    lead = round(y / 10 ** math.floor(math.log10(y))) if y > 0 else 0
    return _tick(y) if lead in (2, 5) else ""


def axes_scales(ax, eps):
    """Log ε axis ticked at the suite's ε; log regret axis when the panel spans a decade,
    else linear. Labels are plain text: log axes default to mathtext, which took 3/4 of
    the drawing time."""
    from matplotlib.ticker import FuncFormatter, NullFormatter, NullLocator

    ax.set_xscale("log")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(eps, labels=[f"{x:g}" for x in eps])
    lo, hi = ax.get_ylim()
    ys = [y for line in ax.get_lines() for y in line.get_ydata() if y > 0]
    if ys and max(ys) >= 10 * min(ys):
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(_tick))
        ax.yaxis.set_minor_formatter(NullFormatter() if max(ys) >= 100 * min(ys)
                                     else FuncFormatter(_minor_tick))
    else:
        ax.set_ylim(lo, hi)
        ax.yaxis.set_major_formatter(FuncFormatter(_tick))


def footer_of(meta, what):
    """A figure's provenance footer: suite version, tier, the versions, then ``what``."""
    v = meta.get("versions", {})
    return (f"bandsim suite {meta.get('suite_version', '?')}, {meta.get('tier', '?')} tier; "
            f"bandsim {v.get('bandsim', '?')}, numpy {v.get('numpy', '?')}, "
            f"numba {v.get('numba', '?')}; {what}")


def save_svg(fig, out, rel, meta):
    """Write ``fig`` to ``out/rel`` as SVG without a date and with a fixed hash salt (the same
    bytes on the same versions)."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "bandsim-suite", "svg.fonttype": "none"}):
        save_figure(fig, Path(out) / rel, metadata={
            "Date": None, "Creator": f"bandsim {meta.get('versions', {}).get('bandsim')}"})


def regret_figures(rows, meta, out):
    """Draw one regret-vs-ε figure per trust model into ``out/figures``.

    Parameters
    ----------
    rows : list of dict
        The ranked rows (:func:`bandsim.studies.leaderboard.rank_rows`): ``trust``,
        ``role``, ``private``, ``algorithm``, ``instance``, ``horizon``, ``epsilon``,
        ``regret_mean``, ``regret_ci95``, ``counterpart``, ``failed_audit``.
    meta : dict
        The suite's metadata (tier, versions) for the figure's footer.
    out : path
        The board's directory.

    Returns
    -------
    list of (str, str, str)
        (trust model, path relative to ``out``, alt text), in the board's trust order.
        A trust model without private entries that take an ε has no figure.
    """
    seen = []
    for r in rows:
        if r["trust"] not in seen:
            seen.append(r["trust"])
    ref = {(r["algorithm"], r["instance"], int(r["horizon"])): r for r in rows
           if not r["private"]}
    footer = footer_of(meta, "mean final pseudo-regret ± 95 % CI over runs; "
                             "horizontal lines: non-private counterparts")
    made = []
    for trust in seen:
        panels = _panels(rows, trust)
        if not panels:
            continue
        names = sorted({a for p in panels.values() for a in p})
        refs = sorted({r["counterpart"] for p in panels.values() for rs in p.values()
                       for r in rs if r.get("counterpart")})
        fig, axes = figure_grid(len(panels), ncols=min(4, len(panels)), panel_size=(3.6, 2.8))
        for ax, ((inst, T), algos) in zip(axes, panels.items()):
            for i, name in enumerate(names):
                rs = sorted(algos.get(name, ()), key=lambda r: r["epsilon"])
                if not rs:
                    continue
                fail = any(r.get("failed_audit") for r in rs)
                plot_points(ax, [r["epsilon"] for r in rs], [r["regret_mean"] for r in rs],
                            [r["regret_ci95"] for r in rs], index=i,
                            label=name + (" (audit FAIL, not ranked)" if fail else ""))
            for j, name in enumerate(refs):
                c = ref.get((name, inst, T))
                if c is not None and _finite(c["regret_mean"]):
                    plot_level(ax, c["regret_mean"], c["regret_ci95"], index=len(names) + j,
                               label=f"{name} (non-private)")
            axes_scales(ax, sorted({r["epsilon"] for rs in algos.values() for r in rs}))
            ax.set_title(f"{inst}, T = {T:.0e}", fontsize=9)
            ax.set_xlabel("ε", fontsize=8)
            ax.set_ylabel("final pseudo-regret", fontsize=8)
            ax.tick_params(labelsize=7)
        shared_legend(fig, axes)
        provenance(fig, f"{trust}: regret against ε", footer)
        rel = f"{FIGURES}/regret-vs-eps-{slug(trust)}.svg"
        save_svg(fig, out, rel, meta)
        made.append((trust, rel, f"{trust}: mean final pseudo-regret of each algorithm "
                                 f"against ε, one panel per instance and T"))
    return made


def provenance_rows(meta):
    """(label, value) rows of what made the board: versions, tier, runs, date, wall time.

    Parameters
    ----------
    meta : dict
        The suite's metadata.

    Returns
    -------
    list of (str, str)
    """
    v = meta.get("versions", {})
    runs = "?"
    if meta.get("runs") is not None:
        runs = f"{meta['runs']:,} per configuration"
        if meta.get("step_runs") is not None:
            runs += (f"; O(T) engines {meta['step_runs']:,} at T ≥ "
                     f"{meta.get('long_horizon', 0):.0e}")
        if meta.get("budget") is not None:
            runs += (f"; configurations over ≈ {meta['budget']:g} s by the declared run cost "
                     "not run (the Skipped table)")
        runs += " (each cell states its runs)"
    return [("suite", f"{meta.get('suite_version', '?')}, {meta.get('tier', '?')} tier ("
                      + ("standard" if meta.get("standard") else "non-standard") + ")"),
            ("runs", runs),
            ("versions", ", ".join(f"{k} {v[k]}" for k in ("bandsim", "numpy", "numba")
                                   if k in v) or "?"),
            ("other versions", ", ".join(f"{k} {x}" for k, x in v.items() if isinstance(x, str)
                                         and k not in ("bandsim", "numpy", "numba"))
             + "; the samplers: suite.json"),
            ("created", str(meta.get("created", "?")))]


def figure_html(rel, alt, caption):
    """An ``<figure>`` linking and showing the SVG at ``rel`` (escaped)."""
    e = html.escape
    return (f"<figure><a href='{e(rel)}'><img src='{e(rel)}' alt='{e(alt)}'></a>"
            f"<figcaption>{e(caption)}</figcaption></figure>")


def to_html(secs, title, lines, legend="", figures=(), meta=None, files=DATA_FILES):
    """The board as one HTML page.

    Parameters
    ----------
    secs : list of Section
        Tables (title, columns, rows, caption, level); a cell starting with ``PASS``
        is shown green, one containing ``FAIL`` red.
    title : str
    lines : list of str
        Header lines (tier, versions, ε, T, runs, confidence).
    legend : str
        How to read the tables.
    figures : sequence of (str, str, str)
        (trust model, relative path, alt text) of :func:`regret_figures`.
    meta : dict, optional
        The suite's metadata: a "made with" table (:func:`provenance_rows`) and the
        links to the board's data files.
    files : sequence of (str, str)
        (file name, what it holds) of the data files linked (default :data:`DATA_FILES`).

    Returns
    -------
    str
        The page (UTF-8 text); every link and image is a relative path in the board.
    """
    e = html.escape
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
           f"<title>{e(title)}</title><link rel='icon' href='data:,'>"
           f"<style>{CSS}</style></head><body><h1>{e(title)}</h1>"]
    out += [f"<p>{e(ln)}</p>" for ln in lines]
    if meta is not None:
        out.append("<table>" + "".join(f"<tr><th>{e(k)}</th><td>{e(x)}</td></tr>"
                                       for k, x in provenance_rows(meta)) + "</table>")
        out.append("<p>Files: " + ", ".join(f"<a href='{e(f)}'>{e(f)}</a> ({e(what)})"
                                            for f, what in files) + "</p>")
    if legend:
        out.append(f"<p><small>{e(legend)}</small></p>")
    if figures:
        out.append("<h2>Regret against ε</h2>")
        out += [figure_html(rel, alt, trust) for trust, rel, alt in figures]
    for s in secs:
        out.append(f"<h{s.level}>{e(s.title)}</h{s.level}><table><tr>"
                   + "".join(f"<th>{e(c)}</th>" for c in s.columns) + "</tr>")
        for r in s.rows:
            cells = []
            for c in r:
                cls = " class='pass'" if str(c).startswith("PASS") else (
                    " class='fail'" if "FAIL" in str(c) else "")
                cells.append(f"<td{cls}>{e(str(c))}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</table>")
        if s.caption:
            out.append(f"<p>{e(s.caption)}</p>")
        if s.figure:
            out.append(figure_html(*s.figure, s.figure[1]))
    out.append("</body></html>")
    return "\n".join(out)


__all__ = ["CSS", "DATA_FILES", "FIGURES", "Section", "axes_scales", "figure_html", "footer_of",
           "provenance_rows", "regret_figures", "save_svg", "slug", "to_html"]
