"""Run many simulations: locally with one progress bar, or on a Dask cluster.

Every job is the keyword set of one :func:`bandsim.simulate` call. Before any
job runs, every distinct algorithm × instance × reward model of the study is
validated (a typo in the last configuration fails at once, in one line); each
job is then planned just before it runs and dropped after, so memory does not
grow with the number of jobs, and identical plans are computed once
(:mod:`bandsim.plancache`). Each job carries its seed, so a job's result is the
same bit for bit on any backend and any worker. Dask workers whose
environment (bandsim version, kernel digest, numpy, numba) differs from this
process's are refused before they run a job.

Progress is one bar for the whole study (jobs done, rate, time left); with
``verbose`` one line per finished job is printed above it.
"""
import json
import os
import time
from concurrent.futures import CancelledError
from contextlib import nullcontext
from pathlib import Path

from ..errors import ConfigError
from ..plancache import caching
from ..runner import prepare
from .store import StudyFailed, environment, save_result

BACKENDS = ("local", "dask")


class EnvironmentMismatch(RuntimeError):
    """A Dask worker's environment differs from the client's (one line, the fields)."""


def _mismatch(theirs, ours):
    return [(k, theirs.get(k), ours.get(k)) for k in sorted(set(ours) | set(theirs))
            if theirs.get(k) != ours.get(k)]


def _run_one(job, path=None, env=None):
    """Simulate one job (a dict or a Prepared; runs on a Dask worker).

    Returns ``(Result, seconds)``, or ``(Outcome, seconds)`` after writing the
    result to ``path`` (so only the summary and mean curve travel back).

    Raises
    ------
    EnvironmentMismatch
        ``env`` (the client's :func:`bandsim.studies.store.environment`) is
        given and differs from this process's; nothing is run.
    """
    if env is not None:
        diff = _mismatch(environment(), env)
        if diff:
            raise EnvironmentMismatch("; ".join(f"{k} {a} on the worker, {b} on the client"
                                                for k, a, b in diff))
    t0 = time.perf_counter()
    prep = prepare(**job) if isinstance(job, dict) else job
    res = prep.run()
    seconds = time.perf_counter() - t0
    if path is None:
        return res, seconds
    return save_result(res, path, seconds), seconds


def job_instance(job):
    """Short name of a job's instance: its name, instance-file stem, or ``means``."""
    if job.get("instance_file"):
        return Path(job["instance_file"]).stem
    return job.get("instance") or "means"


def _label(job):
    eps = job.get("epsilon")
    extra = "".join(f" {k}={job[k]:g}" for k in ("scale",) if job.get(k) is not None)
    name = job_instance(job)
    return f"{job['algorithm']} {name}" + (f" ε={eps:g}" if eps is not None else "") + extra


def _signature(job):
    """What decides whether a job can be planned, besides its parameters (checked per job)."""
    return json.dumps({k: job.get(k) for k in ("algorithm", "instance", "arms", "rewards",
                                                "sigma", "means", "instance_file")},
                      sort_keys=True, default=str)


def validate(jobs, bar=None):
    """Plan one run of every distinct algorithm × instance × rewards of ``jobs``.

    Raises
    ------
    ConfigError
        The first invalid job (before any job runs).
    """
    seen = set()
    task = bar.add_task(f"checking {len(jobs):,} jobs", total=len(jobs)) if bar else None
    for n, job in enumerate(jobs):
        sig = _signature(job)
        if sig not in seen:
            seen.add(sig)
            prepare(**{**job, "runs": 1})
        if bar is not None and (n % 256 == 255 or n == len(jobs) - 1):
            bar.update(task, completed=n + 1)
    if bar is not None:
        bar.remove_task(task)


