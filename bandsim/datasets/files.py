"""Instance files: bandit instances built from data, stored as Parquet.

Layout (one row per arm, written by :func:`write_instance`, read by
:func:`load_instance`; see docs/data.md):

``arm`` int64
    0…K−1, the arm's index in simulations.
``label`` string
    what the arm is in the data (``cluster 7``, ``item 14``, …).
``values`` list<float64>, ``probs`` list<float64>
    the reward distribution: value v_j ∈ [0, 1] with probability p_j.
``mean`` float64
    Σ_j p_j v_j.
``size`` int64
    how many data rows the arm's distribution rests on (cluster size,
    impressions).
any further columns
    builder-specific statistics (``clicks``, ``ctr_low``, …), shown by
    ``bandsim instances show``.

The schema metadata key ``bandsim.instance`` holds JSON: ``format`` (1),
``name``, ``kind`` (``mslr``, ``obd``, …) and ``provenance`` (source path,
its size and sha256, builder parameters and seed, library versions).
An instance whose every arm is supported on {0, 1} loads as Bernoulli
(mean = P(1)), any other as categorical.
"""
import hashlib
import json
from pathlib import Path

import numpy as np

from ..atomic import write_parquet
from ..errors import ConfigError
from ..instances import MAX_ARMS, Instance, categorical_instance

FORMAT = 1
META_KEY = b"bandsim.instance"


class DataFormatError(ConfigError):
    """A data file is malformed; the message names the file and the line."""

    def __init__(self, path, line, problem):
        self.path, self.line, self.problem = str(path), line, problem
        where = f"{path}, line {line}" if line is not None else str(path)
        ValueError.__init__(self, f"{where}: {problem}")
        self.field, self.value, self.allowed = "file", str(path), problem


def sha256(path, chunk=1 << 20):
    """Hex SHA-256 of a file's bytes.

    Parameters
    ----------
    path : str or Path
    chunk : int
        Bytes read at a time.

    Returns
    -------
    str
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def file_provenance(path):
    """Path, size and SHA-256 of a source file (for instance metadata).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    dict
        ``path`` (resolved), ``bytes``, ``sha256``.
    """
    p = Path(path).resolve()
    return {"path": str(p), "bytes": p.stat().st_size, "sha256": sha256(p)}


def library_versions(*names):
    """Versions of the named libraries that are importable (bandsim, numpy, pyarrow always).

    Parameters
    ----------
    *names : str

    Returns
    -------
    dict of str -> str
    """
    import importlib.metadata as md

    out = {}
    for n in ("bandsim", "numpy", "pyarrow") + names:
        try:
            out[n] = md.version(n)
        except md.PackageNotFoundError:
            pass
    return out


def write_instance(path, values, probs, *, name, kind, provenance, labels=None,
                   sizes=None, extra=None):
    """Write an instance file atomically (:func:`bandsim.atomic.write_parquet`).

    Parameters
    ----------
    path : str or Path
        Output ``.parquet`` file; it is replaced only once the new file is complete.
    values, probs : sequence of sequences of float
        Per arm, reward values in [0, 1] and their probabilities.
    name, kind : str
        Instance name (shown in results) and builder (``mslr``, ``obd``, …).
    provenance : dict
        JSON-serializable record of the source and the builder's parameters.
    labels : sequence of str, optional
    sizes : sequence of int, optional
        Data rows behind each arm.
    extra : dict of str → sequence, optional
        Additional per-arm columns.

    Returns
    -------
    Instance
        The instance as :func:`load_instance` will read it.

    Raises
    ------
    ConfigError
        Invalid distributions (see :func:`bandsim.instances.categorical_instance`).
    """
    import pyarrow as pa

    inst = categorical_instance(values, probs, name=name)  # validates
    K = inst.arms
    cols = {
        "arm": pa.array(np.arange(K, dtype=np.int64)),
        "label": pa.array([str(x) for x in labels] if labels is not None
                          else [f"arm {a}" for a in range(K)], pa.string()),
        "values": pa.array([list(map(float, v)) for v in values], pa.list_(pa.float64())),
        "probs": pa.array([list(map(float, p)) for p in probs], pa.list_(pa.float64())),
        "mean": pa.array(inst.location, pa.float64()),
        "size": pa.array(np.asarray(sizes if sizes is not None else np.zeros(K), np.int64)),
    }
    for k, v in (extra or {}).items():
        cols[k] = pa.array(np.asarray(v))
    meta = {"format": FORMAT, "name": name, "kind": kind, "provenance": provenance}
    table = pa.table(cols).replace_schema_metadata({META_KEY: json.dumps(meta).encode()})
    write_parquet(path, table)
    return load_instance(path)


def read_instance_table(path):
    """The arms table and metadata of an instance file.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    table : pyarrow.Table
    meta : dict
        The ``bandsim.instance`` metadata.

    Raises
    ------
    ConfigError
        Missing file, not Parquet, or no bandsim instance metadata/columns.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = Path(path)
    if not p.is_file():
        raise ConfigError("instance_file", str(path), "no such file")
    try:
        table = pq.read_table(p)
    except (pa.ArrowInvalid, OSError) as e:
        raise ConfigError("instance_file", str(path), f"not a Parquet file ({e})") from None
    meta = (table.schema.metadata or {}).get(META_KEY)
    missing = {"values", "probs"} - set(table.column_names)
    if meta is None or missing:
        raise ConfigError("instance_file", str(path),
                          "not a bandsim instance file (no bandsim.instance metadata or "
                          "values/probs columns; build one with `bandsim instances build`)")
    try:
        meta = json.loads(meta)
    except (ValueError, UnicodeDecodeError):
        meta = None
    if not isinstance(meta, dict):
        raise ConfigError("instance_file", str(path),
                          "its bandsim.instance metadata is not a JSON object")
    fmt = meta.get("format", FORMAT)
    if not isinstance(fmt, int) or isinstance(fmt, bool):
        raise ConfigError("instance_file", str(path), f"metadata format={fmt!r} is not an "
                                                      "integer")
    if table.num_rows > MAX_ARMS:
        raise ConfigError("instance_file", str(path), f"{table.num_rows:,} arms, more than the "
                                                      f"{MAX_ARMS:,} arms bandsim simulates")
    if meta.get("format", FORMAT) > FORMAT:
        raise ConfigError("instance_file", str(path),
                          f"format {meta['format']} is newer than this bandsim reads ({FORMAT})")
    return table, meta


