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
duplicates removed. ``confidence`` sets every algorithm's confidence
parameter, whatever its paper calls it (DP-SE's ``beta``, Chowdhury & Zhou's
``p``; :mod:`bandsim.confidence`): a comparison at one confidence.

Seeds: every job of the grid runs with the same root seed (``seed`` in
``[study]``), so algorithms compared on ``easy``/``hard`` see the same random
instances. Without one, a seed is drawn once for the whole grid, recorded in
``DIR/study.json`` and reused when the study is resumed into ``DIR``.
``seeds = "independent"`` in ``[study]`` gives each job its own seed derived
from the root seed and the job's name. Replicates: ``seed = [1, 2, 3]`` in
``[grid]``, or ``replicates = N`` in ``[study]`` (replicate r of every
configuration runs with the same seed, derived from the root seed and r);
``bandsim results`` aggregates them with their between-replicate spread.
Any setting may be swept, ``horizon`` and ``runs`` included.

Each job writes ``DIR/<job>--<key>.parquet`` through :mod:`bandsim.studies.store`
(keyed by the job's full configuration and the code that computes it; atomic
writes, checksummed): an interrupted sweep resumes where it stopped, and a
changed study is refused unless ``overwrite=True`` (:mod:`bandsim.studies.studydir`).
``DIR/summary.parquet`` and ``DIR/summary.json`` hold one row per job with
every swept setting as a column.

