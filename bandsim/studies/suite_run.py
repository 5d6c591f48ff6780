"""``bandsim suite --backend local|dask``: the standard set through the results store.

Every configuration of a tier (:func:`bandsim.studies.suite.plan`) is one job of a
study in ``OUT/results`` (:mod:`bandsim.studies.store`, the store ``bandsim sweep``
uses): keyed by its full configuration and the code that computes it, written
atomically, one task per configuration on the local backend or on a Dask cluster
(``--scheduler ADDR``; by default an in-process cluster of this machine's cores,
one thread per task). So

- a killed board resumes where it stopped: run the same command again;
- a finished configuration is never recomputed (its file is verified and reused);
- the board is a function of the stored results only: the local and Dask backends,
  any number of workers and any number of interruptions give the same rows bit for
  bit (each configuration carries its seed, :func:`bandsim.studies.suite.cell_seed`).

The progress bar shows configurations done, core-hours spent (this and earlier
sessions, from the store's index) and the core-hours left by the declared cost model
(:mod:`bandsim.costs`). The rows are then built from the stored files exactly as
:func:`bandsim.studies.suite.run_suite` builds them from in-memory results.
"""
import json
import time
from importlib.resources import files
from pathlib import Path

from .. import confidence
from ..errors import ConfigError
from ..runner import versions
from .jobs import BACKENDS, local_cores
from .store import exact, slot_name, verify
from .studydir import StudyDir, run_stored
from .suite import (CONFIDENCE, COUNTERPARTS, DELTA, PRECISION, SUITE_VERSION, overridden,
                    plan, precision_columns, row_of, run_cost, sampled_columns)

#: The results store's sub-directory of a board's ``--out``.
RESULTS = "results"


def store_job(job, checkpoints, threads=1):
    """The :func:`bandsim.simulate` keywords of a suite configuration (a store job).

    Parameters
    ----------
    job : bandsim.studies.suite.Job
    checkpoints : int
    threads : int
        Threads of the simulation (results do not depend on it).

    Returns
    -------
    dict
    """
    kw = dict(algorithm=job.algorithm, horizon=int(job.horizon), runs=int(job.runs),
              seed=int(job.seed), checkpoints=checkpoints, threads=threads)
    inst = job.instance
    if inst.resource is None:
        kw.update(instance=inst.instance, arms=inst.arms, rewards=inst.rewards)
        if inst.rewards == "gaussian":
            kw["sigma"] = inst.sigma
    else:  # package data: by file, so the store keys it by its SHA-256
        kw["instance_file"] = str(files("bandsim") / "data" / inst.resource)
    params = {k: v for k, v in (("epsilon", job.epsilon), ("delta", job.delta)) if v is not None}
    kw.update(confidence.apply(job.algorithm, {**params, confidence.KEY: job.confidence}))
    return kw


def slot_of(job):
    """The configuration's file name in the store (readable, unique within a tier)."""
    eps = "" if job.epsilon is None else f"_eps={exact(job.epsilon)}"
    return slot_name(f"{job.algorithm}_{job.instance.key}_T={job.horizon:.0e}{eps}")


def job_seconds(job):
    """Core-seconds the declared cost model gives a configuration (:func:`run_cost` × runs)."""
    _, K, _ = job.instance.resolve()
    return run_cost(job.algorithm, K, job.horizon) * job.runs


class CoreHours:
    """The progress text: configurations done, core-hours spent and left (cost model).

    Parameters
    ----------
    estimates : list of float
        Declared core-seconds of each configuration (:func:`job_seconds`).
    spent : float
        Core-seconds already in the store (earlier sessions: their simulation seconds × the
        threads of this one).
    threads : int
        Threads one configuration runs on (core-seconds = seconds × threads).
    """

    def __init__(self, estimates, spent=0.0, threads=1):
        self.estimates, self.spent, self.threads = estimates, spent, threads

    def __call__(self, entries, index, seconds):
        if index is not None:
            self.spent += (seconds or 0.0) * self.threads
        done = sum(e.done for e in entries)
        left = sum(self.estimates[e.index] for e in entries if not e.done)
        return (f"{done:,}/{len(entries):,} configurations · {self.spent / 3600:.2f} core-h "
                f"spent · ≈ {left / 3600:.2f} core-h left (cost model)")


