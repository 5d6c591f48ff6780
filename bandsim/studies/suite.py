"""``bandsim suite``: the private-bandit benchmark, a fixed and versioned standard set.

The standard set (version :data:`SUITE_VERSION`) crosses instances, privacy
levels and horizons; every registered algorithm (plug-ins included) runs on
every instance whose reward model it supports, and the leaderboard
(:mod:`bandsim.studies.leaderboard`) ranks them within their trust model.

Instances
    the thesis instances C1–C4 at K = 5 and K = 20 with Bernoulli rewards
    (Sajed, MSc thesis 2019 = Sajed & Sheffet, ICML 2019, Chapter 6); the
    random ``easy``/``hard`` instances at K = 10, means i.i.d. U[0.25, 0.75] /
    U[0.45, 0.55], one instance per run, with Bernoulli and clipped-Gaussian
    (σ = 0.1) rewards (Chowdhury & Zhou, ICLR 2023, Section 7); and one real-data
    instance, the 80 items of the Open Bandit Dataset's uniform-random "all"
    log as Bernoulli arms with their click-through rates (Saito, Aihara,
    Matsutani & Narita, NeurIPS 2021 Datasets and Benchmarks), shipped as
    package data.
Privacy, confidence and horizons
    ε ∈ {0.1, 0.5, 1, 4} (per batch/epoch, as each algorithm states it),
    δ = 10⁻⁶ for algorithms that take a δ, confidence 0.1 for algorithms that
    declare one (:data:`CONFIDENCE`), T ∈ {10⁶, 10⁸}.
Seeds
    one root seed per instance × T (:func:`cell_seed`), shared by every
    algorithm and every ε: all algorithms see the same random instances, and
    a non-private counterpart sees the instances its private relatives see.
Tiers
    ``full`` is the published board (1,000 runs); ``quick`` is a subset that
    prints a board in under a minute on one core. Every algorithm gets the
    tier's runs, except those whose declared run cost is linear in T
    (:mod:`bandsim.costs`: the per-step and per-round engines) at T ≥
    ``long_horizon``, which get the tier's fixed ``step_runs``; a row given
    fewer runs whose 95 % interval is not below :data:`PRECISION` of its mean
    regret is not ranked, and its cell says so. A tier with a ``budget`` (the
    quick one) does not run a configuration its declared cost puts beyond it,
    with a note; the full tier has none. :func:`tier_cost` states what a tier
    costs (``bandsim suite --full --dry-run``); docs/suite.md has the measurements.
"""
import functools
import hashlib
import math
import time
from dataclasses import dataclass, field, replace

import numpy as np

from .. import confidence, costs, registry
from ..algorithms.families import EPISODES_COST, ROUND_COST
from ..datasets import load_instance
from ..errors import ConfigError, check_int
from ..runner import prepare, versions
from .jobs import PlainProgress, local_cores, progress_bar
from .suite_audit import SAMPLED_BATCH, audit_columns, sampled_columns  # noqa: F401 (public here)

SUITE_VERSION = "2026.12"
#: δ given to every algorithm that declares a ``delta`` parameter.
DELTA = 1e-6
#: The confidence (failure probability) given to every algorithm that declares one
#: (``Param.role == "confidence"``: DP-SE's β, Chowdhury & Zhou's p), so a cell compares
#: algorithms, not confidences: p = 0.1 of Chowdhury & Zhou's experiments (ICLR 2023,
#: Section 7). Version 2026.11 ran each at its paper's default (DP-SE at β = 1/T against
#: p = 0.1), which ranked the central DP-SE behind the distributed Dist-DP-SE.
CONFIDENCE = 0.1
#: Non-private counterpart of each algorithm family (``Algorithm.family``), the
#: reference of the privacy-cost column. ``None``: no non-private counterpart is
#: registered. A plug-in's family may also name a registered non-private
#: algorithm directly.
COUNTERPARTS = {
    "ucb": "ucb1",            # index policies: DP-UCB, AdaP-UCB/KLUCB, DP-KLUCB, DP-IMED
    "se": "se",               # successive elimination: DP-SE 2 and its modification
    "batch-se": "batch-se",   # Algorithm 1 of Chowdhury & Zhou over every protocol
    "arm-elimination": "se",  # the shuffle-model arm elimination of Tenenbaum et al.
    "ts": None,               # Thompson sampling: no non-private TS is registered
}
#: A row given fewer runs than its tier's (``step_runs``) is ranked only when its 95 %
#: half-width is below this fraction of its mean regret; otherwise its cell says so.
PRECISION = 0.05
OBD_RESOURCE = "obd-all.parquet"