def run_jobs(jobs, *, console=None, backend="local", scheduler=None, labels=None,
             paths=None, total=None, verbose=False, status=None):
    """Simulate every job; yield ``(index, result, seconds)`` as each finishes.

    Parameters
    ----------
    jobs : sequence of dict
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
        Per-job labels (``verbose`` lines).
    paths : list of path, optional
        Write job i's result to ``paths[i]`` (atomically) and yield its
        :class:`bandsim.studies.store.Outcome` (summary and mean curve)
        instead of the Result. On the in-process Dask cluster the workers
        write the files; with a remote scheduler the result comes back and is
        written here.
    total : int, optional
        ``len(jobs)``.
    verbose : bool
        One line per finished job above the bar.
    status : callable (index or None, seconds) -> str, optional
        The bar's text: asked before the first job (index None) and after each
        finished one (e.g. the suite's core-hours spent and left).

    Raises
    ------
    ConfigError
        If any job is invalid (before any job runs), or a Dask worker runs
        another environment (before any job is submitted).
    ImportError
        If ``backend="dask"`` and dask.distributed is not installed.
    """
    if backend not in BACKENDS:
        raise ConfigError("backend", backend, f"must be one of {', '.join(BACKENDS)}")
    n = len(jobs) if total is None else total
    if not n:
        return
    label = (lambda i: labels[i]) if labels else (lambda i: _label(jobs[i]))
    with caching():
        prepare(**jobs[0])  # the first job fails in one line before any bar is drawn
        bar = progress_bar(console)
        with bar:
            validate(jobs, bar if n > 1 else None)
            task = bar.add_task(status(None, 0.0) if status else f"{n:,} jobs" + (
                " on dask" if backend == "dask" else ""), total=n)
            run = _run_local if backend == "local" else _run_dask
            for i, res, seconds in run(jobs, paths, scheduler, bar, task):
                if verbose and console is not None:
                    console.print(f"{label(i)}: {seconds:.2f} s", highlight=False, markup=False)
                yield i, res, seconds
                if status is not None:
                    bar.update(task, description=status(i, seconds))


def _run_local(jobs, paths, scheduler, bar, task):
    for i, job in enumerate(jobs):
        prep = prepare(**job)
        runs = prep.config["runs"]
        t0 = time.perf_counter()
        res = prep.run(progress=lambda k, i=i: bar.update(task, completed=i + k / runs))
        del prep  # keep no plan or instance longer than needed
        seconds = time.perf_counter() - t0
        if paths is not None:
            res = save_result(res, paths[i], seconds)
        bar.update(task, completed=i + 1)
        yield i, res, seconds


def _run_dask(jobs, paths, scheduler, bar, task):
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
        yield from _submit_all(jobs, paths, scheduler, bar, task, on_workers)
    finally:
        log.setLevel(level)


