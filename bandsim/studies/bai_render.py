"""The best-arm identification board on the suite's Markdown and HTML pages.

:func:`bai_section` turns the rows of :func:`bandsim.studies.bai_board.rows` into one
table per board — per instance and ε: rank, mean stopping time E[τ] ± its 95 % interval,
errors and the error rate's exact (Clopper–Pearson) 95 % interval, censored runs, the
lower bound on E[τ] (Azize, PhD thesis, Univ. Lille 2024, Cor. 4.25) and E[τ] over it,
the privacy audit and the verdict — and draws :func:`tau_figure`, E[τ] against ε
(one panel per instance, non-private references as horizontal lines) as an SVG beside
the regret figures. A row whose error rate is significantly above δ is listed as
failing correctness and is not ranked; a stopping threshold that is not proved
δ-correct (AdaP-TT's ``threshold="heuristic"``, the authors' released code's; Azize,
Jourdan, Al Marjani & Basu, NeurIPS 2023) is marked so in its verdict.
"""
import math

from .board_render import FIGURES, Section, axes_scales, footer_of, save_svg
from .plots import figure_grid, plot_level, plot_points, provenance, shared_legend

#: The data file the board's page links (written by :func:`bandsim.studies.bai_board.report`).
BAI_FILE = ("bai_board.json", "the best-arm identification board, one row per algorithm × "
                              "instance × ε")
#: Stopping thresholds that no theorem makes δ-correct (AdaP-TT's ``threshold`` choices).
UNPROVEN = {"heuristic": "heuristic threshold: not provably δ-correct"}
FIGURE = f"{FIGURES}/tau-vs-eps-bai.svg"


def _num(x, digits=3):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.{digits}g}"


def verdict(r):
    """The verdict cell of one row: its status, and a note on an unproven threshold."""
    note = UNPROVEN.get(r.get("threshold"))
    return r["status"] + (f"; {note}" if note else "")


def _row(r):
    ci = r.get("error_ci95") or (float("nan"), float("nan"))
    tau = (f"{r['tau_mean']:,.0f} ± {r['tau_ci95']:,.0f}" if r["stopped"] else "-")
    if r["censored"] and r["stopped"]:
        tau += " (runs that stopped)"
    return [r["instance"], f"{r['epsilon_cell']:g}", str(r["rank"] or "-"),
            r["algorithm"] + ("" if r["private"] else " (non-private)"),
            r.get("threshold") or "-", tau, f"{r['errors']}/{r['stopped']}",
            f"{_num(r['error_rate'])} [{_num(ci[0])}, {_num(ci[1])}]",
            f"{r['censored']}/{r['runs']}", _num(r["lower_bound"]), _num(r["ratio"]),
            r["audit"], verdict(r)]


def bai_section(board, meta, out):
    """The board's table (and figure, drawn into ``out/figures``) as a :class:`Section`.

    Parameters
    ----------
    board : list of dict
        :func:`bandsim.studies.bai_board.rows` (``instance``, ``epsilon_cell``, ``rank``,
        ``algorithm``, ``private``, ``threshold``, ``tau_mean``, ``tau_ci95``, ``stopped``,
        ``censored``, ``runs``, ``errors``, ``error_rate``, ``error_ci95``, ``lower_bound``,
        ``ratio``, ``audit``, ``status``, ``delta``).
    meta : dict
        The suite's metadata (figure footer).
    out : path
        The board's directory.

    Returns
    -------
    Section
        Level-2 section; its ``figure`` is None when no algorithm stopped.
    """
    delta = board[0]["delta"] if board else float("nan")
    s = Section(f"Best-arm identification (fixed confidence δ = {delta:g})",
                ["instance", "ε", "rank", "algorithm", "threshold", "E[τ] ± 95 % CI",
                 "errors/stopped", "error rate [95 % Clopper–Pearson]", "censored/runs",
                 "lower bound", "E[τ] ÷ bound", "audit", "verdict"], level=2)
    key = sorted(board, key=lambda r: (r["instance"], r["epsilon_cell"],
                                       r["rank"] if r["rank"] else 10**9, r["tau_mean"]))
    s.rows = [_row(r) for r in key]
    s.caption = (
        "Ranked by mean stopping time τ within each instance × ε among the algorithms that are "
        "δ-correct on the evidence (error rate not significantly above δ, one-sided exact "
        "binomial test at 1 %), pass their privacy audit and have no censored run; one without "
        "an exact per-plan audit ('not audited': `bandsim audit NAME --whole-run` checks its "
        "recorded releases) is ranked after the audited. Failing correctness, a failed audit or "
        "a censored run (E[τ] then understates the mean) is never ranked. Non-private "
        "references are ranked beside the private ones at each ε (their τ does not depend on "
        "ε). Lower bound: Azize, PhD thesis (2024), Cor. 4.25. A threshold marked 'not "
        "provably δ-correct' is a heuristic (the authors' released code's), not Eq. 5.11.")
    fig = tau_figure(board, meta, out)
    if fig:
        s.figure = (fig, "mean stopping time of each identification algorithm against ε, "
                         "one panel per instance")
    return s


def tau_figure(board, meta, out):
    """E[τ] against ε, one panel per instance, into ``out/figures`` (SVG, fixed bytes).

    Parameters
    ----------
    board : list of dict
        As :func:`bai_section`.
    meta : dict
    out : path

    Returns
    -------
    str or None
        The figure's path relative to ``out``; None when no run stopped.
    """
    stopped = [r for r in board if r["stopped"]]
    if not stopped:
        return None
    insts = sorted({r["instance"] for r in stopped})
    private = sorted({r["algorithm"] for r in stopped if r["private"]})
    public = sorted({r["algorithm"] for r in stopped if not r["private"]})
    fig, axes = figure_grid(len(insts), ncols=min(4, len(insts)), panel_size=(3.6, 2.8))
    for ax, inst in zip(axes, insts):
        here = [r for r in stopped if r["instance"] == inst]
        for i, name in enumerate(private):
            rs = sorted((r for r in here if r["algorithm"] == name),
                        key=lambda r: r["epsilon_cell"])
            if rs:
                label = name + ("; " + UNPROVEN[rs[0]["threshold"]]
                                if rs[0].get("threshold") in UNPROVEN else "")
                plot_points(ax, [r["epsilon_cell"] for r in rs], [r["tau_mean"] for r in rs],
                            [r["tau_ci95"] for r in rs], index=i, label=label)
        for j, name in enumerate(public):
            r = next((r for r in here if r["algorithm"] == name), None)
            if r is not None:
                plot_level(ax, r["tau_mean"], r["tau_ci95"], index=len(private) + j,
                           label=f"{name} (non-private)")
        axes_scales(ax, sorted({r["epsilon_cell"] for r in here}))
        ax.set_title(f"{inst}, δ = {here[0]['delta']:g}", fontsize=9)
        ax.set_xlabel("ε", fontsize=8)
        ax.set_ylabel("mean stopping time τ", fontsize=8)
        ax.tick_params(labelsize=7)
    shared_legend(fig, axes)
    provenance(fig, "best-arm identification: stopping time against ε",
               footer_of(meta, "mean τ ± 95 % CI over the runs that stopped; horizontal "
                               "lines: non-private references"))
    save_svg(fig, out, FIGURE, meta)
    return FIGURE


__all__ = ["BAI_FILE", "FIGURE", "UNPROVEN", "bai_section", "tau_figure", "verdict"]