@dataclass(frozen=True)
class SuiteInstance:
    """One instance of the standard set.

    Attributes
    ----------
    key : str
        Its name on the board, e.g. ``C2-K5``, ``easy-K10-gaussian``, ``obd-all``.
    instance : str or None
        A named instance (``C1``…``C4``, ``easy``, ``hard``), or None for package data.
    arms : int or None
        K (None: from the package-data file).
    rewards : str
        ``bernoulli`` or ``gaussian`` (clipped, ``sigma``).
    sigma : float
    resource : str or None
        A package-data instance file under ``bandsim/data``.
    """

    key: str
    instance: str = None
    arms: int = None
    rewards: str = "bernoulli"
    sigma: float = 0.1
    resource: str = None

    def resolve(self):
        """(simulate keyword arguments, K, reward model) of this instance."""
        if self.resource is None:
            return (dict(instance=self.instance, arms=self.arms, rewards=self.rewards,
                         sigma=self.sigma), self.arms, self.rewards)
        inst = package_instance(self.resource)
        return dict(instance=inst), inst.arms, inst.rewards


@dataclass(frozen=True)
class Tier:
    """A tier of the standard set: what runs, with how many runs.

    Attributes
    ----------
    name : str
    instances : tuple of SuiteInstance
    epsilons : tuple of float
    horizons : tuple of int
    runs : int
        Runs per configuration.
    step_runs : int
        Runs of an algorithm whose declared run cost is linear in T
        (:attr:`bandsim.costs.RunCost.horizon_linear`) at T ≥ ``long_horizon``.
    budget : float or None
        Seconds one configuration may take by its declared cost (:func:`run_cost`
        × runs); a configuration beyond it does not run (a note says so). None: no cap.
    algorithms : tuple of str or None
        Restrict to these algorithms (their counterparts are added); None = all.
    checkpoints : int
    long_horizon : int
        From this T on, horizon-linear algorithms get ``step_runs``.
    """

    name: str
    instances: tuple
    epsilons: tuple
    horizons: tuple
    runs: int
    step_runs: int
    budget: float
    algorithms: tuple = None
    checkpoints: int = 16
    long_horizon: int = 10**8


THESIS = tuple(SuiteInstance(f"{c}-K{k}", c, k) for k in (5, 20) for c in ("C1", "C2", "C3", "C4"))
RANDOM = tuple(SuiteInstance(f"{n}-K10-{r}", n, 10, r) for n in ("easy", "hard")
               for r in ("bernoulli", "gaussian"))
OBD = SuiteInstance("obd-all", resource=OBD_RESOURCE)
ALL_INSTANCES = THESIS + RANDOM + (OBD,)

TIERS = {
    "full": Tier("full", ALL_INSTANCES, (0.1, 0.5, 1.0, 4.0), (10**6, 10**8), runs=1000,
                 step_runs=100, budget=None),
    "quick": Tier("quick", (THESIS[1], RANDOM[0], OBD), (0.5, 1.0), (10**6,), runs=100,
                  step_runs=10, budget=1.6, long_horizon=10**6),
}


