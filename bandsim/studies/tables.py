"""A study directory as tables: summary rows, replicates, one consolidated dataset.

:func:`collect` gives one summary row per result file (what ``bandsim
results`` prints), every file verified or answered by the directory's index
(:mod:`bandsim.studies.studydir`); :func:`aggregate` merges replicates;
:func:`consolidate` writes the whole study as one Parquet file that DuckDB,
pandas and polars read directly (schema: docs/results.md, "consolidated");
:func:`load` returns a study as one table.
"""
import json
import warnings
from pathlib import Path

import numpy as np

from .. import confidence
from ..atomic import atomic_open
from ..errors import ConfigError
from .store import Outcome, name_key, verify
from .studydir import MANIFEST, StudyDir, listing, stat_matches

#: Columns every row of ``bandsim results`` has, in order.
BASE_COLUMNS = ("algorithm", "instance", "arms", "rewards", "sigma", "epsilon", "confidence",
                "horizon",
                "runs", "seed", "regret_mean", "regret_ci95", "regret_median",
                "time_avg_regret_mean", "time_avg_regret_ci95", "version", "file", "key")
#: Columns a row has when its file lies in a study's directory (one with a ``study.json``):
#: the study's result files found and verified, and the jobs its manifest records.
JOB_COLUMNS = ("jobs_done", "jobs_total")
#: The statistics of the final pseudo-regret, named as in ``Result.summary()``,
#: ``run --json``, ``summary.json`` and the suite (docs/results.md, "One vocabulary").
STATISTICS = ("regret_mean", "regret_ci95", "regret_median", "time_avg_regret_mean",
              "time_avg_regret_ci95")


def scan(directory, *, allow_missing=False, warn=None, full=False):
    """Every verified result under ``directory``: ``(path, key, record)``, and the damaged.

    Each directory's index (:mod:`bandsim.studies.studydir`) answers for the
    files it verified and that have not changed since; any other file is read
    whole and verified (page checksums, data SHA-256, content key against
    the key in its name).

    Parameters
    ----------
    directory : path
    allow_missing : bool
        Skip damaged files (each named through ``warn``) instead of refusing.
    warn : callable(str), optional
        Receives one line per skipped file.
    full : bool
        Read and verify every file, whatever the index says (``--verify``:
        also catches damage that kept a file's size and modification time).

    Returns
    -------
    list of (Path, str, dict)
        ``record``: ``summary``, ``config``, ``version`` (as the index keeps them).

    Raises
    ------
    ConfigError
        ``directory`` is not a directory; a result file is damaged or
        unreadable (named, with what is wrong) and ``allow_missing`` is False.
    """
    d = Path(directory)
    if not d.is_dir():
        raise ConfigError("dir", str(directory), "is not a directory")
    dirs = sorted({d} | {p.parent for p in d.rglob("*.parquet") if not p.name.startswith(".")})
    out, bad = [], []
    for sub in dirs:
        files, _ = listing(sub)
        with StudyDir(sub, write=False) as sd:
            rows = sd.rows()
        for name in sorted(files):
            path, row = sub / name, rows.get(name)
            if not full and stat_matches(files[name].stat(), row) \
                    and name_key(name) in (None, row[3][:12]):
                out.append((path, row[3], json.loads(row[4])))
                continue
            try:
                res, k = verify(path, strict=False)
            except ValueError as e:
                bad.append((path, str(e)))
                continue
            out.append((path, k, Outcome.of(res).record()))
    if bad and not allow_missing:
        rel = [f"{p.relative_to(d)} ({why.split(': ', 1)[-1]})" for p, why in bad]
        raise ConfigError("dir", str(directory),
                          f"{len(bad)} result file(s) are damaged or unreadable: "
                          f"{'; '.join(rel[:3])}{' …' if len(rel) > 3 else ''}; rerun the "
                          "study to redo them, or pass --allow-missing to skip them")
    for p, why in bad:
        if warn is not None:
            warn(f"skipped {p.relative_to(d)}: {why.split(': ', 1)[-1]}")
    return out


