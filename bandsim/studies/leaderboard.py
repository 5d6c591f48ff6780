"""The leaderboard of ``bandsim suite``: ranks, privacy cost, verdicts; tables and files.

From the per-configuration rows of :func:`bandsim.studies.suite.run_suite`:

- **cells**: one instance × T × ε within one trust model (``Algorithm.trust``);
  non-private algorithms have one cell per instance × T. In every cell the
  algorithms are ranked by mean final pseudo-regret (1 = lowest; ties share
  the average rank).
- **board**: per trust model and algorithm, the mean rank over the cells it
  ran in, its wins (rank 1), the median of regret ÷ counterpart's regret, the
  per-batch privacy verdicts, and the wall time.
- **privacy cost** of a row: its mean regret minus that of the non-private
  counterpart of its family (:data:`bandsim.studies.suite.COUNTERPARTS`) on
  the same instance, T and seed; the 95 % half-width adds the two
  half-widths in quadrature (the runs are treated as independent samples,
  which is conservative for the random instances both see).

Files written by :func:`write` into the output directory: ``leaderboard.md``,
``leaderboard.html``, ``rows.parquet`` (one row per configuration),
``board.parquet`` (one row per trust model × algorithm), ``suite.json``
(the tier, skipped configurations with reasons, errors, versions), the
regret-vs-ε figures under ``figures/`` (:mod:`bandsim.studies.board_render`)
and, with ``compare``, ``compare.md``.
"""
import html
import json
import math
from pathlib import Path

from .. import confidence
from ..atomic import write_parquet, write_text
from ..errors import ConfigError
from ..privacy.sampled import sampler_status
from .bai_render import BAI_FILE, bai_section
from .board_render import DATA_FILES, Section, regret_figures, to_html

NONE_TRUST = "none"


def _eps_key(e):
    return "—" if e is None or (isinstance(e, float) and math.isnan(e)) else f"{e:g}"


def cell_of(row):
    """The cell label of a row: ``instance · T · ε``."""
    return f"{row['instance']} · T={row['horizon']:.0e} · ε={_eps_key(row['epsilon'])}"


def _avg_ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def failed_audit(r):
    """The row's exact, sampled or whole-run audit FAILed: it is never ranked with passing
    rows."""
    return "FAIL" in (r.get("verdict"), r.get("sampled_verdict"), r.get("whole_run_verdict"))


def unaudited(r):
    """The row's whole-run audit could not run (its engine records nothing: a plug-in's
    own engine without the release primitive) or is not in the result (``not recorded``:
    made before the verdict existed, or with ``BANDSIM_RESULT_AUDIT=off``), so no release
    of it was checked. It is ranked after every audited row of its cell."""
    return r.get("whole_run_verdict") in ("not auditable", "not recorded")


def rank_rows(rows):
    """Add ``cell``, ``rank``, ``cell_size`` and the privacy-cost columns to every row (in place).

    Rows with ``role == "counterpart"`` (references run only for the privacy
    cost) and rows whose exact or sampled audit FAILed (``failed_audit``) are
    not ranked (rank NaN). Rows whose whole-run audit is ``not auditable``
    (:func:`unaudited`, flagged ``unaudited``) are ranked after every other
    row of their cell, among themselves by regret: an engine no audit could
    read never ranks above an audited one of its trust model.
    """
    nan = float("nan")
    cells = {}
    for r in rows:
        r["cell"] = cell_of(r)
        r["rank"], r["cell_size"] = nan, 0
        r["failed_audit"] = failed_audit(r)
        r["unaudited"] = unaudited(r)
        if r["role"] == "entry" and not r["failed_audit"] and not r.get("imprecise"):
            cells.setdefault((r["trust"], r["cell"]), []).append(r)
    for group in cells.values():
        offset = 0
        for tier in ([g for g in group if not g["unaudited"]],
                     [g for g in group if g["unaudited"]]):
            for r, k in zip(tier, _avg_ranks([g["regret_mean"] for g in tier])):
                r["rank"], r["cell_size"] = offset + k, len(group)
            offset += len(tier)
    ref = {(r["algorithm"], r["instance"], r["horizon"]): r for r in rows if not r["private"]}
    for r in rows:
        r["privacy_cost"] = r["privacy_cost_ci95"] = r["cost_ratio"] = nan
        c = ref.get((r["counterpart"], r["instance"], r["horizon"])) if r["counterpart"] else None
        if r["counterpart"] and c is None:
            r["counterpart_note"] = f"{r['counterpart']} did not run here"
        if c is not None:
            r["privacy_cost"] = r["regret_mean"] - c["regret_mean"]
            r["privacy_cost_ci95"] = math.hypot(_z(r["regret_ci95"]), _z(c["regret_ci95"]))
            if c["regret_mean"] > 0:
                r["cost_ratio"] = r["regret_mean"] / c["regret_mean"]
    return rows