:func:`sweep` is the Python route (a dict of lists or a DataFrame of jobs);
:func:`sweep_file` reads a study file and calls it.
"""
import datetime
import hashlib
import itertools
import json
import math
import secrets
import tomllib
from pathlib import Path

import numpy as np

from .. import confidence, registry
from ..atomic import atomic_open, write_parquet
from ..errors import ConfigError, check_int
from .store import RUN_KEYS, dumps, exact, slot_name
from .studydir import MAX_JOBS, StudyDir, run_stored

SEED_MODES = ("shared", "independent")
MAX_SEED = 2**63 - 1


def load_study(path):
    """Parse a study file into (name, list of job dicts); see :func:`read_study`."""
    name, jobs, _ = read_study(path)
    return name, jobs


def _read_toml(path):
    path = Path(path)
    if path.is_dir():
        raise ConfigError("study", str(path), "is a directory, not a TOML study file")
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise ConfigError("study", str(path), f"cannot be read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise ConfigError("study", str(path), f"is not UTF-8 text (byte {e.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError("study", str(path), f"cannot be read as TOML ({e})") from None


def read_study(path):
    """Parse a study file into (name, list of job dicts, settings).

    Returns
    -------
    name : str
    jobs : list of dict
    settings : dict
        ``seeds`` (``shared`` or ``independent``), ``replicates`` (int),
        ``swept``: the keys of ``[grid]`` (algorithm included), in file order,
        and ``definition``: the file's tables (the study's manifest entry).

    Raises
    ------
    ConfigError
        Not UTF-8 or not TOML, a table other than ``[study]``/``[grid]``, a
        missing ``[grid]``, a non-list grid entry, a date or a boolean where a
        number is expected, a seed outside [0, 2⁶³ − 1], an unknown key or one
        that no algorithm of the study takes, or more jobs than a study may have.
    """
    path = Path(path)
    data = _read_toml(path)
    unknown = [k for k in data if k not in ("study", "grid")]
    if unknown:
        raise ConfigError(unknown[0], data[unknown[0]] if not isinstance(
            data[unknown[0]], dict) else "[table]",
            "is not a study table: a study file has [study] and [grid] only")
    study = data.get("study", {})
    if not isinstance(study, dict):
        raise ConfigError("study", study, "must be a [study] table")
    study = dict(study)
    grid = data.get("grid")
    if not grid or not isinstance(grid, dict):
        raise ConfigError("grid", None, f"{path} needs a [grid] table of lists")
    return plan_grid(study.pop("name", path.stem), study, grid)


def plan_grid(name, study, grid):
    """The jobs of a grid: ``study`` settings shared by all, ``grid`` lists crossed.

    Parameters
    ----------
    name : str
    study : dict
        Settings of every job (simulate() keywords), plus ``seeds`` and
        ``replicates``.
    grid : dict of lists
        Crossed (``algorithm`` may be one of them).

    Returns
    -------
    As :func:`read_study`.

    Raises
    ------
    ConfigError
        As :func:`read_study`.
    """
    study = dict(study)
    json.dumps([study, grid], default=_refuse_date)  # dates and other non-TOML values
    seeds = study.pop("seeds", "shared")
    if seeds not in SEED_MODES:
        raise ConfigError("seeds", seeds, f"must be one of {', '.join(SEED_MODES)}")
    replicates = check_int("replicates", _no_bool("replicates", study.pop("replicates", 1)),
                           1, 10_000)
    # what the manifest compares (the name is not part of it: a renamed file is the same study)
    definition = json.loads(json.dumps({"study": study, "grid": grid, "seeds": seeds,
                                        "replicates": replicates}))
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"grid.{key}", values, "must be a non-empty list")
    if "algorithm" not in grid and "algorithm" not in study:
        raise ConfigError("algorithm", None, "give it in [study] or [grid]")
    swept = list(grid)
    algo_names = grid.get("algorithm") or [study.pop("algorithm")]
    grid = {k: v for k, v in grid.items() if k != "algorithm"}
    algos = [registry.get_algorithm(_no_bool("algorithm", a)) for a in algo_names]
    param_names = {p.name: p for a in algos for p in a.params}
    conf = next((a.confidence for a in algos if a.confidence), None)
    if conf is not None:  # every algorithm's confidence, under one name
        param_names.setdefault(confidence.KEY, conf)
    for key in list(study) + list(grid):
        if key not in RUN_KEYS and key not in param_names:
            raise ConfigError(key, (study | grid)[key],
                              "is neither a run setting nor a parameter of "
                              + ", ".join(a.name for a in algos))
    for key, values in [(k, [v]) for k, v in study.items()] + list(grid.items()):
        p = param_names.get(key)
        for v in values:
            if isinstance(v, bool) and not (p is not None and p.boolean):
                raise ConfigError(key, v, "must be a number or a name, not true/false")
            if key == "seed" and v is not None:
                check_int("seed", v, 0, MAX_SEED)
    n = len(algos) * replicates
    for v in grid.values():
        n *= len(v)
    if n > MAX_JOBS:
        raise ConfigError("grid", f"{n:,} jobs", f"a study may have at most {MAX_JOBS:,} jobs "
                                                 "(split it into several studies)")
    jobs, seen = [], set()
    keys = list(grid)
    for algo in algos:
        for combo in itertools.product(*(grid[k] for k in keys)):
            job = confidence.apply(algo, {**study, **dict(zip(keys, combo))})
            job = {k: v for k, v in job.items() if k in RUN_KEYS or algo.param(k)}
            job["algorithm"] = algo.name
            key = json.dumps(job, sort_keys=True)
            if key not in seen:
                seen.add(key)
                for r in range(replicates):
                    jobs.append({**job, "replicate": r} if replicates > 1 else job)
    return name, jobs, dict(seeds=seeds, swept=swept, replicates=replicates,
                            definition=definition)


def _no_bool(field, v):
    if isinstance(v, bool):
        raise ConfigError(field, v, "must not be true/false")
    return v


def _refuse_date(v):
    if isinstance(v, (datetime.date, datetime.time)):
        raise ConfigError("study", v.isoformat(), "dates and times are not study settings")
    raise ConfigError("study", repr(v), "is not a TOML number, string or list")


def _value(v):
    if isinstance(v, float):
        return exact(v)  # 0.1 and 0.1000001 are different jobs
    if isinstance(v, (list, tuple)):
        return "-".join(_value(x) for x in v)
    return str(v)


#: Settings every job of a grid usually shares: in a job's name only when swept.
SHARED = ("horizon", "runs", "seed", "threads")


def job_name(job, swept=()):
    """A file name for a job: its non-shared settings, readable, floats written exactly.

    ``horizon``, ``runs`` and ``seed`` appear when they are in ``swept``;
    a replicate's index as ``rep=r``.
    """
    parts = [job["algorithm"]]
    for k in sorted(job):
        if k in ("algorithm", "replicate") or (k in SHARED and k not in swept):
            continue
        v = job[k]
        if k == "instance_file":
            v = Path(v).stem
        parts.append(f"{k}={_value(v)}")
    if "replicate" in job:
        parts.append(f"rep={job['replicate']}")
    return slot_name("_".join(str(p).replace("/", "-").replace(",", "-") for p in parts))


def _independent_seed(root, name):
    words = np.frombuffer(hashlib.sha256(name.encode()).digest()[:8], np.uint32)
    ss = np.random.SeedSequence([root, *map(int, words)])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def assign_seeds(jobs, names, settings, manifest):
    """Give every job its seed (see the module notes); return the root seed drawn, or None.

    A study without a seed draws one; ``manifest`` (the directory's, or None)
    supplies the one drawn when the study first ran into its directory.
    """
    fixed = [j for j in jobs if j.get("seed") is not None]
    root = None
    if len(fixed) < len(jobs):
        try:
            root = int((manifest or {})["seed"])
        except (KeyError, TypeError, ValueError):
            root = secrets.randbits(63)
    for job, name in zip(jobs, names):
        if job.get("seed") is None:
            job["seed"] = root
        if "replicate" in job:
            job["seed"] = _independent_seed(int(job["seed"]), f"replicate={job['replicate']}")
        if settings["seeds"] == "independent":
            job["seed"] = _independent_seed(int(job["seed"]), name)
    return root


def sweep_file(path, out, **kwargs):
    """Run a study file (``bandsim sweep``); see :func:`run_study` for the keywords.

    Raises
    ------
    ConfigError
        On an invalid study file (before any job runs), and as :func:`run_study`.
    """
    return run_study(read_study(path), out, **kwargs)


def sweep(grid, out, *, study=None, name=None, seeds="shared", replicates=1, **kwargs):
    """Run a grid of simulations into a study directory (the Python route).

    Parameters
    ----------
    grid : dict, pandas.DataFrame or path
        A study file (as ``bandsim sweep``), a dict of lists (crossed, as ``[grid]`` of a study file; scalars are
        settings of every job), or a DataFrame with one job per row (its
        columns are simulate() keywords; missing values are dropped).
    out : path
        The study directory (resumed when it holds this study).
    study : dict, optional
        Settings shared by every job (``[study]``: horizon, runs, seed, …).
    name : str, optional
        The study's name (default: the directory's name).
    seeds : {"shared", "independent"}
    replicates : int
        Replicates of each configuration (seeds derived from the root seed).
    **kwargs
        ``console``, ``backend``, ``scheduler``, ``overwrite``, ``verbose``,
        ``verify`` (:func:`run_study`).

    Returns
    -------
    list of dict
        One summary row per job (as ``DIR/summary.json``); the whole study as
        one table: :func:`bandsim.load`.

    Raises
    ------
    ConfigError
        Invalid grid or job (before any job runs); ``out`` holds another study.
    bandsim.studies.store.Interrupted, bandsim.studies.store.StudyFailed
        Ctrl-C, or a failed disk or cluster (jobs done and left).
    """
    if isinstance(grid, (str, Path)):  # a study file
        if study or name or seeds != "shared" or replicates != 1:
            raise ConfigError("study", str(grid), "a study file sets study, name, seeds and "
                                                  "replicates itself; pass a dict grid to set "
                                                  "them from Python")
        return sweep_file(grid, out, **kwargs)
    settings = dict(study or {}, seeds=seeds, replicates=replicates)
    name = name or Path(out).name
    if hasattr(grid, "to_dict") and hasattr(grid, "columns"):  # a DataFrame: one job per row
        return run_study(_frame_jobs(name, grid, settings), out, **kwargs)
    if not isinstance(grid, dict):
        raise ConfigError("grid", type(grid).__name__, "must be a dict of lists or a DataFrame")
    lists = {k: v for k, v in grid.items() if isinstance(v, (list, tuple, range))}
    settings.update({k: v for k, v in grid.items() if k not in lists})
    lists = {k: [_plain(x) for x in v] for k, v in lists.items()}
    return run_study(plan_grid(name, settings, lists), out, **kwargs)


def _plain(v):
    return v.item() if hasattr(v, "item") and not isinstance(v, (list, dict)) else v


def _frame_jobs(name, frame, settings):
    if len(frame) > MAX_JOBS:
        raise ConfigError("grid", f"{len(frame):,} rows", f"a study may have at most "
                                                        f"{MAX_JOBS:,} jobs")
    rows = []
    for r in frame.to_dict("records"):
        rows.append({k: _plain(v) for k, v in r.items()
                     if v is not None and not (isinstance(v, float) and math.isnan(v))})
    swept = [c for c in frame.columns if len({json.dumps(r.get(c), default=str)
                                               for r in rows}) > 1]
    jobs, defs = [], []
    for r in rows:
        _, one, st = plan_grid(name, settings, {k: [v] for k, v in r.items()})
        jobs += one
        defs.append(r)
    st.update(swept=swept, definition={"study": settings, "rows": defs})
    return name, jobs, st


def run_study(parsed, out, *, console=None, backend="local", scheduler=None,
              overwrite=False, verbose=False, verify=False):
    """Run parsed study ``(name, jobs, settings)`` into ``out``; return the summary rows.

    Each row has ``job``, ``file``, ``resumed``, ``seconds``, ``seed``, every
    swept setting and the result's summary. ``verify`` reads and verifies
    every stored result instead of trusting the directory's index for the
    files unchanged since they were verified.

    Raises
    ------
    ConfigError
        On an invalid job (before any job runs), an unusable ``out``, or when
        ``out`` holds another study and ``overwrite`` is False.
    bandsim.studies.store.Interrupted
        On Ctrl-C (what is stored stays; run again to resume).
    bandsim.studies.store.StudyFailed
        Full or read-only disk, removed output, lost Dask cluster.
    """
    import pyarrow as pa

    name, jobs, settings = parsed
    out = Path(out)
    swept = [k for k in settings["swept"] if k != "algorithm"]
    names = [job_name(j, swept) for j in jobs]
    with StudyDir(out) as sd:
        root = assign_seeds(jobs, names, settings, sd.manifest())
        reps = [j.pop("replicate", None) for j in jobs]
        study = {"name": name, "definition": settings["definition"], "seed": root,
                 "extra": {"drawn": root is not None}}
        entries, outcomes = run_stored(jobs, names, out, overwrite=overwrite, console=console,
                                       backend=backend, scheduler=scheduler, study=study,
                                       store=sd, verbose=verbose, full=verify)
        rows = []
        for i, (job, e, rep) in enumerate(zip(jobs, entries, reps)):
            o, outcomes[i] = outcomes[i], None  # keep one copy of each summary
            row = dict(job=e.slot, file=e.path.name, key=e.key, resumed=o.summary["resumed"],
                       seconds=o.summary.get("seconds"))
            row.update({k: job.get(k) for k in swept if k != confidence.KEY})  # from summary
            if rep is not None:
                row["replicate"] = rep
            row.update({k: v for k, v in o.summary.items() if k not in row})
            rows.append(row)
        del outcomes
        meta = {b"bandsim.study": name.encode(), b"bandsim.swept": json.dumps(swept).encode()}
        table = pa.Table.from_pylist([_columnar(r) for r in rows])
        write_parquet(out / "summary.parquet", table.replace_schema_metadata(meta))
        del table
        _write_summary_json(out / "summary.json", name, swept, rows)
    return rows


def _write_summary_json(path, name, swept, rows):
    """``summary.json`` written row by row (no second copy of a 10⁵-row study in memory)."""
    small = len(rows) <= 200
    with atomic_open(path) as f:
        head = dumps(dict(study=name, swept=swept), indent=2 if small else None)
        f.write(head[:-1].rstrip().encode() + b', "rows": [')
        for i, r in enumerate(rows):
            f.write((("," if i else "") + ("\n  " if small else "") + dumps(r)).encode())
        f.write(b"]}\n")


def _columnar(row):
    """A summary row for Parquet: list values (explicit means) as text."""
    return {k: (json.dumps(v) if isinstance(v, (list, tuple)) else v) for k, v in row.items()}