def collect(directory, *, allow_missing=False, warn=None, full=False):
    """Summary rows of every result file under ``directory``.

    Returns
    -------
    list of dict
        :data:`BASE_COLUMNS` plus one column per algorithm parameter found
        (None where an algorithm does not take it) plus ``label``/``panel``
        (figures) or ``job`` (sweeps) when the directory's JSON names them.

    Raises
    ------
    ConfigError
        ``directory`` does not exist, holds no readable result, or holds a
        damaged one (see :func:`scan`; ``full`` as there).
    """
    d = Path(directory)
    found = scan(d, allow_missing=allow_missing, warn=warn, full=full)
    names = _names_from_json(d)
    studies = study_jobs(d, found)
    rows = []
    for f, k, rec in found:
        s, config = rec["summary"], rec["config"]
        rel = str(f.relative_to(d))
        row = dict(algorithm=s["algorithm"], instance=s["instance"], arms=s["arms"],
                   rewards=config.get("rewards"), sigma=config.get("sigma"),
                   epsilon=s["epsilon"], confidence=confidence.of_config(config)[1],
                   horizon=s["horizon"], runs=s["runs"],
                   seed=config.get("seed"), **{c: s.get(c) for c in STATISTICS},
                   version=rec.get("version"), file=rel, key=k)
        row["params"] = config.get("params", {})
        row.update(names.get(rel, {}))
        rows.append(row)
    if not rows:
        total = sum(s["total"] for s in studies.values())
        raise ConfigError("dir", str(directory), "holds no bandsim result file" + (
            f" (a study of {total:,} jobs, 0 of {total:,} done: rerun it)" if total else ""))
    params = sorted({k for r in rows for k in r["params"]} - {"epsilon"})
    extra = [c for c in ("panel", "label", "job") if any(c in r for r in rows)]
    out = Rows()
    out.studies = studies
    for r in rows:
        p = r.pop("params")
        row = {c: r.get(c) for c in extra}
        row.update({c: r[c] for c in BASE_COLUMNS[:7]})
        row.update({k: p.get(k) for k in params})
        row.update({c: r[c] for c in BASE_COLUMNS[7:]})
        if studies:
            study = studies.get(str(Path(r["file"]).parent))
            row.update(jobs_done=study and study["done"], jobs_total=study and study["total"])
        out.append(row)
    return out


class Rows(list):
    """The rows of :func:`collect`, and ``studies``: {study directory (relative, ``.`` for
    the top) → ``{"done": k, "total": n}``} of every study directory found."""

    studies = {}


def study_jobs(directory, found):
    """How complete each study under ``directory`` is: result files found against jobs asked.

    A study's directory (``sweep --out``, ``reproduce``'s figure directories)
    records in its manifest (``study.json``, :mod:`bandsim.studies.studydir`)
    the number of jobs of the study; a study killed, or whose files were
    deleted or damaged (and skipped), holds fewer verified result files.

    Parameters
    ----------
    directory : path
    found : list of (Path, str, dict)
        From :func:`scan`.

    Returns
    -------
    dict
        {study directory relative to ``directory`` (``"."`` for itself) →
        ``{"done": k, "total": n}``}; only directories with a manifest that
        records its jobs.
    """
    d = Path(directory)
    counts = {}
    for path, _, _ in found:
        counts[path.parent] = counts.get(path.parent, 0) + 1
    out = {}
    for sub in sorted(set(counts) | {d} | {m.parent for m in d.rglob(MANIFEST)}):
        try:
            total = json.loads((sub / MANIFEST).read_text()).get("jobs")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(total, int) and not isinstance(total, bool):
            out[str(sub.relative_to(d))] = {"done": counts.get(sub, 0), "total": total}
    return out


def partial_text(studies):
    """``"6 of 24 jobs"`` (summed over studies) when some study is partial, else None.

    Parameters
    ----------
    studies : dict
        :attr:`Rows.studies` (:func:`study_jobs`).

    Returns
    -------
    str or None
    """
    done = sum(s["done"] for s in studies.values())
    total = sum(s["total"] for s in studies.values())
    if all(s["done"] >= s["total"] for s in studies.values()):
        return None
    where = [k for k, s in studies.items() if s["done"] < s["total"]]
    return (f"{done:,} of {total:,} jobs"
            + (f" (partial: {', '.join(where[:3])}{' …' if len(where) > 3 else ''})"
               if len(studies) > 1 else ""))


#: Columns that differ between replicates of one configuration.
REPLICATE_COLUMNS = ("seed", "file", "key", "job", "label", *STATISTICS)


