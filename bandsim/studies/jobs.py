"""Run many simulations: locally with a progress bar, or on a Dask cluster.

Every job is the keyword set of one :func:`bandsim.simulate` call. All jobs
are validated (``prepare``) before any of them runs, so a typo in the last
configuration of a sweep fails at once. Each job carries its own seed, so a
job's result is the same bit for bit on any backend and any worker.
"""
import time

from ..runner import prepare

BACKENDS = ("local", "dask")


def _run_one(job):
    """Simulate one job (runs on a Dask worker); returns (Result, seconds)."""
    t0 = time.perf_counter()
    res = prepare(**job).run()
    return res, time.perf_counter() - t0


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


def run_jobs(jobs, *, console=None, backend="local", scheduler=None, labels=None):
    """Simulate every job; yield ``(index, result, seconds)`` as each finishes.

    Parameters
    ----------
    jobs : list of dict
        Keyword arguments of :func:`bandsim.simulate` (``algorithm`` included).
    console : rich.console.Console, optional
        Where the progress bar goes (none if omitted).
    backend : {"local", "dask"}
        ``local`` runs the jobs one after the other, each on the runner's
        thread pool; ``dask`` submits one task per job to a
        ``dask.distributed`` scheduler.
    scheduler : str, optional
        Address of the Dask scheduler (``tcp://host:8786``); a local
        in-process cluster when omitted.
    labels : list of str, optional
        Progress-bar labels, one per job.

    Raises
    ------
    ConfigError
        If any job is invalid (before any job runs).
    ImportError
        If ``backend="dask"`` and dask.distributed is not installed.
    """
    from ..errors import ConfigError

    if backend not in BACKENDS:
        raise ConfigError("backend", backend, f"must be one of {', '.join(BACKENDS)}")
    prepared = [prepare(**job) for job in jobs]
    labels = labels or [_label(j) for j in jobs]
    bar = _progress(console)
    with bar:
        if backend == "local":
            for i, prep in enumerate(prepared):
                task = bar.add_task(labels[i], total=prep.config["runs"])
                t0 = time.perf_counter()
                res = prep.run(progress=lambda n, task=task: bar.update(task, completed=n))
                yield i, res, time.perf_counter() - t0
            return
        try:
            from dask.distributed import Client, LocalCluster, as_completed
        except ImportError as e:  # pragma: no cover - depends on the extra
            raise ImportError("the dask backend needs dask.distributed: "
                              "pip install 'bandsim[dask]'") from e
        cluster = None if scheduler else LocalCluster(processes=False, n_workers=1,
                                                      threads_per_worker=2)
        with Client(scheduler or cluster) as client:
            task = bar.add_task(f"{len(jobs)} jobs on dask", total=len(jobs))
            futures = {client.submit(_run_one, job, pure=False): i for i, job in enumerate(jobs)}
            for fut in as_completed(futures):
                res, seconds = fut.result()
                bar.advance(task)
                yield futures[fut], res, seconds
        if cluster is not None:
            cluster.close()


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