def stored_seconds(sd):
    """{file name: simulation seconds} of the results in a store's index (None if unknown)."""
    out = {}
    for name, row in sd.rows().items():
        try:
            out[name] = json.loads(row[4]).get("summary", {}).get("seconds")
        except (TypeError, ValueError):
            out[name] = None
    return out


def run_suite_stored(tier="full", out=None, *, algorithms=None, runs=None, backend="local",
                     scheduler=None, threads=None, console=None, progress=True,
                     overwrite=False):
    """Run a tier of the standard set through the results store in ``out/results``.

    Parameters
    ----------
    tier : str or Tier
    out : path
        The board's directory (the store is its ``results`` sub-directory).
    algorithms, runs
        As :func:`bandsim.studies.suite.run_suite` (a non-standard board).
    backend : {"local", "dask"}
    scheduler : str, optional
        A Dask scheduler's address; default an in-process cluster of this machine's cores.
    threads : int, optional
        Threads per configuration (default: all cores locally, 1 on Dask).
    console : rich.console.Console, optional
    progress : bool
    overwrite : bool
        Recompute results of another configuration found in the store instead of refusing.

    Returns
    -------
    rows, meta
        As :func:`bandsim.studies.suite.run_suite`; ``meta`` also has ``backend``,
        ``resumed`` (configurations taken from the store) and ``core_seconds``
        (the stored results' simulation time × threads).

    Raises
    ------
    ConfigError
        Bad tier, algorithm, runs, backend or threads; the store holds another
        tier (unless ``overwrite``); an invalid configuration (before any runs).
    bandsim.studies.store.Interrupted, bandsim.studies.store.StudyFailed
        Ctrl-C, a full disk or a lost cluster: what is stored stays; run again to resume.
    """
    if backend not in BACKENDS:
        raise ConfigError("backend", backend, f"must be one of {', '.join(BACKENDS)}")
    t, standard = overridden(tier, algorithms, runs)
    if threads is None:
        threads = 1 if backend == "dask" else local_cores()
    p = plan(t, algorithms)
    jobs = [store_job(j, t.checkpoints, threads) for j in p.jobs]
    slots = [slot_of(j) for j in p.jobs]
    definition = dict(suite=SUITE_VERSION, tier=t.name, runs=t.runs, step_runs=t.step_runs,
                      long_horizon=t.long_horizon, budget=t.budget, checkpoints=t.checkpoints,
                      instances=[i.key for i in t.instances], epsilons=list(t.epsilons),
                      horizons=list(t.horizons), algorithms=algorithms)
    status = CoreHours([job_seconds(j) for j in p.jobs], threads=threads)
    t0 = time.perf_counter()
    directory = Path(out) / RESULTS
    with StudyDir(directory) as sd:
        status.spent = threads * sum(x or 0.0 for x in stored_seconds(sd).values())
        entries, outcomes = run_stored(
            jobs, slots, directory, overwrite=overwrite, console=console if progress else None,
            backend=backend, scheduler=scheduler, store=sd, status=status,
            study=dict(name=f"bandsim suite {SUITE_VERSION} {t.name}", definition=definition,
                       seed=None))
        seconds = stored_seconds(sd)
    rows, memo = [], {}
    for job, e in zip(p.jobs, entries):
        res, _ = verify(e.path, strict=False)
        rows.append(row_of(job, res, seconds.get(e.path.name) or 0.0))
        rows[-1].update(sampled_columns(job, rows[-1]["private"], memo))
        rows[-1].update(precision_columns(rows[-1], t.runs))
    meta = dict(
        suite_version=SUITE_VERSION, tier=t.name, standard=standard,
        instances=[i.key for i in t.instances], epsilons=list(t.epsilons),
        horizons=list(t.horizons), runs=t.runs, step_runs=t.step_runs, budget=t.budget,
        long_horizon=t.long_horizon, precision=PRECISION, delta=DELTA, confidence=CONFIDENCE,
        threads=threads, backend=backend, algorithms=list(algorithms) if algorithms else None,
        skipped=p.skipped, errors=[], seconds=time.perf_counter() - t0,
        jobs_done=len(rows), jobs_total=len(p.jobs),
        resumed=sum(bool(o.summary.get("resumed")) for o in outcomes),
        core_seconds=threads * sum(x or 0.0 for x in seconds.values()),
        versions=versions(), counterparts=dict(COUNTERPARTS),
        created=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    )
    return rows, meta


__all__ = ["RESULTS", "CoreHours", "job_seconds", "run_suite_stored", "slot_of", "store_job"]
