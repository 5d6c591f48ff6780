"""Simulation results, their summary statistics and their Parquet form.

Parquet layout (docs/results.md): one row per run with fixed-size list
columns ``pseudo_regret`` (float64 × C), ``pulls`` (int64 × K),
``elimination_time`` (int64 × K), ``means`` (float64 × K); the schema metadata
holds ``bandsim.config`` (JSON of the resolved configuration, seed included),
``bandsim.checkpoints`` (JSON list), ``bandsim.versions`` and
``bandsim.sha256``: the SHA-256 of the data (:func:`data_digest`). Every page
carries a CRC-32 (Parquet page checksums). Reading verifies both, so a
flipped bit anywhere in the data or the metadata is an error, never a number.
"""
import json
import math
from dataclasses import dataclass, field

from typing import Any

import numpy as np

from . import confidence
from .atomic import write_parquet
from .config import RunConfig
from .errors import ConfigError

Z95 = 1.959963984540054  # standard normal 97.5 % quantile


def json_safe(obj):
    """``obj`` with every NaN/±inf float replaced by None (strict JSON).

    Parameters
    ----------
    obj : object
        Nested dicts, lists, tuples, numpy scalars and arrays.

    Returns
    -------
    object
    """
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.generic):
        return json_safe(obj.item())
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist())
    return obj


def _canonical(d):
    """A dict as canonical JSON (sorted keys, exact floats; tuples and lists alike)."""
    return json.dumps(json_safe(dict(d)), sort_keys=True, default=repr)


class CorruptResult(ValueError):
    """A result file whose bytes do not match its checksums (page CRC or data SHA-256)."""


def data_digest(meta, arrays):
    """SHA-256 (hex) of a result's metadata values and arrays, in a fixed order.

    Parameters
    ----------
    meta : dict of bytes -> bytes
        ``bandsim.config``, ``bandsim.checkpoints``, ``bandsim.versions``.
    arrays : sequence of numpy.ndarray
        pseudo_regret, pulls, elimination_time, means (any dtype, C order).

    Returns
    -------
    str
        64 hex digits; stored in the file's schema metadata and compared on
        every read (:class:`CorruptResult` on a mismatch).
    """
    import hashlib

    h = hashlib.sha256(b"bandsim-result-v1")
    for k in (b"bandsim.config", b"bandsim.checkpoints", b"bandsim.versions"):
        v = meta.get(k, b"")
        h.update(len(v).to_bytes(8, "little") + v)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(a.dtype.str.encode() + repr(a.shape).encode())
        h.update(a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes())
    return h.hexdigest()


