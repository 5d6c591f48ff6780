"""Run many simulations: locally with a progress bar, or on a Dask cluster.

Every job is the keyword set of one :func:`bandsim.simulate` call. All jobs
are validated (``prepare``, with a progress bar) before any of them runs, so a
typo in the last configuration of a sweep fails at once; identical plans are
computed once. Each job carries its seed, so a job's result is the same bit
for bit on any backend and any worker.
"""
import time

from ..errors import ConfigError
from ..plancache import caching
from ..runner import prepare
from .store import save_result

BACKENDS = ("local", "dask")


def _run_one(job, path=None):
    """Simulate one job (a dict or a Prepared; runs on a Dask worker).

    Returns ``(Result, seconds)``, or ``(Outcome, seconds)`` after writing the
    result to ``path`` (so only the summary and mean curve travel back).
    """
    t0 = time.perf_counter()
    prep = prepare(**job) if isinstance(job, dict) else job
    res = prep.run()
    seconds = time.perf_counter() - t0
    if path is None:
        return res, seconds

    return save_result(res, path, seconds), seconds


def job_instance(job):
    """Short name of a job's instance: its name, instance-file stem, or ``means``."""
    from pathlib import Path

    if job.get("instance_file"):
        return Path(job["instance_file"]).stem
    return job.get("instance") or "means"


def _label(job):
    eps = job.get("epsilon")
    extra = "".join(f" {k}={job[k]:g}" for k in ("scale",) if job.get(k) is not None)
    name = job_instance(job)
    return f"{job['algorithm']} {name}" + (f" ε={eps:g}" if eps is not None else "") + extra


def run_jobs(jobs, *, console=None, backend="local", scheduler=None, labels=None,
             paths=None):
    """Simulate every job; yield ``(index, result, seconds)`` as each finishes.

    Parameters
    ----------
    jobs : list of dict
        Keyword arguments of :func:`bandsim.simulate` (``algorithm`` included).
    console : rich.console.Console, optional
        Where the progress bars go (planning, then simulation; none if omitted).
    backend : {"local", "dask"}
        ``local`` runs the jobs one after the other, each on the runner's
        thread pool; ``dask`` submits one task per job to a
        ``dask.distributed`` scheduler.
    scheduler : str, optional
        Address of the Dask scheduler (``tcp://host:8786``); a local
        in-process cluster when omitted.
    labels : list of str, optional
        Progress-bar labels, one per job.
    paths : list of path, optional
        Write job i's result to ``paths[i]`` (atomically) and yield its
        :class:`bandsim.store.Outcome` (summary and mean curve) instead of the
        Result. On the in-process Dask cluster the workers write the files;
        with a remote scheduler the result comes back and is written here.

    Notes
    -----
    Jobs are planned (validated) before any runs, with a progress bar, and
    identical plans are computed once (:mod:`bandsim.plancache`).

    Raises
    ------
    ConfigError
        If any job is invalid (before any job runs).
    ImportError
        If ``backend="dask"`` and dask.distributed is not installed.
    """

    if backend not in BACKENDS:
        raise ConfigError("backend", backend, f"must be one of {', '.join(BACKENDS)}")
    labels = labels or [_label(j) for j in jobs]
    if not jobs:
        return
    with caching():
        # the first job is validated before any bar is drawn, so bad input is one line
        prepared = [prepare(**jobs[0])]
        bar = _progress(console)
        with bar:
            plan_task = bar.add_task(f"planning {len(jobs)} jobs", total=len(jobs),
                                     completed=1)
            for job in jobs[1:]:
                prepared.append(prepare(**job))
                bar.advance(plan_task)
            if backend == "local":
                yield from _run_local(prepared, paths, labels, bar)
                return
            yield from _run_dask(prepared, paths, scheduler, bar)


def _run_local(prepared, paths, labels, bar):
    for i in range(len(prepared)):
        prep, prepared[i] = prepared[i], None  # keep no plan longer than needed
        task = bar.add_task(labels[i], total=prep.config["runs"])
        t0 = time.perf_counter()
        res = prep.run(progress=lambda n, task=task: bar.update(task, completed=n))
        seconds = time.perf_counter() - t0
        if paths is not None:
            res = save_result(res, paths[i], seconds)
        yield i, res, seconds


def _run_dask(prepared, paths, scheduler, bar):
    try:
        import dask.distributed  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the extra
        raise ImportError("the dask backend needs dask.distributed: "
                          "pip install 'bandsim[dask]'") from e
    import logging

    on_workers = paths is not None and scheduler is None  # workers share our disk
    log = logging.getLogger("distributed")
    level = log.level
    if scheduler is None:  # our own cluster: no warnings when Ctrl-C cancels its tasks
        log.setLevel(logging.ERROR)
    try:
        yield from _submit_all(prepared, paths, scheduler, bar, on_workers)
    finally:
        log.setLevel(level)


def _submit_all(prepared, paths, scheduler, bar, on_workers):
    from contextlib import nullcontext

    from dask.distributed import Client, LocalCluster, as_completed

    cluster = (nullcontext(None) if scheduler else
               LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=None))
    with cluster as c, Client(scheduler or c) as client:
        task = bar.add_task(f"{len(prepared)} jobs on dask", total=len(prepared))
        futures = {}
        for i in range(len(prepared)):
            path = str(paths[i]) if on_workers else None
            futures[client.submit(_run_one, prepared[i], path, pure=False)] = i
            prepared[i] = None
        for fut in as_completed(futures):
            i = futures.pop(fut)
            res, seconds = fut.result()
            fut.release()  # the cluster forgets the result at once
            if paths is not None and not on_workers:
                res = save_result(res, paths[i], seconds)
            bar.advance(task)
            yield i, res, seconds


def _progress(console):
    from contextlib import nullcontext

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    if console is None:
        class Silent(nullcontext):
            def add_task(self, *a, **k):
                return 0

            def update(self, *a, **k):
                pass

            advance = update

        return Silent()
    return Progress(TextColumn("{task.description}"), BarColumn(),
                    TextColumn("{task.completed:,}/{task.total:,}"), TimeElapsedColumn(),
                    console=console, transient=False)
