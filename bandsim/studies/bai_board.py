"""The best-arm identification board of ``bandsim suite``: rank by stopping time, audited.

For every fixed-confidence declaration (:data:`bandsim.bai.declarations.ALGORITHMS`)
on C1–C4 (K = 5) at δ = 0.01 and ε ∈ {0.1, 1} (once for a non-private
algorithm), the board lists the mean stopping time E[τ] with its 95 % interval,
the error rate with its Clopper–Pearson interval, and E[τ] over the lower bound
of Azize's PhD thesis (2024, Cor. 4.25). Within each (instance, ε) the
algorithms are ranked by mean τ among those that

* are δ-correct on the evidence: the error rate is not significantly above δ
  (one-sided exact binomial test of H₀: p ≤ δ at level :data:`ALPHA`); one that
  is is listed as **failing correctness** and not ranked;
* pass their privacy audit (:func:`bandsim.bai.audit.exact`); a FAIL is
  never ranked; an algorithm without an exact per-plan audit (an engine other
  than the elimination and top-two engines; ``bandsim audit NAME --whole-run``
  checks its recorded releases) is ranked after every audited one;
* have no censored run (a mean over runs that stopped, with some that did not,
  understates E[τ]): listed as censored, not ranked.

Non-private references are ranked beside the private ones at each ε (their τ
does not depend on ε) and marked so.
"""
import json
from pathlib import Path

from ..bai import audit, declarations
from ..bai.runner import simulate_bai
from .suite import TIERS as TIERS_OF

#: Significance of "error rate significantly above δ".
ALPHA = 0.01
DELTA = 0.01
EPSILONS = (0.1, 1.0)
INSTANCES = ("C1", "C2", "C3", "C4")
#: Runs and budget per tier, by the algorithm's declared cost.
TIERS = {"quick": {"episodes": dict(runs=200, budget=10**9),
                   "horizon": dict(runs=50, budget=10**6)},
         "full": {"episodes": dict(runs=1000, budget=10**9),
                  "horizon": dict(runs=1000, budget=10**7)}}


def split(names):
    """Split ``--algorithms`` into (regret names or None, identification names or None).

    Parameters
    ----------
    names : list of str or None

    Returns
    -------
    (list or None, list or None)
        None means "all" (no ``--algorithms``); an empty list means none of that task.
    """
    if names is None:
        return None, None
    return ([n for n in names if n not in declarations.ALGORITHMS],
            [n for n in names if n in declarations.ALGORITHMS])


def rows(tier="quick", algorithms=None, runs=None, threads=None, seed=1):
    """Simulate the board's cells and rank them (module docstring).

    Parameters
    ----------
    tier : {"quick", "full"}
    algorithms : list of str, optional
        Fixed-confidence names (default: every declared one).
    runs : int, optional
        Override the tier's runs.
    threads : int, optional
    seed : int

    Returns
    -------
    list of dict
        One per (algorithm, instance, ε): :meth:`bandsim.bai.BAIResult.summary`
        plus ``audit`` (PASS/FAIL/-), ``correct`` (bool), ``status`` and ``rank``
        (None when not ranked).
    """
    from scipy.stats import binomtest

    names = list(declarations.ALGORITHMS) if algorithms is None else algorithms
    out = []
    for name in names:
        algo = declarations.get(name)
        scale = TIERS[tier].get(algo.cost, TIERS[tier]["horizon"])
        private = bool(algo.param("epsilon"))
        done = {}
        for inst in INSTANCES:
            for eps in EPSILONS:
                kw = dict(instance=inst, arms=5, runs=runs or scale["runs"],
                          budget=scale["budget"], seed=seed, threads=threads, delta=DELTA)
                if private:
                    kw["epsilon"] = eps
                if private or inst not in done:  # a non-private τ does not depend on ε
                    done[inst] = simulate_bai(name, **kw).summary()
                r = dict(done[inst])
                r["epsilon_cell"] = eps
                r["private"] = private
                r["threshold"] = threshold_of(algo)
                r["audit"] = "-"
                if private and audit.has_exact(algo):
                    r["audit"] = "PASS" if all(x.passed for x in audit.exact(name, eps, DELTA)) \
                        else "FAIL"
                elif private:
                    r["audit"] = "not audited"  # bandsim audit NAME --whole-run checks it
                p = binomtest(r["errors"], r["stopped"], DELTA, alternative="greater").pvalue \
                    if r["stopped"] else 1.0
                r["correct"] = p >= ALPHA
                r["status"] = ("fails privacy audit" if r["audit"] == "FAIL" else
                               "fails correctness (error rate > δ)" if not r["correct"] else
                               f"censored ({r['censored']} runs)" if r["censored"] else
                               "ranked after the audited" if r["audit"] == "not audited" else
                               "ranked")
                out.append(r)
    for inst in INSTANCES:
        for eps in EPSILONS:
            cell = sorted((r for r in out if r["instance"] == inst and r["epsilon_cell"] == eps),
                          key=lambda r: (r["audit"] == "not audited", r["tau_mean"]))
            rank = 0
            for r in cell:
                r["rank"] = None
                if r["status"].startswith("ranked"):
                    rank += 1
                    r["rank"] = rank
    return out


