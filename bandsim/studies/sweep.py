"""``bandsim sweep STUDY.toml --out DIR``: a grid of simulations, locally or on Dask.

A study file has a ``[study]`` table of settings shared by every job and a
``[grid]`` table whose lists are crossed::

    [study]
    name = "thesis-eps"
    horizon = 5e7
    runs = 10000
    seed = 1

    [grid]
    algorithm = ["dp-se", "batch-se"]
    instance = ["C1", "C2", "C3", "C4"]
    arms = [5]
    epsilon = [0.1, 0.25, 0.5, 1]

Any :func:`bandsim.simulate` keyword may appear in either table. Parameters
an algorithm does not take (ε for ``batch-se``) are dropped for it, and
duplicates removed. Each job writes ``DIR/<job>.parquet``; a job whose file
exists is skipped (resume after an interruption); ``DIR/summary.parquet`` and
``DIR/summary.json`` collect the summary rows of all jobs.
"""
import itertools
import json
import tomllib
from pathlib import Path

from .. import registry
from ..errors import ConfigError

RUN_KEYS = {"instance", "arms", "horizon", "runs", "seed", "rewards", "sigma", "means",
            "checkpoints", "threads", "instance_file"}


def load_study(path):
    """Parse a study file into (name, list of job dicts).

    Raises
    ------
    ConfigError
        Missing ``[grid]``, a non-list grid entry, an unknown key, or a key
        that no algorithm of the study takes.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError("study", str(path), f"cannot be read as TOML ({e})") from None
    study = dict(data.get("study", {}))
    grid = data.get("grid")
    if not grid:
        raise ConfigError("grid", None, f"{path} needs a [grid] table of lists")
    name = study.pop("name", path.stem)
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"grid.{key}", values, "must be a non-empty list")
    if "algorithm" not in grid and "algorithm" not in study:
        raise ConfigError("algorithm", None, "give it in [study] or [grid]")
    algo_names = grid.get("algorithm") or [study.pop("algorithm")]
    grid = {k: v for k, v in grid.items() if k != "algorithm"}
    algos = [registry.get_algorithm(a) for a in algo_names]
    param_names = {p.name for a in algos for p in a.params}
    for key in list(study) + list(grid):
        if key not in RUN_KEYS and key not in param_names:
            raise ConfigError(key, (study | grid)[key],
                              "is neither a run setting nor a parameter of "
                              + ", ".join(a.name for a in algos))
    jobs, seen = [], set()
    keys = list(grid)
    for algo in algos:
        for combo in itertools.product(*(grid[k] for k in keys)):
            job = {**study, **dict(zip(keys, combo))}
            job = {k: v for k, v in job.items() if k in RUN_KEYS or algo.param(k)}
            job["algorithm"] = algo.name
            key = json.dumps(job, sort_keys=True)
            if key not in seen:
                seen.add(key)
                jobs.append(job)
    return name, jobs


def job_name(job):
    """A file name for a job: its non-shared settings, readable."""
    parts = [job["algorithm"]]
    for k in sorted(job):
        if k in ("algorithm", "horizon", "runs", "seed", "threads"):
            continue
        v = job[k]
        if k == "instance_file":
            v = Path(v).stem
        parts.append(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}")
    return "_".join(str(p).replace("/", "-").replace(",", "-") for p in parts)


def sweep(path, out, *, console=None, backend="local", scheduler=None):
    """Run a study file; return the summary rows (one per job).

    Raises
    ------
    ConfigError
        On an invalid study or job (before any job runs).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .jobs import run_jobs
    from ..results import Result

    name, jobs = load_study(path)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = [out / f"{job_name(j)}.parquet" for j in jobs]
    todo = [i for i, f in enumerate(files) if not f.exists()]
    rows = [None] * len(jobs)
    for i in set(range(len(jobs))) - set(todo):
        rows[i] = dict(job=files[i].stem, resumed=True, **Result.from_parquet(files[i]).summary())
    for j, res, seconds in run_jobs([jobs[i] for i in todo], console=console,
                                    backend=backend, scheduler=scheduler):
        i = todo[j]
        res.to_parquet(files[i])
        rows[i] = dict(job=files[i].stem, resumed=False, seconds=seconds, **res.summary())
    table = pa.Table.from_pylist([{k: v for k, v in r.items() if k != "pulls_mean"}
                                  for r in rows])
    pq.write_table(table.replace_schema_metadata({b"bandsim.study": name.encode()}),
                   out / "summary.parquet")
    (out / "summary.json").write_text(json.dumps(dict(study=name, rows=rows), indent=2))
    return rows