def _z(x):
    return 0.0 if x != x else x


def board_rows(rows):
    """One row per trust model × algorithm (entries), best mean rank first.

    An algorithm with a FAILed audit in any of its cells is not ranked: its
    board row has ``failed`` set, no mean rank or position, and comes last
    (:func:`failed_section` lists it apart). One whose whole-run audit is
    ``not auditable`` in any cell (``unaudited``) comes after every audited
    algorithm of its trust model, whatever its mean rank.
    """
    import statistics

    by = {}
    for r in rows:
        if r["role"] == "entry":
            by.setdefault((r["trust"], r["algorithm"]), []).append(r)
    out = []
    for (trust, name), rs in by.items():
        ratios = [r["cost_ratio"] for r in rs if r["cost_ratio"] == r["cost_ratio"]]
        verdicts = {}
        for r in rs:
            verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        audited = [r["audit_ratio"] for r in rs if r["audit_ratio"] == r["audit_ratio"]]
        failed = any(failed_audit(r) for r in rs)
        blind = any(unaudited(r) for r in rs)
        whole = {}
        for r in rs:
            v = r.get("whole_run_verdict", "not recorded")
            whole[v] = whole.get(v, 0) + 1
        out.append(dict(
            trust=trust, algorithm=name, provisional=rs[0]["provisional"],
            provisional_note=rs[0]["provisional_note"], cells=len(rs), failed=failed,
            unaudited=blind,
            mean_rank=float("nan") if failed or all(r.get("imprecise") for r in rs)
            else statistics.fmean(r["rank"] for r in rs if not r.get("imprecise")),
            imprecise=sum(bool(r.get("imprecise")) for r in rs),
            wins=0 if failed else sum(r["rank"] == 1 for r in rs),
            counterpart=rs[0]["counterpart"], counterpart_note=rs[0]["counterpart_note"],
            median_cost_ratio=statistics.median(ratios) if ratios else float("nan"),
            passes=verdicts.get("PASS", 0), fails=verdicts.get("FAIL", 0),
            not_audited=verdicts.get("not audited", 0),
            not_auditable=verdicts.get("not auditable", 0),
            worst_audit_ratio=max(audited) if audited else float("nan"),
            sampled=_sampled(name, [r.get("sampled_verdict", "") for r in rs]),
            whole_run=whole,
            runs_min=min(r["runs"] for r in rs), runs_max=max(r["runs"] for r in rs),
            confidence=confidence_text(rs), seconds=sum(r["seconds"] for r in rs)))
    order = trust_order(out)
    out.sort(key=lambda b: (b["failed"], order.index(b["trust"]), b["unaudited"],
                            b["mean_rank"] if b["mean_rank"] == b["mean_rank"] else math.inf,
                            b["algorithm"]))
    for i, b in enumerate(out):
        b["position"] = (0 if b["failed"] else
                         1 + sum(o["trust"] == b["trust"] and not o["failed"] for o in out[:i]))
    return out


def _conf(row):
    x = row.get("confidence")
    return None if x is None or x != x else float(x)


def confidence_text(rows):
    """The confidences rows ran at, e.g. ``0.1 (beta)``; ``—`` where none is declared."""
    vals = sorted({(r.get("confidence_param") or "", r.get("confidence")) for r in rows
                   if _conf(r) is not None}, key=lambda x: x[1])
    return ", ".join(confidence.text(n or None, v) for n, v in vals) or "—"