def aggregate(rows):
    """Rows of replicates (same configuration, other seeds) merged into one.

    Each merged row has ``replicates`` (n), ``regret_mean`` (mean over the
    replicates' mean final regrets), ``regret_ci95`` (half-width of the
    Student-t 95 % interval of that mean, from the between-replicate spread),
    ``replicate_sd`` (standard deviation of the replicates' means),
    ``regret_median`` (median of their medians), ``time_avg_regret_mean`` and
    ``time_avg_regret_ci95`` (the same divided by T) and ``seed``/``file`` as
    the number of seeds/files.
    Rows without replicates are returned unchanged (``replicates`` = 1).
    """
    groups = {}
    for r in rows:
        g = json.dumps({k: v for k, v in r.items() if k not in REPLICATE_COLUMNS},
                       sort_keys=True, default=str)
        groups.setdefault(g, []).append(r)
    out = []
    for members in groups.values():
        if len(members) == 1:
            out.append({**members[0], "replicates": 1, "replicate_sd": None})
            continue
        from scipy.stats import t as student  # imported only when there are replicates

        m = np.array([r["regret_mean"] for r in members], dtype=np.float64)
        n, sd = m.size, float(m.std(ddof=1))
        half = float(student.ppf(0.975, n - 1) * sd / np.sqrt(n))
        horizon = members[0]["horizon"]
        row = {k: v for k, v in members[0].items()}
        row.update(regret_mean=float(m.mean()), regret_ci95=half,
                   regret_median=float(np.median([r["regret_median"] for r in members])),
                   time_avg_regret_mean=float(m.mean()) / horizon,
                   time_avg_regret_ci95=half / horizon,
                   seed=f"{n} seeds", file=f"{n} files", key=None, replicates=n,
                   replicate_sd=sd)
        for c in ("job", "label"):
            if c in row:
                row[c] = members[0][c].rsplit("_rep=", 1)[0] if c == "job" and row[c] else row[c]
        out.append(row)
    return out


def _names_from_json(d):
    """file (relative to d) → panel/label (figure JSON) or job (sweep summary.json)."""
    out = {}
    for j in d.glob("*.json"):
        try:
            data = json.loads(j.read_text())
        except (OSError, ValueError):
            continue
        for r in data.get("rows", []) if isinstance(data, dict) else []:
            if isinstance(r, dict) and r.get("file"):
                out[r["file"]] = {k: r[k] for k in ("panel", "label", "job") if k in r}
    return out


#: Per-file statistics: in ``load(level="job")``, not in the per-run dataset.
STAT_COLUMNS = STATISTICS
CONSOLIDATED = "consolidated.parquet"


def _column(values):
    """A pyarrow array of one column's values; mixed types become text."""
    import pyarrow as pa

    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if v is None else (v if isinstance(v, str) else json.dumps(v))
                         for v in values], type=pa.string())


def _table(rows, columns):
    import pyarrow as pa

    return pa.table({c: _column([r.get(c) for r in rows]) for c in columns})


def _run_tables(directory, rows):
    """One table per result file: its settings repeated on every run, and the run's data."""
    import pyarrow as pa

    d = Path(directory)
    settings = [c for c in rows[0] if c not in STAT_COLUMNS]
    types = _table(rows, settings).schema
    for r in rows:
        res, _ = verify(d / r["file"], strict=False)
        n, C = res.pseudo_regret.shape
        cols = {c: pa.array([r.get(c)] * n, type=types.field(c).type) if
                types.field(c).type != pa.string() or r.get(c) is None or isinstance(r[c], str)
                else pa.array([json.dumps(r[c])] * n, type=pa.string()) for c in settings}
        cols["run"] = pa.array(np.arange(n, dtype=np.int64))
        cols["final_regret"] = pa.array(res.pseudo_regret[:, -1])
        cols["regret"] = pa.ListArray.from_arrays(
            pa.array(np.arange(0, n * C + 1, C, dtype=np.int32)),
            pa.array(res.pseudo_regret.ravel()))
        cols["checkpoints"] = pa.array([res.checkpoints.tolist()] * n,
                                       type=pa.list_(pa.int64()))
        K = res.pulls.shape[1]
        cols["pulls"] = pa.ListArray.from_arrays(
            pa.array(np.arange(0, n * K + 1, K, dtype=np.int32)), pa.array(res.pulls.ravel()))
        yield pa.table(cols)