@functools.lru_cache(maxsize=8)
def package_instance(name):
    """An instance file shipped as package data (``bandsim/data/NAME``), loaded.

    Raises
    ------
    ConfigError
        No such package-data file.
    """
    from importlib.resources import as_file, files

    res = files("bandsim") / "data" / name
    if not res.is_file():
        raise ConfigError("instance", name, "no such package-data instance in bandsim/data")
    with as_file(res) as path:
        return load_instance(path)


def cell_seed(instance_key, horizon):
    """The root seed of one instance × T of the standard set (63 bits, from the version)."""
    text = f"bandsim suite {SUITE_VERSION} {instance_key} T={int(horizon)}"
    return int(hashlib.sha256(text.encode()).hexdigest()[:16], 16) >> 1


def counterpart(algo):
    """(name of the non-private counterpart or None, why none) of a declaration."""
    algos = registry.algorithms()
    if not algo.private:
        return None, "non-private"
    fam = algo.family
    if fam in COUNTERPARTS:
        name = COUNTERPARTS[fam]
        return (name, "") if name else (None, f"no non-private counterpart of family {fam!r}")
    if fam in algos and not algos[fam].private:
        return fam, ""
    if fam is None:
        return None, "no family declared"
    return None, f"family {fam!r} has no declared counterpart"


@dataclass
class Job:
    """One configuration: an algorithm on an instance at T (and ε), with its runs and seed."""

    algorithm: str
    instance: SuiteInstance
    horizon: int
    runs: int
    seed: int
    epsilon: float = None
    delta: float = None
    role: str = "entry"  # or "counterpart" (run only as a reference)
    confidence: float = None


@dataclass
class Plan:
    """The configurations a tier runs, and what it skips (with the reason)."""

    tier: Tier
    jobs: list = field(default_factory=list)
    skipped: list = field(default_factory=list)


def plan(tier="quick", algorithms=None):
    """Every configuration of a tier, and every skip with its reason.

    Parameters
    ----------
    tier : str or Tier
    algorithms : sequence of str, optional
        Restrict the board to these (their counterparts still run).

    Returns
    -------
    Plan

    Raises
    ------
    ConfigError
        Unknown tier or algorithm.
    """
    tier = get_tier(tier)
    declared = registry.algorithms()
    chosen = list(dict.fromkeys(algorithms if algorithms is not None
                                else (tier.algorithms or declared)))
    for name in chosen:
        registry.get_algorithm(name)  # ConfigError naming the field
    needed = [c for c in (counterpart(declared[n])[0] for n in chosen) if c and c not in chosen]
    names = chosen + sorted(set(needed), key=list(declared).index)
    out = Plan(tier)
    for inst in tier.instances:
        kw, K, rewards = inst.resolve()
        for T in tier.horizons:
            seed = cell_seed(inst.key, T)
            for name in names:
                algo = declared[name]
                role = "entry" if name in chosen else "counterpart"
                skip = _why_skip(algo, tier, rewards, K, T)
                if isinstance(skip, str):
                    out.skipped.append(dict(algorithm=name, instance=inst.key, horizon=T,
                                            reason=skip, role=role))
                    continue
                eps = tier.epsilons if algo.param("epsilon") else (None,)
                delta = DELTA if algo.param("delta") else None
                conf = CONFIDENCE if algo.confidence else None
                out.jobs.extend(Job(name, inst, T, skip, seed, e, delta, role, conf)
                                for e in eps)
    return out


def _why_skip(algo, tier, rewards, K, T):
    """The runs a configuration gets, or the reason it is skipped (str)."""
    if rewards not in algo.rewards:
        return f"supports {', '.join(algo.rewards)} rewards only, not {rewards}"
    other = [p.name for p in algo.params if p.required and p.name not in ("epsilon", "delta")
             and p is not algo.confidence]
    if other:
        return f"requires {', '.join(other)} (the suite sets only ε, δ and the confidence)"
    if T < K:
        return f"T = {T:g} < K = {K}"
    runs = tier_runs(algo, tier, T)
    if runs < 2:
        return f"the {tier.name} tier gives it {runs} run(s); at least 2 are needed"
    per_run = run_cost(algo, K, T)
    if tier.budget is not None and per_run * runs > tier.budget:
        return (f"≈ {per_run * runs:,.1f} s for its {runs:,} runs here ({per_run:.3g} s per run "
                f"by its declared cost, O({declared_cost(algo).unit})): over the {tier.name} "
                f"tier's {tier.budget:g} s per configuration")
    return runs