def load_instance(path):
    """Read an instance file into an :class:`~bandsim.instances.Instance`.

    Parameters
    ----------
    path : str or Path
        A file written by :func:`write_instance` (``bandsim instances build``).

    Returns
    -------
    Instance
        Bernoulli (``location`` = P(reward = 1)) when every arm is supported on
        {0, 1}, categorical otherwise; ``name`` from the file, ``source`` =
        ``{"path", "sha256", "name", "kind", "provenance"}``.

    Raises
    ------
    ConfigError
        Unreadable file or invalid distributions.
    """
    table, meta = read_instance_table(path)
    values = table.column("values").to_pylist()
    probs = table.column("probs").to_pylist()
    p = Path(path).resolve()
    source = {"path": str(p), "sha256": sha256(p), "name": meta.get("name", p.stem),
              "kind": meta.get("kind"), "provenance": meta.get("provenance", {})}
    if any(v is None for v in values) or any(q is None for q in probs):
        raise ConfigError("instance_file", str(path), "an arm has no values/probs")
    try:
        inst = categorical_instance(values, probs, name=source["name"], source=source)
    except ConfigError as e:
        raise ConfigError("instance_file", str(path), str(e)) from None
    _check_mean_column(path, table, inst.location)
    if np.all(np.isin(inst.values[inst.probs > 0], (0.0, 1.0))):
        mean1 = (inst.probs * (inst.values == 1.0)).sum(axis=1)
        return Instance(inst.name, "bernoulli", mean1, source=source)
    return inst


def _check_mean_column(path, table, location, rtol=1e-9, atol=1e-12):
    """Refuse a ``mean`` column that contradicts the arms' values/probs (Σ_j p_j v_j)."""
    if "mean" not in table.column_names:
        return
    try:
        stated = np.asarray(table.column("mean").to_numpy(zero_copy_only=False), np.float64)
    except (TypeError, ValueError):
        raise ConfigError("instance_file", str(path), "its mean column is not numeric") from None
    ok = np.isclose(stated, location, rtol=rtol, atol=atol)
    if not ok.all():
        a = int(np.flatnonzero(~ok)[0])
        raise ConfigError("instance_file", str(path),
                          f"arm {a}: mean column says {stated[a]:.6g} but its values/probs "
                          f"give {location[a]:.6g}; rebuild the file")