def consolidate(directory, *, allow_missing=False, warn=None, with_rows=False):
    """Write every run of every result under ``directory`` to ``DIR/consolidated.parquet``.

    One row per (result file, run): the file's settings (the columns of
    :func:`collect` without its per-file statistics), ``run``,
    ``final_regret``, ``regret`` (list, at ``checkpoints``), ``checkpoints``
    and ``pulls`` (list over arms); schema in docs/results.md,
    "consolidated". Written file by file (memory of one result), atomically,
    with page checksums.

    Returns
    -------
    path : Path
    runs : int
        Rows written.
    rows : Rows
        Only with ``with_rows``: the :func:`collect` rows (their ``studies``
        say whether the study is partial).

    Raises
    ------
    ConfigError
        As :func:`collect`.
    """
    import pyarrow.parquet as pq

    d = Path(directory)
    rows = collect(d, allow_missing=allow_missing, warn=warn)
    path, n, writer = d / CONSOLIDATED, 0, None
    with atomic_open(path) as f:
        for t in _run_tables(d, rows):
            if writer is None:
                schema = t.schema.with_metadata({b"bandsim.consolidated": json.dumps(
                    _consolidated_meta(rows)).encode()})
                writer = pq.ParquetWriter(f, schema, write_page_checksum=True,
                                          compression="zstd")
            writer.write_table(t.cast(writer.schema))
            n += t.num_rows
        writer.close()
    return (path, n, rows) if with_rows else (path, n)


def _consolidated_meta(rows):
    """What a consolidated file holds: every result file with its key, and the studies'
    jobs. :func:`load` uses the file only while the directory holds exactly these."""
    return {"format": 2, "files": len(rows), "keys": {r["file"]: r["key"] for r in rows},
            "studies": getattr(rows, "studies", {})}


def _consolidated_current(path, rows):
    """True when ``path`` (a consolidated file) holds exactly the results ``rows`` name:
    the same files with the same keys, none deleted, added or changed since."""
    import pyarrow.parquet as pq

    try:
        meta = json.loads((pq.read_schema(path).metadata or {})[b"bandsim.consolidated"])
    except (OSError, KeyError, ValueError, TypeError):  # unreadable or older: rebuild
        return False
    return (isinstance(meta, dict) and meta.get("keys") == {r["file"]: r["key"] for r in rows}
            and meta.get("studies") == getattr(rows, "studies", {}))


def load(directory, *, level="job", allow_missing=False):
    """A study as one tidy table (pyarrow; ``.to_pandas()``, ``polars.from_arrow``).

    Parameters
    ----------
    directory : path
        A sweep's or figure's directory, or any folder of result files.
    level : {"job", "run"}
        ``job``: one row per result file (the columns of ``bandsim results
        --per-file --json``: every setting, ``regret_mean``, ``regret_ci95``, …,
        ``file``, ``key``). ``run``: one row per run of every file (the
        consolidated schema, docs/results.md), read through
        :mod:`pyarrow.dataset` from ``DIR/consolidated.parquet`` when it
        holds exactly the result files the directory holds now (same files,
        same keys: never the runs of a deleted or changed file), else built
        in memory.
    allow_missing : bool
        Skip damaged files instead of refusing.

    Returns
    -------
    pyarrow.Table
        In a study's directory it has the columns ``jobs_done`` and
        ``jobs_total`` (:data:`JOB_COLUMNS`), and its schema metadata
        ``bandsim.jobs`` (JSON: ``done``, ``total``, ``partial`` and each
        study's counts); a partial study also gives a :class:`UserWarning`
        "partial study: k of n jobs".

    Raises
    ------
    ConfigError
        Unknown ``level``; as :func:`collect`.
    """
    import pyarrow as pa

    if level not in ("job", "run"):
        raise ConfigError("level", level, "must be job or run")
    d = Path(directory)
    rows = collect(d, allow_missing=allow_missing)
    partial = partial_text(rows.studies) if rows.studies else None
    if partial:
        warnings.warn(f"{d} is a partial study: {partial} done; the table holds only "
                      "those (rerun the study to complete it)", UserWarning, stacklevel=3)
    if level == "job":
        return _with_jobs(_table(rows, list(rows[0])), rows.studies, partial)
    cons = d / CONSOLIDATED
    if cons.exists():
        newest = max((d / r["file"]).stat().st_mtime_ns for r in rows)
        if cons.stat().st_mtime_ns >= newest and _consolidated_current(cons, rows):
            import pyarrow.dataset as ds

            return _with_jobs(ds.dataset(cons, format="parquet").to_table(), rows.studies,
                              partial)
    tables = list(_run_tables(d, rows))
    return _with_jobs(pa.concat_tables(tables, promote_options="permissive"), rows.studies,
                      partial)


def _with_jobs(table, studies, partial):
    """``table`` with the studies' completeness in its schema metadata ``bandsim.jobs``."""
    if not studies:
        return table
    jobs = {"done": sum(s["done"] for s in studies.values()),
            "total": sum(s["total"] for s in studies.values()),
            "partial": bool(partial), "studies": studies}
    meta = dict(table.schema.metadata or {})
    meta[b"bandsim.jobs"] = json.dumps(jobs).encode()
    return table.replace_schema_metadata(meta)