def mean_ci(x):
    """Mean and half-width of its normal-approximation 95 % confidence interval.

    Parameters
    ----------
    x : array_like of float

    Returns
    -------
    mean : float
    half : float
        1.96 · s / √n; NaN for one value.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    m = float(x.mean())
    half = float(Z95 * x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return m, half


@dataclass
class Result:
    """The outcome of :func:`bandsim.simulate`.

    Attributes
    ----------
    checkpoints : int64 (C,)
        Times at which pseudo-regret is recorded; the last one is T.
    pseudo_regret : float64 (runs, C)
        Σ_a Δ_a N_a(t) at each checkpoint.
    pulls : int64 (runs, K)
        N_a(T).
    elimination_time : int64 (runs, K)
        Time at which each arm was eliminated, −1 if never.
    means : float64 (runs, K)
        True mean rewards of each run's instance.
    config : RunConfig
        Reads as a dict (``config["privacy"]``); see :class:`bandsim.config.RunConfig`.
        The full resolved configuration (algorithm, instance, parameters,
        seed, shard size, per-stage parameters).
    versions : dict
        bandsim, numpy, numba versions that produced the result.
    """

    checkpoints: np.ndarray
    pseudo_regret: np.ndarray
    pulls: np.ndarray
    elimination_time: np.ndarray
    means: np.ndarray
    config: RunConfig
    versions: dict = field(default_factory=dict)

    #: The array fields, compared exactly by ``==``.
    ARRAYS = ("checkpoints", "pseudo_regret", "pulls", "elimination_time", "means")

    __hash__ = None  # mutable arrays inside: not hashable

    def __eq__(self, other):
        """Exact equality: same dtypes, shapes and bits of every array, same config and versions.

        Parameters
        ----------
        other : object

        Returns
        -------
        bool
            NotImplemented for a non-Result.
        """
        if not isinstance(other, Result):
            return NotImplemented
        for name in self.ARRAYS:
            a, b = getattr(self, name), getattr(other, name)
            if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b,
                                                                               equal_nan=True):
                return False
        return _canonical(self.config) == _canonical(other.config) and \
            _canonical(self.versions) == _canonical(other.versions)

    def __repr__(self):
        """One line: algorithm, instance, K, ε, T, runs, seed and the mean final regret."""
        c = self.config
        eps = c.get("params", {}).get("epsilon")
        final = self.pseudo_regret[:, -1]
        mean = f"{final.mean():,.4g}" if final.size else "-"
        return (f"<bandsim.Result {c.get('algorithm')} on {c.get('instance')} "
                f"K={self.pulls.shape[1]}{'' if eps is None else f' ε={eps:g}'} "
                f"T={self.horizon:,} runs={self.runs:,} seed={c.get('seed')} "
                f"checkpoints={self.checkpoints.size} regret_mean={mean}>")

    @property
    def runs(self):
        """Number of runs, int."""
        return self.pseudo_regret.shape[0]

    @property
    def horizon(self):
        """T, the last checkpoint, int."""
        return int(self.checkpoints[-1])

    def to_pandas(self, kind: str = "regret") -> Any:
        """Tidy (long) pandas frames of the result.

        Parameters
        ----------
        kind : {"regret", "pulls"}
            ``"regret"``: one row per run and checkpoint, columns ``run``
            (int64), ``t`` (int64) and ``regret`` (float64, pseudo-regret
            Σ_a Δ_a N_a(t)); runs × C rows, run-major.
            ``"pulls"``: one row per run and arm, columns ``run``, ``arm``,
            ``pulls`` (N_a(T)), ``mean`` (μ_a of that run's instance) and
            ``elimination_time`` (−1 if never); runs × K rows.

        Returns
        -------
        pandas.DataFrame
            ``attrs`` holds the configuration (``attrs["config"]``).

        Raises
        ------
        ConfigError
            Unknown ``kind``.
        ImportError
            pandas is not installed (``pip install bandsim[tidy]``).
        """
        import pandas as pd

        runs, C = self.pseudo_regret.shape
        K = self.pulls.shape[1]
        if kind == "regret":
            df = pd.DataFrame({"run": np.repeat(np.arange(runs, dtype=np.int64), C),
                               "t": np.tile(self.checkpoints.astype(np.int64), runs),
                               "regret": self.pseudo_regret.ravel()})
        elif kind == "pulls":
            df = pd.DataFrame({"run": np.repeat(np.arange(runs, dtype=np.int64), K),
                               "arm": np.tile(np.arange(K, dtype=np.int64), runs),
                               "pulls": self.pulls.ravel(), "mean": self.means.ravel(),
                               "elimination_time": self.elimination_time.ravel()})
        else:
            raise ConfigError("kind", kind, "must be regret or pulls")
        df.attrs["config"] = dict(self.config)
        return df

    def to_xarray(self) -> Any:
        """The result as an :class:`xarray.Dataset` with dimensions ``run``, ``t`` and ``arm``.

        Returns
        -------
        xarray.Dataset
            ``regret`` (run, t), ``pulls``, ``elimination_time``, ``means``
            (run, arm); coordinates ``t`` = checkpoints; ``attrs``: the
            configuration and versions as JSON strings.

        Raises
        ------
        ImportError
            xarray is not installed (``pip install bandsim[tidy]``).
        """
        import xarray as xr

        runs = np.arange(self.runs, dtype=np.int64)
        arms = np.arange(self.pulls.shape[1], dtype=np.int64)
        return xr.Dataset(
            {"regret": (("run", "t"), self.pseudo_regret),
             "pulls": (("run", "arm"), self.pulls),
             "elimination_time": (("run", "arm"), self.elimination_time),
             "means": (("run", "arm"), self.means)},
            coords={"run": runs, "t": self.checkpoints, "arm": arms},
            attrs={"config": json.dumps(dict(self.config)),
                   "versions": json.dumps(self.versions)})

    def summary(self) -> dict:
        """Summary statistics of the final pseudo-regret.

        Returns
        -------
        dict
            ``algorithm``, ``instance``, ``arms``, ``epsilon``, ``confidence``
            and ``confidence_param`` (its value and the algorithm's name for it,
            :mod:`bandsim.confidence`; None if it declares none),
            ``runs``, ``horizon``, ``regret_mean``, ``regret_ci95`` (half-width),
            ``regret_median``, ``time_avg_regret_mean`` (Reg(T)/T),
            ``time_avg_regret_ci95``, ``pulls_mean`` (list over arms).
        """
        final = self.pseudo_regret[:, -1]
        m, h = mean_ci(final)
        T = self.horizon
        conf_name, conf = confidence.of_config(self.config)
        return {
            "algorithm": self.config.get("algorithm"),
            "instance": self.config.get("instance"),
            "arms": int(self.pulls.shape[1]),
            "epsilon": self.config.get("params", {}).get("epsilon"),
            "confidence": conf,
            "confidence_param": conf_name,
            "runs": int(self.runs),
            "horizon": T,
            "regret_mean": m,
            "regret_ci95": h,
            "regret_median": float(np.median(final)),
            "time_avg_regret_mean": m / T,
            "time_avg_regret_ci95": h / T,
            "pulls_mean": self.pulls.mean(axis=0).tolist(),
        }

    def mean_regret_curve(self) -> Any:
        """Mean pseudo-regret over runs at each checkpoint.

        Returns
        -------
        float64 (C,)
        """
        return self.pseudo_regret.mean(axis=0)

    def to_parquet(self, path: Any, extra_meta: dict | None = None,
                   durable: bool = True) -> None:
        """Write the result to ``path`` (Parquet via pyarrow, atomically); lossless.

        Parameters
        ----------
        path : str or Path
            Target file; replaced only once the new file is complete.
        extra_meta : dict of bytes -> bytes, optional
            More schema metadata.
        durable : bool
            fsync before returning (:func:`bandsim.atomic.atomic_open`).
        """
        import pyarrow as pa

        def col(a, typ):
            a = np.ascontiguousarray(a)
            flat = pa.array(a.ravel(), type=typ)
            return pa.FixedSizeListArray.from_arrays(flat, a.shape[1])

        table = pa.table({
            "run": pa.array(np.arange(self.runs, dtype=np.int64)),
            "pseudo_regret": col(self.pseudo_regret, pa.float64()),
            "pulls": col(self.pulls, pa.int64()),
            "elimination_time": col(self.elimination_time, pa.int64()),
            "means": col(self.means, pa.float64()),
        })
        meta = {
            b"bandsim.config": json.dumps(dict(self.config)).encode(),
            b"bandsim.checkpoints": json.dumps(self.checkpoints.tolist()).encode(),
            b"bandsim.versions": json.dumps(self.versions).encode(),
        }
        meta.update(extra_meta or {})
        meta[b"bandsim.sha256"] = data_digest(meta, self._arrays()).encode()
        write_parquet(path, table.replace_schema_metadata(meta), durable,
                      write_page_checksum=True)

    def _arrays(self):
        return (self.pseudo_regret, self.pulls, self.elimination_time, self.means)

    @classmethod
    def from_parquet(cls, path):
        """Read a result written by :meth:`to_parquet`.

        Parameters
        ----------
        path : str or Path

        Returns
        -------
        Result
            Bit for bit the result that was written.

        Raises
        ------
        CorruptResult
            A page checksum or the data's SHA-256 does not match (the file
            was damaged after it was written).
        ValueError
            If the file carries no bandsim metadata or cannot be decoded.
        """
        import pyarrow.parquet as pq

        import pyarrow as pa

        try:
            table = pq.ParquetFile(path, page_checksum_verification=True).read()  # no pyarrow.dataset import
        except (FileNotFoundError, PermissionError, IsADirectoryError):
            raise
        except (OSError, pa.ArrowException) as e:
            if "checksum" in str(e).lower() or "crc" in str(e).lower():
                raise CorruptResult(f"{path}: page checksum mismatch") from None
            raise CorruptResult(f"{path}: damaged ({e})") from None
        meta = table.schema.metadata or {}
        if b"bandsim.config" not in meta:
            raise ValueError(f"{path} is not a bandsim result (no bandsim.config metadata)")

        def arr(name, dtype):
            c = table.column(name).combine_chunks()
            width = c.type.list_size
            flat = c.flatten()
            if flat.null_count == 0 and flat.type.bit_width == 64:  # the values buffer as is
                # (pyarrow's to_numpy imports pandas when it is installed: 0.3 s per process)
                data = np.frombuffer(flat.buffers()[1], dtype=flat.type.to_pandas_dtype(),
                                     count=len(flat), offset=8 * flat.offset)
            else:
                data = flat.to_numpy(zero_copy_only=False)
            return np.array(data.reshape(-1, width), dtype=dtype, order="C")

        res = cls(
            checkpoints=np.array(json.loads(meta[b"bandsim.checkpoints"]), dtype=np.int64),
            pseudo_regret=arr("pseudo_regret", np.float64),
            pulls=arr("pulls", np.int64),
            elimination_time=arr("elimination_time", np.int64),
            means=arr("means", np.float64),
            config=RunConfig.from_dict(json.loads(meta[b"bandsim.config"])),
            versions=json.loads(meta[b"bandsim.versions"]),
        )
        stored = meta.get(b"bandsim.sha256")
        if stored is not None and stored.decode() != data_digest(meta, res._arrays()):
            raise CorruptResult(f"{path}: data does not match its SHA-256")
        return res
