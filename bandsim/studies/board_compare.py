"""``bandsim suite --compare``: what moved against a previous board (``compare.md``).

A configuration moved when its regret changed by more than the two 95 %
half-widths in quadrature, its rank or its verdict changed, or it is new or
gone (:func:`compare`); :func:`write_compare` writes the sections.
"""
import math
from pathlib import Path

from .leaderboard import (Section, _eps_key, _write_text, _z, cell_of, markdown, name_text, num,
                          regret_text, verdict_text)


def _key(r):
    return (r["algorithm"], r["instance"], int(r["horizon"]), _eps_key(r["epsilon"]))


def _nan(x):
    return x is None or x != x


def compare(old, rows, board, meta, label="old"):
    """What moved against a previous board.

    Parameters
    ----------
    old : (rows, board, meta)
        A previous board (:func:`read`).
    rows, board, meta
        The new board.
    label : str
        How to call the old board (its directory).

    Returns
    -------
    sections : list of Section
        The board's movements (position and mean rank per algorithm), then every
        configuration that moved: regret changed by more than the two 95 %
        half-widths in quadrature, rank changed, verdict changed, new or gone.
    summary : dict
        Counts: ``regret``, ``rank``, ``verdict``, ``new``, ``gone``, and ``notes``.
    """
    o_rows, o_board, o_meta = old
    notes = []
    for k in ("suite_version", "tier", "standard"):
        if o_meta.get(k) != meta.get(k):
            notes.append(f"{k} differs: {o_meta.get(k)} (old) vs {meta.get(k)} (new)")
    ob = {(b["trust"], b["algorithm"]): b for b in o_board}
    mv = Section(f"Board against {label}", ["trust", "algorithm", "position", "mean rank",
                                            "Δ mean rank"])
    for b in board:
        o = ob.get((b["trust"], b["algorithm"]))
        if o is None:
            mv.rows.append([b["trust"], name_text(b), f"new → {b['position']}",
                            f"new → {b['mean_rank']:.2f}", ""])
            continue
        d = b["mean_rank"] - o["mean_rank"]
        if o["position"] != b["position"] or abs(d) > 1e-9:
            mv.rows.append([b["trust"], name_text(b), f"{o['position']} → {b['position']}",
                            f"{o['mean_rank']:.2f} → {b['mean_rank']:.2f}", f"{d:+.2f}"])
    new_keys = {(b["trust"], b["algorithm"]) for b in board}
    for k, o in ob.items():
        if k not in new_keys:
            mv.rows.append([k[0], o["algorithm"], f"{o['position']} → gone", "", ""])
    old_by = {_key(r): r for r in o_rows}
    new_by = {_key(r): r for r in rows}
    counts = dict(regret=0, rank=0, verdict=0, new=0, gone=0)
    cs = Section(f"Configurations that moved against {label}",
                 ["algorithm", "cell", "regret old → new", "Δ regret", "rank old → new",
                  "verdict old → new"])
    for k, n in new_by.items():
        o = old_by.get(k)
        if o is None:
            continue
        d = n["regret_mean"] - o["regret_mean"]
        h = math.hypot(_z(n["regret_ci95"]), _z(o["regret_ci95"]))
        sig = abs(d) > max(h, 1e-9 * abs(o["regret_mean"]))
        rank_moved = not (_nan(n["rank"]) and _nan(o["rank"])) and n["rank"] != o["rank"]
        verdict_moved = n["verdict"] != o["verdict"]
        counts["regret"] += sig
        counts["rank"] += rank_moved
        counts["verdict"] += verdict_moved
        if sig or rank_moved or verdict_moved:
            rank = "" if not rank_moved else f"{_rank(o)} → {_rank(n)}"
            verdict = "" if not verdict_moved else f"{verdict_text(o)} → {verdict_text(n)}"
            cs.rows.append([name_text(n), n["cell"], f"{regret_text(o)} → {regret_text(n)}",
                            f"{'+' if d >= 0 else '−'}{num(abs(d))}"
                            + (" (beyond CI)" if sig else ""), rank, verdict])
    ng = Section(f"Configurations new or gone against {label}", ["algorithm", "", "where"])
    for tag, mine, other in (("new", new_by, old_by), ("gone", old_by, new_by)):
        where = {}
        for k, r in mine.items():
            if k not in other:
                counts[tag] += 1
                where.setdefault(r["algorithm"], []).append(r.get("cell") or cell_of(r))
        ng.rows += [[a, f"{tag} ({len(w)})", ", ".join(w)] for a, w in where.items()]
    counts["notes"] = notes
    return [sec for sec in (mv, cs, ng) if sec.rows], counts


def _rank(r):
    return "ref" if _nan(r["rank"]) else f"{r['rank']:g}"


def summary(counts):
    """The comparison in one line: ``0 regrets moved, 0 ranks and 0 verdicts changed; …``.

    Parameters
    ----------
    counts : dict
        The counts of :func:`compare`.

    Returns
    -------
    str
        A regret moved when it changed by more than the two 95 % half-widths in quadrature.
    """
    return (f"{counts['regret']} regrets moved, {counts['rank']} ranks and "
            f"{counts['verdict']} verdicts changed; {counts['new']} new and {counts['gone']} "
            "gone configurations (a regret moved: by more than the two 95 % half-widths in "
            "quadrature)")


def write_compare(out, secs, counts, label):
    """``compare.md`` in ``out``; returns its path."""
    lines = [summary(counts)] + counts["notes"]
    path = Path(out) / "compare.md"
    legend = ("A regret moved when the difference of means exceeds the two 95 % half-widths "
              "in quadrature (about 1 configuration in 20 moves by chance alone).")
    _write_text(path, markdown(secs, f"bandsim suite: what moved against {label}", lines,
                               legend))
    return path


__all__ = ["compare", "summary", "write_compare"]
