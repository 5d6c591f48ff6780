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
duplicates removed.

Seeds: every job of the grid runs with the same root seed (``seed`` in
``[study]``), so algorithms compared on ``easy``/``hard`` see the same random
instances. Without one, a seed is drawn once for the whole grid, recorded in
``DIR/study.json`` and reused when the study is resumed into ``DIR``.
``seeds = "independent"`` in ``[study]`` gives each job its own seed derived
from the root seed and the job's name; ``seed = [1, 2, 3]`` in ``[grid]``
makes replicates.

Each job writes ``DIR/<job>--<key>.parquet`` through :mod:`bandsim.store`
(keyed by the job's full configuration and the bandsim version; atomic
writes): an interrupted sweep resumes where it stopped, and a changed study
is refused unless ``overwrite=True``. ``DIR/summary.parquet`` and
``DIR/summary.json`` hold one row per job with every swept setting as a column.
"""
import itertools
import json
import tomllib
from pathlib import Path

from .. import registry
from ..atomic import write_parquet, write_text
from ..errors import ConfigError
from .store import RUN_KEYS, dumps, exact, run_stored, slot_name

SEED_MODES = ("shared", "independent")


def load_study(path):
    """Parse a study file into (name, list of job dicts); see :func:`read_study`."""
    name, jobs, _ = read_study(path)
    return name, jobs


def read_study(path):
    """Parse a study file into (name, list of job dicts, settings).

    Returns
    -------
    name : str
    jobs : list of dict
    settings : dict
        ``seeds`` (``shared`` or ``independent``) and ``swept``: the keys of
        ``[grid]`` (algorithm included), in file order.

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
    seeds = study.pop("seeds", "shared")
    if seeds not in SEED_MODES:
        raise ConfigError("seeds", seeds, f"must be one of {', '.join(SEED_MODES)}")
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"grid.{key}", values, "must be a non-empty list")
    if "algorithm" not in grid and "algorithm" not in study:
        raise ConfigError("algorithm", None, "give it in [study] or [grid]")
    swept = list(grid)
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
    return name, jobs, dict(seeds=seeds, swept=swept)


def _value(v):
    if isinstance(v, float):
        return exact(v)  # 0.1 and 0.1000001 are different jobs
    if isinstance(v, (list, tuple)):
        return "-".join(_value(x) for x in v)
    return str(v)


def job_name(job):
    """A file name for a job: its non-shared settings, readable, floats written exactly."""

    parts = [job["algorithm"]]
    for k in sorted(job):
        if k in ("algorithm", "horizon", "runs", "seed", "threads"):
            continue
        v = job[k]
        if k == "instance_file":
            v = Path(v).stem
        parts.append(f"{k}={_value(v)}")
    return slot_name("_".join(str(p).replace("/", "-").replace(",", "-") for p in parts))


def _independent_seed(root, name):
    import hashlib

    import numpy as np

    words = np.frombuffer(hashlib.sha256(name.encode()).digest()[:8], np.uint32)
    ss = np.random.SeedSequence([root, *map(int, words)])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def assign_seeds(jobs, names, settings, out):
    """Give every job its seed (see the module notes); return the root seed used.

    A study without a seed draws one and records it in ``out/study.json``; a
    later run of the study into ``out`` reuses it.
    """
    import secrets

    manifest = Path(out) / "study.json"
    fixed = [j for j in jobs if j.get("seed") is not None]
    root = None
    if len(fixed) < len(jobs):
        try:
            root = int(json.loads(manifest.read_text())["seed"])
        except (OSError, ValueError, KeyError, TypeError):
            root = secrets.randbits(63)
    for job, name in zip(jobs, names):
        if job.get("seed") is None:
            job["seed"] = root
        if settings["seeds"] == "independent":
            job["seed"] = _independent_seed(int(job["seed"]), name)
    if root is not None:
        write_text(manifest, dumps(dict(seed=root, drawn=True,
                                        note="root seed drawn for this study "
                                             "(no seed in [study]); reused on resume"),
                                   indent=1))
    return root


def sweep(path, out, *, console=None, backend="local", scheduler=None, overwrite=False):
    """Run a study file; return the summary rows (one per job).

    Each row has ``job``, ``file``, ``resumed``, ``seconds``, ``seed``, every
    swept setting and the result's summary.

    Raises
    ------
    ConfigError
        On an invalid study or job (before any job runs), or when ``out``
        holds results of another configuration of the same jobs and
        ``overwrite`` is False.
    bandsim.store.Interrupted
        On Ctrl-C (what is stored stays; run again to resume).
    """
    import pyarrow as pa

    name, jobs, settings = read_study(path)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    names = [job_name(j) for j in jobs]
    assign_seeds(jobs, names, settings, out)
    entries, outcomes = run_stored(jobs, names, out, overwrite=overwrite, console=console,
                                   backend=backend, scheduler=scheduler)
    swept = [k for k in settings["swept"] if k != "algorithm"]
    rows = []
    for job, e, o in zip(jobs, entries, outcomes):
        row = dict(job=e.slot, file=e.path.name, key=e.key, resumed=o.summary["resumed"],
                   seconds=o.summary.get("seconds"))
        row.update({k: job.get(k) for k in swept})
        row.update({k: v for k, v in o.summary.items() if k not in row})
        rows.append(row)
    meta = {b"bandsim.study": name.encode(), b"bandsim.swept": json.dumps(swept).encode()}
    table = pa.Table.from_pylist([_columnar(r) for r in rows])
    write_parquet(out / "summary.parquet", table.replace_schema_metadata(meta))
    write_text(out / "summary.json", dumps(dict(study=name, swept=swept, rows=rows), indent=2))
    return rows


def _columnar(row):
    """A summary row for Parquet: list values (explicit means) as text."""
    return {k: (json.dumps(v) if isinstance(v, (list, tuple)) else v) for k, v in row.items()}