def declared_cost(algo, params=None):
    """The :class:`~bandsim.costs.RunCost` of ``algo`` at ``params``: its declared one or, for a
    plug-in that declares none, its cost model's (``Algorithm.cost``) costliest family's."""
    fallback = ROUND_COST if algo.cost == "horizon" else EPISODES_COST
    return costs.declared(algo, params) or fallback


def horizon_linear(algo):
    """``algo`` is an O(T) engine: a decision every pull (``Algorithm.cost``) and a declared
    run cost linear in T (:attr:`bandsim.costs.RunCost.horizon_linear`; not Lazy-DP-TS's
    event-driven engine)."""
    return algo.cost == "horizon" and declared_cost(algo).horizon_linear


def tier_runs(algo, tier, horizon):
    """Runs a configuration of ``algo`` at T gets in ``tier``: the tier's runs, or its fixed
    ``step_runs`` for a horizon-linear algorithm at T ≥ ``long_horizon``."""
    if horizon_linear(algo) and horizon >= tier.long_horizon:
        return min(tier.runs, tier.step_runs)
    return tier.runs


def run_cost(algo, K, T, params=None):
    """Estimated seconds per run (:mod:`bandsim.costs`): the algorithm's declared cost, or for
    a plug-in that declares none its engine family's (the costliest per-round one for O(T)
    engines).

    Parameters
    ----------
    algo : str or Algorithm
    K, T : int
    params : dict, optional
        Parameters that change the cost (e.g. Lazy-DP-TS's ``engine``).

    Returns
    -------
    float
        Seconds on one core.
    """
    algo = registry.get_algorithm(algo)
    return declared_cost(algo, params).seconds(K, T)


def tier_cost(tier="full", algorithms=None):
    """What a tier costs by the declared run costs (:mod:`bandsim.costs`), before it runs.

    Parameters
    ----------
    tier : str or Tier
    algorithms : sequence of str, optional

    Returns
    -------
    list of dict
        One per algorithm × T: ``algorithm``, ``engine``, ``horizon``,
        ``configurations``, ``runs`` (the runs of each), ``core_hours`` (Σ seconds per
        run × runs / 3600 over its configurations, one core) and ``max_hours`` (its
        costliest configuration), sorted by cost, costliest first.

    Raises
    ------
    ConfigError
        Unknown tier or algorithm.
    """
    p = plan(tier, algorithms)
    out = {}
    for job in p.jobs:
        algo = registry.get_algorithm(job.algorithm)
        _, K, _ = job.instance.resolve()
        hours = run_cost(algo, K, job.horizon) * job.runs / 3600
        row = out.setdefault((algo.name, job.horizon), dict(
            algorithm=algo.name, engine=algo.engine, horizon=job.horizon, configurations=0,
            unit=declared_cost(algo).unit,
            runs=set(), core_hours=0.0, max_hours=0.0))
        row["configurations"] += 1
        row["runs"].add(job.runs)
        row["core_hours"] += hours
        row["max_hours"] = max(row["max_hours"], hours)
    rows = sorted(out.values(), key=lambda r: -r["core_hours"])
    for r in rows:
        r["runs"] = sorted(r["runs"])
    return rows


def get_tier(tier):
    """The :class:`Tier` called ``tier`` (or ``tier`` itself)."""
    if isinstance(tier, Tier):
        return tier
    if tier not in TIERS:
        raise ConfigError("tier", tier, f"must be one of {', '.join(TIERS)}")
    return TIERS[tier]