def _sampled(name, verdicts=()):
    """``FAIL``/``PASS`` when the suite ran the sampled audit (the rows' ``sampled_verdict``),
    else what ``bandsim audit --sampled`` does for ``name`` (:func:`sampler_status`): "yes",
    "not auditable: …", "not private", or "unknown" (not registered now)."""
    if "FAIL" in verdicts:
        return "FAIL"
    if verdicts and all(v == "PASS" for v in verdicts):
        return "PASS"
    try:
        status = sampler_status(name)
    except ConfigError:
        return "unknown"
    return "yes" if status is None else status


def trust_order(items):
    """Trust models in order of first appearance, the non-private reference last."""
    seen = []
    for it in items:
        if it["trust"] not in seen:
            seen.append(it["trust"])
    return [t for t in seen if t != NONE_TRUST] + [t for t in seen if t == NONE_TRUST]


# ---------------------------------------------------------------- formatting

def num(x):
    """A regret-like number for tables: ``12,345``, ``12.3``, ``0.123``."""
    if x != x:
        return "—"
    if abs(x) < 5e-4:  # float noise of a sum of identical runs
        return "0"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.1f}" if abs(x) >= 1 else f"{x:.3g}"


def ratio_text(x):
    """A ratio: ``0.42``, ``1.9``, ``12``, ``230``."""
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def regret_text(r):
    return f"{num(r['regret_mean'])} ± {num(r['regret_ci95'])}"


def cost_text(r):
    if r["privacy_cost"] != r["privacy_cost"]:
        return "—"
    ratio = f" (×{ratio_text(r['cost_ratio'])})" if r["cost_ratio"] == r["cost_ratio"] else ""
    sign = "+" if r["privacy_cost"] >= 0 else "−"
    return f"{sign}{num(abs(r['privacy_cost']))} ± {num(r['privacy_cost_ci95'])}{ratio}"


def _quantity(q):
    q = q.split(" (")[0]
    return q if len(q) <= 14 else q[:13] + "…"


def verdict_text(r):
    """``PASS ε: 0.5 ≤ 0.5``, ``FAIL δ(ε = 1): 0.02 > 1e-06``, ``not audited``, …"""
    v = r["verdict"]
    if v in ("PASS", "FAIL"):
        op = "≤" if v == "PASS" else ">"
        return (f"{v} {_quantity(r['audit_quantity'])}: {r['audit_exact']:.3g} {op} "
                f"{r['audit_claimed']:.3g}")
    return "—" if v == "n/a" else v


def board_verdict_text(b):
    parts = [f"{n} {k}" for n, k in ((b["passes"], "PASS"), (b["fails"], "FAIL"),
                                      (b["not_audited"], "not audited"),
                                      (b["not_auditable"], "not auditable")) if n]
    if b["worst_audit_ratio"] == b["worst_audit_ratio"]:
        parts.append(f"worst exact/claimed {b['worst_audit_ratio']:.3g}")
    return ", ".join(parts) or "—"


def whole_run_text(b):
    """``24 PASS``, ``1 FAIL, 3 PASS``, ``2 not auditable``: the cells' whole-run verdicts."""
    w = b.get("whole_run") or {}
    order = ("FAIL", "PASS", "not auditable", "not recorded", "n/a")
    parts = [f"{w[k]} {k}" for k in order if w.get(k)] + [
        f"{n} {k}" for k, n in w.items() if k not in order]
    return ", ".join(parts) or "—"


def name_text(d):
    return d["algorithm"] + (" †" if d["provisional"] else "")


def _secs(s):
    return f"{s:.1f} s" if s < 600 else f"{s / 60:.0f} min"