def local_cores():
    """Cores this process may use (``taskset`` is honoured): the in-process cluster's threads."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_workers(client, scheduler=None):
    """Refuse (one line) if any Dask worker's environment differs from this process's.

    Parameters
    ----------
    client : dask.distributed.Client
        Anything with ``run(function) -> {worker: value}``.

    Raises
    ------
    ConfigError
        Names the first worker and the fields that differ.
    """
    ours = environment()
    for worker, theirs in sorted(client.run(environment).items()):
        diff = _mismatch(theirs, ours)
        if diff:
            what = "; ".join(f"{k} {a} there, {b} here" for k, a, b in diff)
            raise ConfigError("scheduler", scheduler or "in-process",
                              f"worker {worker} runs another environment ({what}); its "
                              "results would not match their keys: install the same "
                              "bandsim, numpy and numba on every worker")


def _submit_all(jobs, paths, scheduler, bar, task, on_workers):
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = (nullcontext(None) if scheduler else
               LocalCluster(processes=False, n_workers=1, threads_per_worker=local_cores(),
                            dashboard_address=None))
    lost = (OSError, TimeoutError, CancelledError)
    try:
        from distributed.scheduler import KilledWorker

        lost = lost + (KilledWorker,)
    except ImportError:  # pragma: no cover
        pass
    with cluster as c, Client(scheduler or c) as client:
        check_workers(client, scheduler)
        env = environment()
        futures = {}
        try:
            for i, job in enumerate(jobs):
                path = str(paths[i]) if on_workers else None
                futures[client.submit(_run_one, job, path, env, pure=False)] = i
            done = 0
            for fut in as_completed(futures):
                i = futures.pop(fut)
                res, seconds = fut.result()
                fut.release()  # the cluster forgets the result at once
                if paths is not None and not on_workers:
                    res = save_result(res, paths[i], seconds)
                done += 1
                bar.update(task, completed=done)
                yield i, res, seconds
        except EnvironmentMismatch as e:
            raise StudyFailed(f"a Dask worker joined with another environment ({e})", 0, 0) \
                from None
        except lost as e:
            if paths is not None and not on_workers and isinstance(e, OSError) \
                    and getattr(e, "errno", None):
                raise  # our own disk, not the cluster
            raise StudyFailed(f"the Dask scheduler or its workers were lost "
                              f"({type(e).__name__})", 0, 0) from None


class _Rate:
    """A rich column: jobs per second (or seconds per job)."""

    def __call__(self):
        from rich.progress import ProgressColumn
        from rich.text import Text

        class Rate(ProgressColumn):
            def render(self, task):
                s = task.speed
                if not s:
                    return Text("")
                return Text(f"{s:,.1f} jobs/s" if s >= 1 else f"{1 / s:,.1f} s/job")

        return Rate()


class PlainProgress(nullcontext):
    """Progress for a console that is not a terminal (stderr redirected to a file or pipe).

    rich draws its bar there only when the work ends; this prints one plain line
    when work starts, then at most one every ``every`` seconds, and one at the
    end: ``progress: 24 jobs 6.5/24 (27 %), 12 s elapsed, eta 33 s``.

    Parameters
    ----------
    console : rich.console.Console
    every : float
        Seconds between lines (default :data:`PLAIN_EVERY`).
    clock : callable, optional
        Seconds now (default ``time.monotonic``; tests pass their own).
    """

    def __init__(self, console, every=None, clock=time.monotonic):
        super().__init__(self)  # ``with PlainProgress(…) as bar`` gives the display
        self.console, self.clock = console, clock
        self.every = PLAIN_EVERY if every is None else every
        self.tasks = {}

    def add_task(self, description, total=None, **k):
        i = len(self.tasks)
        self.tasks[i] = dict(description=description, total=total, completed=0.0,
                             start=self.clock(), last=None)
        self._line(i)
        return i

    def update(self, task, completed=None, advance=None, **k):
        t = self.tasks.get(task)
        if t is None:
            return
        if k.get("description") is not None:  # e.g. the suite's core-hours
            t["description"] = k["description"]
        if completed is not None:
            t["completed"] = float(completed)
        if advance is not None:
            t["completed"] += advance
        done = t["total"] is not None and t["completed"] >= t["total"]
        if (done and not t.get("ended")) or (not done and self.clock() - t["last"] >= self.every):
            t["ended"] = done
            self._line(task)

    def advance(self, task, advance=1):
        self.update(task, advance=advance)

    def remove_task(self, task):
        self.tasks.pop(task, None)

    def _line(self, task):
        t = self.tasks[task]
        now = self.clock()
        t["last"] = now
        spent, total, done = now - t["start"], t["total"], t["completed"]
        text = f"progress: {t['description']} {done:,.4g}"
        if total:
            text += f"/{total:,} ({100 * done / total:.0f} %)"
        text += f", {spent:.0f} s elapsed"
        if total and 0 < done < total:
            text += f", eta {spent * (total - done) / done:.0f} s"
        self.console.print(text, highlight=False, markup=False, soft_wrap=True)
        file = getattr(self.console, "file", None)
        if file is not None and hasattr(file, "flush"):
            file.flush()


#: Seconds between the plain progress lines of a console that is not a terminal.
PLAIN_EVERY = 10.0


def progress_bar(console):
    """A progress display on ``console``: none (``None``), plain lines (not a terminal) or
    a rich bar."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    if console is None:
        class Silent(nullcontext):
            def __enter__(self):
                return self

            def add_task(self, *a, **k):
                return 0

            def update(self, *a, **k):
                pass

            advance = remove_task = update

        return Silent()
    if not console.is_terminal and not console.is_jupyter:  # a log file: lines, not a bar
        return PlainProgress(console)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    _Rate()(), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                    console=console, transient=False, refresh_per_second=4)