def run_job(job, threads=None, checkpoints=16, progress=None):
    """Simulate one configuration; returns (Result, seconds incl. planning and audit)."""

    kw, _, _ = job.instance.resolve()
    params = {k: v for k, v in (("epsilon", job.epsilon), ("delta", job.delta)) if v is not None}
    params = confidence.apply(job.algorithm, {**params, confidence.KEY: job.confidence})
    t0 = time.perf_counter()
    prep = prepare(job.algorithm, horizon=job.horizon, runs=job.runs, seed=job.seed,
                   threads=threads, checkpoints=checkpoints, **kw, **params)
    res = prep.run(progress)
    return res, time.perf_counter() - t0


def row_of(job, res, seconds):
    """The flat row of one configuration (one row of ``rows.parquet``)."""
    algo = registry.get_algorithm(job.algorithm)
    s = res.summary()
    final = res.pseudo_regret[:, -1]
    cp, why = counterpart(algo)
    row = dict(
        algorithm=algo.name, role=job.role, trust=algo.trust, family=algo.family or "",
        engine=algo.engine, mechanism=algo.mechanism or "", private=algo.private,
        provisional=bool(algo.provisional),
        provisional_note=algo.provisional if isinstance(algo.provisional, str) else "",
        instance=job.instance.key, rewards=res.config["rewards"], arms=int(res.config["arms"]),
        epsilon=float("nan") if job.epsilon is None else float(job.epsilon),
        delta=float("nan") if job.delta is None else float(job.delta),
        horizon=int(job.horizon), runs=int(job.runs), seed=int(job.seed),
        confidence=float("nan") if s["confidence"] is None else float(s["confidence"]),
        confidence_param=s["confidence_param"] or "",
        regret_mean=s["regret_mean"], regret_ci95=s["regret_ci95"],
        regret_median=s["regret_median"], regret_sd=float(np.std(final, ddof=1)),
        seconds=float(seconds), counterpart=cp or "", counterpart_note=why,
    )
    row.update(audit_columns(res.config.get("privacy") or {}, algo.private))
    return row


def precision_columns(row, tier_runs):
    """``imprecise`` and ``precision_note`` of a row: a row given fewer than its tier's runs
    whose 95 % half-width is not below :data:`PRECISION` of its mean regret is not ranked.

    Parameters
    ----------
    row : dict
        With ``runs``, ``regret_mean``, ``regret_ci95``.
    tier_runs : int
        The tier's runs (what every other algorithm gets).

    Returns
    -------
    dict
    """
    runs, mean, half = row["runs"], row["regret_mean"], row["regret_ci95"]
    if runs >= tier_runs:
        return dict(imprecise=False, precision_note="")
    rel = half / mean if mean > 0 else float("inf")
    if rel < PRECISION:
        return dict(imprecise=False, precision_note=f"{runs:,} runs: 95 % CI ±{100 * rel:.1f} %")
    what = f"±{100 * rel:.1f} %" if math.isfinite(rel) else "a mean of 0"
    return dict(imprecise=True, precision_note=(
        f"{runs:,} runs give a 95 % CI of {what} of the mean (not below "
        f"{100 * PRECISION:g} %): not ranked"))


def overridden(tier, algorithms=None, runs=None):
    """(the tier with ``runs`` overridden, whether the board is standard).

    Raises
    ------
    ConfigError
        Unknown tier; ``runs`` < 2.
    """
    t = get_tier(tier)
    standard = algorithms is None and runs is None and t is TIERS.get(t.name)
    if runs is not None:
        runs = check_int("runs", runs, 2, 10**8)
        t = replace(t, runs=runs, step_runs=min(t.step_runs, runs))
    return t, standard


