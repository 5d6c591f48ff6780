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
    prints a board in under a minute on one core. Algorithms whose declared
    cost model is O(T) per run (``Algorithm.cost == "horizon"``: the per-step
    and per-round engines) get at most ``step_runs`` runs, and
    every algorithm whose runs are costly (:data:`RUN_COST`) no more than fit
    in the tier's per-configuration ``budget``; where fewer than 2 runs fit it
    is skipped, with a note. docs/suite.md has the measurements.
"""
import functools
import hashlib
import os
import time
from dataclasses import dataclass, field, replace

import numpy as np

from .. import confidence, registry
from ..datasets import load_instance
from ..errors import ConfigError, check_int
from ..privacy.sampled import DRAWS, sampled
from ..runner import prepare, versions
from .jobs import PlainProgress, progress_bar

SUITE_VERSION = "2026.12"
#: δ given to every algorithm that declares a ``delta`` parameter.
DELTA = 1e-6
#: The confidence (failure probability) given to every algorithm that declares one
#: (``Param.role == "confidence"``: DP-SE's β, Chowdhury & Zhou's p), so a cell compares
#: algorithms, not confidences: p = 0.1 of Chowdhury & Zhou's experiments (ICLR 2023,
#: Section 7). Version 2026.11 ran each at its paper's default (DP-SE at β = 1/T against
#: p = 0.1), which ranked the central DP-SE behind the distributed Dist-DP-SE.
CONFIDENCE = 0.1
#: Engines whose cost per run grows linearly with T (one step per pull or round): the
#: built-in ones whose algorithms declare ``cost="horizon"`` (kept for reports).
STEP_ENGINES = ("per-step", "per-round")
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
#: Measured cost per run (seconds) of the algorithms whose runs are not cheap, as
#: (coefficient, model): ``"TK"`` = coefficient × T·K/10⁶ (O(T) engines: a step per
#: pull, each O(K)); ``"K2"`` = coefficient × K² (episodic KL indices: O(K log T)
#: episodes, each computing K indices by bisection; T barely matters). Measured on
#: one core of the project's shared 2-vCPU machine at K = 5–80, T = 10⁶–10⁸ (the
#: largest figure seen). The suite uses it only to choose how many runs such an
#: algorithm gets, by a fixed rule, so boards are reproducible; docs/suite.md.
RUN_COST = {"ucb1": (0.02, "TK"), "se": (0.001, "TK"), "dp-ucb": (0.01, "TK"),
            "lazy-dp-ts": (0.15, "TK"), "dp-ts": (0.15, "TK"), "adap-klucb": (3.4e-5, "K2")}
#: The cost assumed for a plug-in on an O(T) engine (the costliest measured).
STEP_COST_DEFAULT = (0.15, "TK")
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
        Most runs for algorithms whose cost model is O(T) per run (``Algorithm.cost``).
    budget : float
        Seconds one configuration may take by the cost model :func:`run_cost`
        (algorithms it calls cheap always get ``runs``).
    algorithms : tuple of str or None
        Restrict to these algorithms (their counterparts are added); None = all.
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


THESIS = tuple(SuiteInstance(f"{c}-K{k}", c, k) for k in (5, 20) for c in ("C1", "C2", "C3", "C4"))
RANDOM = tuple(SuiteInstance(f"{n}-K10-{r}", n, 10, r) for n in ("easy", "hard")
               for r in ("bernoulli", "gaussian"))
OBD = SuiteInstance("obd-all", resource=OBD_RESOURCE)
ALL_INSTANCES = THESIS + RANDOM + (OBD,)

TIERS = {
    "full": Tier("full", ALL_INSTANCES, (0.1, 0.5, 1.0, 4.0), (10**6, 10**8), runs=1000,
                 step_runs=100, budget=300),
    "quick": Tier("quick", (THESIS[1], RANDOM[0], OBD), (0.5, 1.0), (10**6,), runs=100,
                  step_runs=10, budget=1.6),
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
    runs = min(tier.runs, tier.step_runs) if algo.cost == "horizon" else tier.runs
    per_run = run_cost(algo, K, T)
    if per_run:
        runs = int(min(runs, tier.budget // per_run))
    if runs < 2 and not per_run:
        return f"the {tier.name} tier gives it {runs} run(s); at least 2 are needed"
    if runs < 2:
        return (f"≈ {per_run:,.1f} s per run here ({algo.engine} engine, cost "
                f"O({'T' if algo.cost == 'horizon' else 'episodes'}) per run): 2 runs exceed the "
                f"{tier.name} tier's {tier.budget:g} s per configuration")
    return runs


def run_cost(algo, K, T):
    """Estimated seconds per run (:data:`RUN_COST`), 0 for the cheap ones."""
    algo = registry.get_algorithm(algo)
    default = STEP_COST_DEFAULT if algo.cost == "horizon" else (0.0, "TK")
    coef, model = RUN_COST.get(algo.name, default)
    return coef * (K * T / 1e6 if model == "TK" else K * K)


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


def audit_columns(privacy, private):
    """The verdict columns of a result's ``config["privacy"]["audit"]``.

    ``verdict`` is ``PASS``/``FAIL`` (the exact audit of the largest batch
    ran), ``not audited`` (an exact audit exists but was too costly at
    simulation time: ``audit_command`` reproduces it; or it could give only a
    lower bound below the claim, INCONCLUSIVE, e.g. a law declared as
    probabilities that underflow: the verdict in ``audit_note``), ``not auditable`` (the
    mechanism has no exact audit) or ``n/a`` (non-private). ``whole_run_verdict``
    is ``config["privacy"]["whole_run"]``'s (:mod:`bandsim.wholerun`: PASS,
    FAIL, not auditable; ``not recorded`` for a result made before it existed),
    with its first failure or reason in ``whole_run_note`` and the line that
    reproduces it in ``whole_run_command``.
    """
    nan = float("nan")
    out = dict(verdict="n/a", audit_quantity="", audit_exact=nan, audit_claimed=nan,
               audit_ratio=nan, audit_batch_size=0, audit_note="", audit_command="",
               whole_run_verdict="n/a", whole_run_note="", whole_run_command="")
    if not private:
        return out
    w = privacy.get("whole_run") or {}
    out.update(whole_run_verdict=w.get("verdict", "not recorded"),
               whole_run_note=(w.get("failures") or [w.get("reason", "")])[0],
               whole_run_command=w.get("command", ""))
    a = privacy.get("audit")
    if not a:
        out.update(verdict="not auditable", audit_note="no audit recorded")
        return out
    out["audit_command"] = a.get("command", "")
    out["audit_batch_size"] = int(a.get("batch_size", 0))
    if str(a.get("verdict", "")).startswith("INCONCLUSIVE"):  # only a lower bound below
        out.update(verdict="not audited", audit_note=a["verdict"])  # the claim: no FAIL
    elif "verdict" in a:
        out.update(verdict="PASS" if a.get("passed") else "FAIL",
                   audit_quantity=a.get("quantity", ""), audit_exact=float(a["exact"]),
                   audit_claimed=float(a["claimed"]),
                   audit_ratio=float(a.get("worst_exact_over_claimed", nan)))
    elif "command" in a:
        out.update(verdict="not audited", audit_note=a.get("skipped", ""))
    else:
        out.update(verdict="not auditable", audit_note=a.get("skipped", ""))
    return out


#: Users per batch of the sampled audit the suite runs for a plug-in (the default of
#: ``bandsim audit --sampled``).
SAMPLED_BATCH = 16


def sampled_columns(job, private, memo):
    """The sampled-audit columns of a row: ``sampled_verdict``, ``sampled_note``, ``sampled_command``.

    A plug-in's samplers are the suite's to check: ``bandsim audit --sampled``
    (:func:`bandsim.privacy.sampled.sampled`, ≥ 10⁶ draws per neighbouring
    input, α = 10⁻⁶) runs at the row's ε and δ on a batch of
    :data:`SAMPLED_BATCH` users, once per (algorithm, ε, δ) (``memo``), so a
    sampler that does not draw its declared law FAILs and is not ranked. A
    built-in's samplers are run by bandsim's own test suite under the same
    audit (``not run`` here, which keeps the quick tier under a minute).

    Parameters
    ----------
    job : Job
    private : bool
        The algorithm declares a privacy guarantee.
    memo : dict
        (algorithm, ε, δ) → columns, shared by the rows of one suite.

    Returns
    -------
    dict
        ``sampled_verdict`` is ``PASS``, ``FAIL``, ``not run`` (a built-in),
        ``not auditable`` (the reason in ``sampled_note``) or ``n/a``
        (non-private).
    """
    if not private:
        return dict(sampled_verdict="n/a", sampled_note="", sampled_command="")
    if registry.is_builtin(job.algorithm):
        return dict(sampled_verdict="not run", sampled_command="",
                    sampled_note="built-in samplers: audited by bandsim's test suite")
    key = (job.algorithm, job.epsilon, job.delta)
    if key not in memo:
        given = {k: v for k, v in (("epsilon", job.epsilon), ("delta", job.delta))
                 if v is not None}
        command = (f"bandsim audit {job.algorithm} --batch-size {SAMPLED_BATCH} --sampled"
                   + "".join(f" --{k} {v:g}" for k, v in given.items()))
        try:
            rep = sampled(job.algorithm, job.epsilon, SAMPLED_BATCH, draws=DRAWS,
                          delta=job.delta)
            verdict = {0: "PASS", 1: "FAIL"}.get(rep.code, "not auditable")
            note = rep.reason or ""
        except Exception as e:  # a plug-in's broken sampler must not sink the board
            verdict, note = "not auditable", f"{type(e).__name__}: {e}"
        memo[key] = dict(sampled_verdict=verdict, sampled_note=note, sampled_command=command)
    return memo[key]


def default_threads():
    """Cores this process may use (``taskset`` is honoured)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


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
    t = get_tier(tier)
    standard = algorithms is None and runs is None and t is TIERS.get(t.name)
    if runs is not None:
        runs = check_int("runs", runs, 2, 10**8)
        t = replace(t, runs=runs, step_runs=min(t.step_runs, runs))
    threads = default_threads() if threads is None else check_int("threads", threads, 1, 1024)
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
        budget=t.budget, delta=DELTA, confidence=CONFIDENCE, threads=threads,
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
           "STEP_ENGINES", "TIERS", "SuiteInstance", "Tier", "cell_seed", "counterpart",
           "package_instance", "plan", "run_suite", "sampled_columns"]
