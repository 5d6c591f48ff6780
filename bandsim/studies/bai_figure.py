"""``bandsim reproduce azize-fig5.7``: stopping time against ε, Azize's PhD thesis Fig. 5.7.

The figure (Azize, PhD thesis, Univ. Lille 2024, §5.5.3, Fig. 5.7; the same
experiment as Azize, Jourdan, Al Marjani & Basu, NeurIPS 2023) plots the
mean stopping time of TTUCB (non-private), AdaP-TT, AdaP-TT* and DP-SE
against ε at δ = 10⁻², β = 1/2, 1,000 runs, on two Bernoulli instances:
left μ₁ = (0.95, 0.9, 0.9, 0.9, 0.5), right μ₂ = (0.75, 0.7, 0.7, 0.7, 0.7)
(= C1). Here it runs at a scale that takes minutes: the ε grid below, the
runs and budget per algorithm of :data:`SCALE` (by its declared cost), and
the title states the runs used and any algorithm not simulated.

The algorithms are read from the fixed-confidence declarations
(:data:`bandsim.bai.declarations.ALGORITHMS`) by the names of :data:`CURVES`;
one that is not declared (yet) is skipped and named on the figure, so the
target picks it up once it is declared. Censored runs (not stopped by the
budget) are shown as lower bounds (:func:`bandsim.studies.bai_study.plot`), with
both lower bounds overlaid: Azize's thesis Cor. 4.25 and T*_ε of Jourdan &
Azize (NeurIPS 2025).
"""
import json
from pathlib import Path

from ..bai import declarations
from ..bai.result import BAIResult
from ..bai.runner import simulate_bai
from ..errors import ConfigError
from . import bai_study as study

NAME = "azize-fig5.7"
TITLE = "Azize thesis Fig. 5.7: stopping time against ε, δ = 0.01"
SOURCE = "Azize, PhD thesis (2024) §5.5.3 Fig. 5.7; Azize, Jourdan, Al Marjani & Basu, NeurIPS 2023"

#: The thesis' curves: (declared name, the figure's label).
CURVES = (("tt-ucb", "TTUCB"), ("adap-tt", "AdaP-TT"), ("adap-tt-star", "AdaP-TT*"),
          ("dp-se-bai", "DP-SE"))
#: The two panels: (label, instance keywords).
PANELS = (("μ₁ = (0.95, 0.9, 0.9, 0.9, 0.5)", dict(means=[0.95, 0.9, 0.9, 0.9, 0.5])),
          ("μ₂ = C1 = (0.75, 0.7, 0.7, 0.7, 0.7)", dict(instance="C1", arms=5)))
#: ε grid (the thesis spans 10⁻³ … 10³ on a log grid).
EPSILONS = (1e-3, 1e-2, 0.1, 0.45, 1.0, 10.0)
DELTA = 0.01
#: Runs and budget T_max by declared cost: batched engines (``episodes``) run the thesis'
#: 1,000 runs; per-pull engines (``horizon``) fewer, with a smaller budget.
SCALE = {"episodes": dict(runs=1000, budget=10**9), "horizon": dict(runs=100, budget=2 * 10**6)}


def jobs(runs=None, budget=None, seed=1):
    """The simulations of the figure and the curves not declared.

    Parameters
    ----------
    runs, budget : int, optional
        Override :data:`SCALE` for every algorithm.
    seed : int

    Returns
    -------
    (list of dict, list of str)
        :func:`simulate_bai` keyword sets (plus ``panel``), and the names skipped.
    """
    out, missing = [], []
    for name, _ in CURVES:
        algo = declarations.ALGORITHMS.get(name)
        if algo is None:
            missing.append(name)
            continue
        scale = SCALE.get(algo.cost, SCALE["horizon"])
        eps = EPSILONS if algo.param("epsilon") else (None,)
        for panel, inst in PANELS:
            for e in eps:
                job = dict(algorithm=name, **inst, runs=runs or scale["runs"],
                           budget=budget or scale["budget"], seed=seed, delta=DELTA,
                           panel=panel)
                if e is not None:
                    job["epsilon"] = e
                out.append(job)
    return out, missing


def _file(d, job):
    tag = "mu1" if "means" in job else "C1"
    eps = f"_eps{job['epsilon']:g}" if "epsilon" in job else ""
    return d / f"{job['algorithm']}_{tag}{eps}.parquet"


def reproduce(out, runs=None, budget=None, seed=1, threads=None, dpi=150, formats=("png",),
              progress=None):
    """Simulate (or resume) and draw the figure under ``out``.

    Parameters
    ----------
    out : path
        Output directory: ``out/azize-fig5.7/*.parquet``, ``out/azize-fig5.7.png``
        and ``out/azize-fig5.7.json`` (rows, skipped curves).
    runs, budget : int, optional
        Override :data:`SCALE`.
    seed : int
    threads : int, optional
    dpi : int
    formats : sequence of str
    progress : callable(str), optional
        One line per job.

    Returns
    -------
    (list of dict, list of str, list of Path)
        Summary rows, curves skipped (not declared), figure files.
    """
    d = Path(out) / NAME
    d.mkdir(parents=True, exist_ok=True)
    todo, missing = jobs(runs, budget, seed)
    if not todo:
        raise ConfigError("figure", NAME, "none of its algorithms is declared")
    rows = []
    for job in todo:
        path = _file(d, job)
        kw = {k: v for k, v in job.items() if k != "panel"}
        res = None
        if path.exists():
            old = BAIResult.from_parquet(path)
            c = old.config
            if (c["runs"], c["budget"], c["seed"]) == (kw["runs"], kw["budget"], seed):
                res = old  # resumed
        if res is None:
            res = simulate_bai(threads=threads, **kw)
            res.to_parquet(path)
        row = dict(study.summary_row(res), panel=job["panel"], file=str(path.relative_to(d)))
        rows.append(row)
        if progress:
            progress(f"{job['algorithm']} {job['panel']} ε={job.get('epsilon', '-')}: "
                     f"E[τ] {row['tau_mean']:,.0f}, censored {row['censored']}")
    used = ", ".join(f"{a} {n:,}" for a, n in
                     sorted({(r["algorithm"], r["runs"]) for r in rows}))
    title = (f"{TITLE}; runs: {used}" + (f"; not declared yet: {', '.join(missing)}"
                                          if missing else ""))
    paths = study.plot(d, Path(out) / f"{NAME}.png", x="epsilon", dpi=dpi, formats=formats,
                       title=title, rows=rows)
    (Path(out) / f"{NAME}.json").write_text(json.dumps(
        dict(figure=NAME, source=SOURCE, skipped=missing, rows=rows), default=str, indent=1))
    return rows, missing, paths