def threshold_of(algo):
    """The stopping threshold a declaration runs at its defaults (its ``threshold`` parameter's
    default, else its engine's table when it keeps the engine's stopping rule), or None (an
    elimination rule, or a stopping rule of its own, as TTUCB's Eq. 5.10)."""
    p = algo.param("threshold")
    if p is not None:
        return p.default
    own_stop = getattr(algo, "stop", None) is not getattr(type(algo), "stop", None)
    return None if own_stop else getattr(algo, "threshold", None)


def table(board):
    """The board as a rich table.

    Parameters
    ----------
    board : list of dict
        From :func:`rows`.

    Returns
    -------
    rich.table.Table
    """
    from rich.table import Table

    t = Table(title=f"best-arm identification board (δ = {DELTA:g}, K = 5): rank by mean τ among "
                    "δ-correct, audited, uncensored algorithms")
    for c in ("instance", "ε", "rank", "algorithm", "E[τ]", "errors", "error CI", "E[τ]/bound",
              "audit", "status"):
        t.add_column(c, justify="left" if c in ("instance", "algorithm", "status") else "right")
    key = sorted(board, key=lambda r: (r["instance"], r["epsilon_cell"],
                                       r["rank"] if r["rank"] else 10**9, r["tau_mean"]))
    for r in key:
        t.add_row(r["instance"], f"{r['epsilon_cell']:g}", str(r["rank"] or "-"),
                  r["algorithm"] + ("" if r["private"] else " (non-private)"),
                  f"{r['tau_mean']:,.0f} ± {r['tau_ci95']:,.0f}" if r["stopped"] else "-",
                  f"{r['errors']}/{r['stopped']}",
                  f"[{r['error_ci95'][0]:.3g}, {r['error_ci95'][1]:.3g}]",
                  f"{r['ratio']:.3g}", r["audit"], r["status"])
    return t


def board(tier, algorithms=None, runs=None, threads=None):
    """The board's rows for ``bandsim suite``, or None when it has none.

    Parameters
    ----------
    tier : {"quick", "full"}
    algorithms : list of str, optional
        As :func:`split`'s second item (None: all, unless the regret tier of
        :mod:`bandsim.studies.suite` names its algorithms; empty: no board).
    runs, threads : int, optional

    Returns
    -------
    list of dict or None
        :func:`rows`.
    """
    if algorithms is None:  # a tier restricted to named algorithms keeps its restriction
        named = getattr(TIERS_OF.get(tier), "algorithms", None)
        algorithms = None if named is None else [a for a in named if a in declarations.ALGORITHMS]
    if algorithms is not None and not algorithms:
        return None
    return rows(tier, algorithms, runs, threads)


def report(board, out, console, term=None):
    """Print the board, write ``out/bai_board.json``; 1 if an audit fails, else 0 (and 0 when
    ``board`` is None).

    Parameters
    ----------
    board : list of dict or None
        :func:`board`.
    out : path
    console : rich.console.Console
    term : rich.console.Console, optional
        Where the table goes (default ``console``).

    Returns
    -------
    int
    """
    if board is None:
        return 0
    (term or console).print(table(board))
    path = Path(out) / "bai_board.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(board, default=str, indent=1))
    console.print(f"wrote {path}", highlight=False)
    return 1 if any(r["audit"] == "FAIL" for r in board) else 0


def run(tier, out, console, algorithms=None, runs=None, threads=None, term=None):
    """:func:`board` then :func:`report`: run the board, print it, write
    ``out/bai_board.json``; 1 if an audit fails, else 0.

    Parameters
    ----------
    tier : {"quick", "full"}
    out : path
    console : rich.console.Console
    algorithms : list of str, optional
        As :func:`board`.
    runs, threads : int, optional
    term : rich.console.Console, optional

    Returns
    -------
    int
    """
    return report(board(tier, algorithms, runs, threads), out, console, term)