def run_suite(tier="quick", *, algorithms=None, runs=None, threads=None, console=None,
              progress=True):
    """Run a tier of the standard set.

    Parameters
    ----------
    tier : str or Tier
        ``quick`` or ``full``.
    algorithms : sequence of str, optional
        Restrict to these algorithms (the board is then marked non-standard).
    runs : int, optional
        Override the tier's runs (≥ 2; non-standard).
    threads : int, optional
        Worker threads (default: the cores this process may use). Results do not depend on it.
    console : rich.console.Console, optional
        Where the progress bar goes.
    progress : bool

    Returns
    -------
    rows : list of dict
        One per configuration (:func:`row_of`).
    meta : dict
        Suite version, tier, the standard set, skipped configurations with
        their reasons, errors, total wall time; ``jobs_done`` of
        ``jobs_total`` planned configurations gave a row (the board says
        "PARTIAL" when fewer).

    Raises
    ------
    ConfigError
        Unknown tier or algorithm, runs < 2, threads < 1.
    """
    t, standard = overridden(tier, algorithms, runs)
    threads = local_cores() if threads is None else check_int("threads", threads, 1, 1024)
    p = plan(t, algorithms)
    rows, errors, sampled_memo = [], [], {}
    t0 = time.perf_counter()
    with _progress(console, progress) as bar:
        total = bar.add_task("suite", total=len(p.jobs))
        for job in p.jobs:
            label = (f"{job.algorithm} · {job.instance.key} · T={job.horizon:.0e}"
                     + ("" if job.epsilon is None else f" · ε={job.epsilon:g}"))
            bar.update(total, description=label)
            sub = bar.add_task("  runs", total=job.runs) if job.runs >= 8 else None
            try:
                res, secs = run_job(job, threads, t.checkpoints,
                                    (lambda n, sub=sub: bar.update(sub, completed=n))
                                    if sub is not None else None)
                rows.append(row_of(job, res, secs))
                rows[-1].update(sampled_columns(job, rows[-1]["private"], sampled_memo))
                rows[-1].update(precision_columns(rows[-1], t.runs))
            except ConfigError as e:
                p.skipped.append(dict(algorithm=job.algorithm, instance=job.instance.key,
                                      horizon=job.horizon, reason=str(e), role=job.role))
            except Exception as e:  # a broken plug-in must not sink the board
                errors.append(dict(algorithm=job.algorithm, instance=job.instance.key,
                                   horizon=job.horizon, epsilon=job.epsilon,
                                   error=f"{type(e).__name__}: {e}"))
            if sub is not None:
                bar.remove_task(sub)
            bar.advance(total)

    meta = dict(
        suite_version=SUITE_VERSION, tier=t.name, standard=standard,
        instances=[i.key for i in t.instances], epsilons=list(t.epsilons),
        horizons=list(t.horizons), runs=t.runs, step_runs=t.step_runs,
        budget=t.budget, long_horizon=t.long_horizon, precision=PRECISION,
        delta=DELTA, confidence=CONFIDENCE, threads=threads,
        algorithms=list(algorithms) if algorithms is not None else None,
        skipped=p.skipped, errors=errors, seconds=time.perf_counter() - t0,
        jobs_done=len(rows), jobs_total=len(p.jobs),
        versions=versions(), counterparts=dict(COUNTERPARTS),
        created=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    )
    return rows, meta


def _progress(console, enabled):
    """The suite's progress: none, plain lines for a log file (:class:`PlainProgress`),
    or a rich bar that clears itself on a terminal."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn)

    if not enabled:
        return progress_bar(None)
    if console is not None and not console.is_terminal and not console.is_jupyter:
        return PlainProgress(console)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, transient=True)


__all__ = ["ALL_INSTANCES", "CONFIDENCE", "COUNTERPARTS", "DELTA", "SAMPLED_BATCH", "SUITE_VERSION",
           "PRECISION", "TIERS", "SuiteInstance", "Tier", "cell_seed", "counterpart",
           "horizon_linear", "overridden", "precision_columns", "run_cost", "tier_cost",
           "tier_runs",
           "package_instance", "plan", "run_suite", "sampled_columns"]