def board_section(trust, board):
    s = Section(f"{trust}" if trust != NONE_TRUST else "none (non-private references)",
                ["#", "algorithm", "mean rank", "cells", "wins", "confidence",
                 "regret ÷ counterpart",
                 "per-batch privacy verdicts", "sampled audit", "whole-run audit", "runs",
                 "wall time"])
    for b in board:
        if b["trust"] != trust or b.get("failed"):
            continue
        ratio = ("—" if b["median_cost_ratio"] != b["median_cost_ratio"]
                 else f"×{ratio_text(b['median_cost_ratio'])} vs {b['counterpart']}")
        if ratio == "—" and b["counterpart_note"] and b["counterpart_note"] != "non-private":
            ratio = f"— ({b['counterpart_note']})"
        runs = (f"{b['runs_min']:,}" if b["runs_min"] == b["runs_max"]
                else f"{b['runs_min']:,}–{b['runs_max']:,}")
        s.rows.append([str(b["position"]), name_text(b), f"{b['mean_rank']:.2f}",
                       str(b["cells"]), str(b["wins"]), b.get("confidence", "—"), ratio,
                       board_verdict_text(b),
                       b.get("sampled", "unknown"), whole_run_text(b), runs,
                       _secs(b["seconds"])])
    return s


def failed_section(board):
    """The algorithms whose exact, sampled or whole-run audit FAILed somewhere: never
    ranked."""
    s = Section("failed audit (not ranked)", ["trust", "algorithm", "cells", "per-batch "
                                              "privacy verdicts", "sampled audit",
                                              "whole-run audit", "runs"])
    for b in board:
        if b.get("failed"):
            runs = (f"{b['runs_min']:,}" if b["runs_min"] == b["runs_max"]
                    else f"{b['runs_min']:,}–{b['runs_max']:,}")
            s.rows.append([b["trust"], name_text(b), str(b["cells"]), board_verdict_text(b),
                           b.get("sampled", "unknown"), whole_run_text(b), runs])
    return s


def cell_section(trust, rows):
    s = Section(f"{trust}: every cell", ["cell", "rank", "algorithm", "confidence", "runs",
                                          "regret (mean ± 95 % CI)", "privacy cost",
                                          "verdict (exact vs claimed)", "s"], level=4)
    mine = [r for r in rows if r["trust"] == trust]
    mine.sort(key=lambda r: (r["instance"], r["horizon"], _z(r["epsilon"]),
                             r["rank"] if r["rank"] == r["rank"] else 1e9, r["algorithm"]))
    for r in mine:
        rank = ("FAIL: not ranked" if r.get("failed_audit") else
                "too few runs: not ranked" if r.get("imprecise")
                else "ref" if r["rank"] != r["rank"]
                else f"{r['rank']:g}/{r['cell_size']}"
                + (" (not auditable: after the audited)" if r.get("unaudited") else ""))
        s.rows.append([r["cell"], rank, name_text(r), confidence_text([r]), f"{r['runs']:,}",
                       regret_text(r),
                       cost_text(r), verdict_text(r), f"{r['seconds']:.2f}"])
    return s


def skipped_section(meta):
    groups = {}
    for s in meta.get("skipped", []):
        groups.setdefault((s["algorithm"], s["reason"]), []).append(
            f"{s['instance']} T={s['horizon']:.0e}")
    sec = Section("Skipped", ["algorithm", "reason", "where"])
    for (name, reason), where in groups.items():
        sec.rows.append([name, reason, ", ".join(where)])
    for e in meta.get("errors", []):
        sec.rows.append([e["algorithm"], "ERROR " + e["error"],
                         f"{e['instance']} T={e['horizon']:.0e} ε={_eps_key(e['epsilon'])}"])
    return sec


def partial_line(meta):
    """"PARTIAL BOARD: k of n jobs …" when fewer configurations gave a row than were
    planned (failed or skipped while running), else None."""
    done, total = meta.get("jobs_done"), meta.get("jobs_total")
    if done is None or total is None or done >= total:
        return None
    return (f"PARTIAL BOARD: {done:,} of {total:,} jobs gave a result ({total - done:,} "
            f"failed or were skipped while running: see the Skipped table); cells and ranks "
            f"cover only those")


def runs_rule(meta):
    """The tier's runs rule in words: O(T) engines' fixed runs, the budget (if any)."""
    long = meta.get("long_horizon")
    text = (f"O(T) engines {meta['step_runs']:,} at T ≥ {long:.0e}, not ranked where the 95 % "
            f"CI is not below {100 * meta.get('precision', 0.05):g} % of the mean" if long
            else f"O(T) engines ≤ {meta['step_runs']:,}")
    if meta.get("budget") is not None:
        text += f"; configurations over {meta['budget']:g} s by the cost model not run"
    return text


def header_lines(meta, rows=()):
    v = meta.get("versions", {})
    std = "standard" if meta.get("standard") else "NON-STANDARD (restricted or overridden)"
    eps = ", ".join(f"{e:g}" for e in meta["epsilons"])
    hor = ", ".join(f"{t:.0e}" for t in meta["horizons"])
    return [
        f"bandsim suite {meta['suite_version']}, {meta['tier']} tier ({std}); "
        f"bandsim {v.get('bandsim', '?')}, numpy {v.get('numpy', '?')}, "
        f"numba {v.get('numba', '?')}; {meta.get('created', '')}",
        f"instances {', '.join(meta['instances'])}; ε ∈ {{{eps}}} (δ = {meta['delta']:g} "
        f"where taken); T ∈ {{{hor}}}; {meta['runs']:,} runs ({runs_rule(meta)}); "
        f"wall time {_secs(meta['seconds'])} on {meta['threads']} thread(s)",
        *confidence_lines(meta, rows),
    ] + [line for line in (partial_line(meta),) if line]


def confidence_lines(meta, rows=()):
    """The board's confidence line, and a warning per trust model whose ranking mixes them."""
    c = meta.get("confidence")
    out = [f"confidence {c:g} for every algorithm that declares one (DP-SE's β, Chowdhury & "
           "Zhou's p; 'confidence' column)" if c is not None else
           "confidence: each algorithm at its own default (suite version before 2026.12)"]
    for trust in trust_order(rows):
        w = confidence.mixed([dict(r, confidence=_conf(r))
                              for r in rows if r["trust"] == trust])
        if w:
            out.append(f"{trust}: {w}")
    return out


LEGEND = (
    "Rank: by mean final pseudo-regret within the trust model, per instance × T × ε "
    "(1 = lowest; ties share the average); mean rank over the cells an algorithm ran in "
    "(cells differ when reward models are unsupported). Privacy cost: regret minus the "
    "non-private counterpart of the algorithm's family on the same instance, T and seed "
    "(± 95 % half-widths in quadrature); ×r = regret ÷ counterpart's. Verdict: the exact "
    "audit of the largest batch each configuration runs (PASS/FAIL with the exact and "
    "claimed figure); not audited = an exact audit exists but is too costly at simulation "
    "time (its `bandsim audit` command is in rows.parquet); not auditable = the mechanism "
    "has no exact audit. A configuration whose exact or sampled audit FAILs is not ranked: "
    "its algorithm is listed under \"failed audit\" and the suite exits 1; so is one whose "
    "whole-run record–replay audit (`bandsim audit ALGO --whole-run`, at each cell's "
    "parameters and T ≤ 1e5) FAILs; one whose whole-run audit is not auditable (an "
    "engine of its own that records nothing) is ranked after every audited algorithm of "
    "its trust model. Sampled audit: "
    "PASS/FAIL = the suite ran `bandsim audit --sampled` on a plug-in's own samplers at "
    "every ε (n = 16; its command is in rows.parquet); yes = it runs the kernels a "
    "simulation draws with (a built-in's, audited by bandsim's test suite); "
    "not auditable = it cannot (the reason is shown). "
    "† = provisional specification.")


def sections(rows, board, meta, cells=True):
    out = []
    for trust in trust_order(rows):  # counterparts run only as references have no board row
        if any(b["trust"] == trust and not b.get("failed") for b in board):
            out.append(board_section(trust, board))
        if cells:
            out.append(cell_section(trust, rows))
    if any(b.get("failed") for b in board):
        out.append(failed_section(board))
    if meta.get("skipped") or meta.get("errors"):
        out.append(skipped_section(meta))
    return out


# ---------------------------------------------------------------- renderers

def rich_tables(secs):
    """Rich tables of the sections; their text (names, reasons, errors) is shown as is."""
    from rich.markup import escape
    from rich.table import Table

    for s in secs:
        t = Table(title=escape(s.title), caption=escape(s.caption) if s.caption else None,
                  title_justify="left")
        for c in s.columns:
            t.add_column(escape(c), overflow="fold")
        for r in s.rows:
            t.add_row(*(escape(str(x)) for x in r))
        yield t


def _md_cell(x):
    return str(x).replace("|", "\\|").replace("\n", " ")


def markdown(secs, title, lines, legend=LEGEND, figures=()):
    out = [f"# {title}", ""] + [f"{ln}  " for ln in lines] + ["", legend, ""]
    if figures:
        out += ["## Regret against ε", ""] + [f"![{alt}]({rel})  \n*{trust}*\n"
                                              for trust, rel, alt in figures]
    for s in secs:
        out += ["#" * s.level + " " + s.title, ""]
        out.append("| " + " | ".join(s.columns) + " |")
        out.append("|" + "|".join("---" for _ in s.columns) + "|")
        out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in s.rows]
        if s.caption:
            out += ["", s.caption]
        if s.figure:
            out += ["", f"![{s.figure[1]}]({s.figure[0]})"]
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- files

def _write_text(path, text):
    write_text(path, text)  # atomic: a reader never sees half a board


def _write_parquet(path, dict_rows, meta):
    import pyarrow as pa

    table = pa.Table.from_pylist(dict_rows) if dict_rows else pa.table({})
    meta = {b"bandsim.suite": json.dumps(meta).encode()}
    write_parquet(path, table.replace_schema_metadata(meta))


def title_of(meta):
    return f"bandsim suite {meta['suite_version']} — {meta['tier']} leaderboard"


def write(out, rows, board, meta, bai=None):
    """Write the board's files into directory ``out`` (created); returns their paths.

    ``bai``: the best-arm identification board's rows
    (:func:`bandsim.studies.bai_board.rows`), shown after the regret board with its figure
    (:mod:`bandsim.studies.bai_render`; its ``bai_board.json`` is written by
    :func:`bandsim.studies.bai_board.report`); None: no such section.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError("out", str(out), "must be a directory (it is a file)")
    out.mkdir(parents=True, exist_ok=True)
    secs = sections(rows, board, meta)
    title, lines = title_of(meta), header_lines(meta, rows)
    paths = {k: out / n for k, n in (("md", "leaderboard.md"), ("html", "leaderboard.html"),
                                     ("rows", "rows.parquet"), ("board", "board.parquet"),
                                     ("json", "suite.json"))}
    figures = regret_figures(rows, meta, out) if rows else []
    files = DATA_FILES
    if bai:
        secs.append(bai_section(bai, meta, out))
        files += (BAI_FILE,)
        if secs[-1].figure:
            paths["figure best-arm identification"] = out / secs[-1].figure[0]
    _write_text(paths["md"], markdown(secs, title, lines, figures=figures))
    _write_text(paths["html"], to_html(secs, title, lines, LEGEND, figures, meta, files))
    small = {k: v for k, v in meta.items() if k not in ("skipped", "errors")}
    _write_parquet(paths["rows"], rows, small)
    _write_parquet(paths["board"], board, small)
    _write_text(paths["json"], json.dumps(meta, indent=1, default=str))
    paths.update({f"figure {trust}": out / rel for trust, rel, _ in figures})
    return paths


def read(directory):
    """(rows, board, meta) of a board written by :func:`write`.

    Raises
    ------
    ConfigError
        ``directory`` holds no suite board.
    """
    import pyarrow.parquet as pq

    d = Path(directory)
    need = [d / "rows.parquet", d / "suite.json"]
    if not all(p.is_file() for p in need):
        raise ConfigError("compare", str(directory),
                          "no suite board there (needs rows.parquet and suite.json from "
                          "`bandsim suite --out`)")
    try:
        rows = pq.read_table(need[0]).to_pylist()
        meta = json.loads(need[1].read_text())
        board = pq.read_table(d / "board.parquet").to_pylist() if (d / "board.parquet").is_file() \
            else board_rows(rows)
    except (OSError, ValueError) as e:
        raise ConfigError("compare", str(directory), f"unreadable suite board ({e})") from None
    return rows, board, meta


__all__ = ["LEGEND", "Section", "board_rows", "markdown", "rank_rows", "read", "sections",
           "to_html", "write"]
