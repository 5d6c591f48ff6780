"""The fixed-confidence result: stopping times, recommendations, censoring, summary, Parquet.

Parquet layout: one row per run, columns ``run`` (int64), ``tau`` (int64,
stopping time in pulls; T_max for a censored run), ``recommended`` (int64,
−1 when censored), ``correct`` (bool), ``stopped`` (bool); schema metadata
``bandsim.config`` (JSON), ``bandsim.versions`` and ``bandsim.sha256``
(:func:`bandsim.results.data_digest` of the columns). Regret results are not
touched (:class:`bandsim.results.Result`).

Censored runs (not stopped by the budget T_max) are never dropped and never
averaged as if they had stopped: the mean τ and its interval are over the
stopped runs, with the censored count beside them, and
``tau_mean_lower`` = mean of min(τ, T_max) over all runs is a lower bound on
E[τ]; the median treats a censored run as +∞ (reported only when it is a
stopped run's τ). The error rate is wrong recommendations among stopped runs,
with a Clopper–Pearson 95 % interval (scipy.stats.binomtest).
"""
import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..atomic import write_parquet
from ..errors import ConfigError
from ..results import CorruptResult, Z95, data_digest

if TYPE_CHECKING:
    import pandas

_KEYS = (b"bandsim.config", b"bandsim.versions")


@dataclass
class BAIResult:
    """The outcome of :func:`bandsim.bai.simulate_bai`.

    Attributes
    ----------
    tau : int64 (runs,)
        Stopping time τ in pulls; T_max where ``stopped`` is false (τ > T_max).
    recommended : int64 (runs,)
        Recommended arm (0-based); −1 for a censored run.
    correct : bool (runs,)
        The recommendation is the best arm (false for a censored run).
    stopped : bool (runs,)
        The run stopped within the budget.
    config : dict
        Resolved configuration (algorithm, instance, means, params, budget,
        runs, seed, stages, lower bound).
    versions : dict
    """

    tau: np.ndarray
    recommended: np.ndarray
    correct: np.ndarray
    stopped: np.ndarray
    config: dict
    versions: dict = field(default_factory=dict)

    __hash__ = None

    def __eq__(self, other):
        if not isinstance(other, BAIResult):
            return NotImplemented
        return all(np.array_equal(getattr(self, k), getattr(other, k)) and
                   getattr(self, k).dtype == getattr(other, k).dtype for k in self._names()) \
            and json.dumps(self.config, sort_keys=True) == json.dumps(other.config, sort_keys=True)

    @staticmethod
    def _names():
        return ("tau", "recommended", "correct", "stopped")

    @property
    def runs(self):
        """Number of runs, int."""
        return int(self.tau.size)

    def summary(self) -> dict:
        """Summary statistics (dict; NaN where undefined, e.g. no run stopped).

        Returns
        -------
        dict
            ``algorithm``, ``instance``, ``epsilon``, ``delta``, ``runs``,
            ``budget``, ``stopped``, ``censored``; ``tau_mean`` and
            ``tau_ci95`` (half-width, 1.96·s/√n) over the stopped runs;
            ``tau_mean_lower`` (mean of min(τ, T_max) over all runs: a lower
            bound on E[τ], equal to the mean when nothing is censored);
            ``tau_median`` (censored = +∞; NaN if at least half are censored);
            ``errors``, ``error_rate`` (among stopped runs) and
            ``error_ci95`` (Clopper–Pearson, list of two); ``lower_bound``
            (thesis Cor. 4.25) and ``ratio`` = tau_mean_lower / lower_bound
            (= E[τ]/bound without censoring, a lower bound on it otherwise).
        """
        from scipy.stats import binomtest

        c = self.config
        st = self.stopped
        n_st = int(st.sum())
        t = self.tau[st].astype(np.float64)
        mean = float(t.mean()) if n_st else float("nan")
        half = float(Z95 * t.std(ddof=1) / np.sqrt(n_st)) if n_st > 1 else float("nan")
        srt = np.sort(np.where(st, self.tau, np.iinfo(np.int64).max))
        med = float(np.median(srt)) if self.runs and (self.runs - n_st) * 2 < self.runs \
            else float("nan")
        errors = int((st & ~self.correct).sum())
        ci = binomtest(errors, n_st).proportion_ci(0.95, method="exact") if n_st else None
        lower = float(self.tau.mean()) if self.runs else float("nan")
        bound = c.get("lower_bound", {}).get("bound", float("nan"))
        return {
            "algorithm": c.get("algorithm"), "instance": c.get("instance"),
            "epsilon": c.get("params", {}).get("epsilon"), "delta": c.get("params", {}).get("delta"),
            "runs": self.runs, "budget": c.get("budget"), "stopped": n_st,
            "censored": self.runs - n_st, "tau_mean": mean, "tau_ci95": half,
            "tau_mean_lower": lower, "tau_median": med, "errors": errors,
            "error_rate": errors / n_st if n_st else float("nan"),
            "error_ci95": [float(ci.low), float(ci.high)] if ci else [float("nan")] * 2,
            "lower_bound": bound, "ratio": lower / bound,
        }

    def to_pandas(self) -> "pandas.DataFrame":
        """One row per run: ``run``, ``tau``, ``recommended``, ``correct``, ``stopped``
        (pandas.DataFrame; ``attrs["config"]`` the configuration)."""
        import pandas as pd

        df = pd.DataFrame({"run": np.arange(self.runs, dtype=np.int64), "tau": self.tau,
                           "recommended": self.recommended, "correct": self.correct,
                           "stopped": self.stopped})
        df.attrs["config"] = dict(self.config)
        return df

    def to_parquet(self, path: "str | os.PathLike", durable: bool = True) -> None:
        """Write to ``path`` (Parquet, atomically; lossless, SHA-256 of the data stored)."""
        import pyarrow as pa

        table = pa.table({"run": np.arange(self.runs, dtype=np.int64), "tau": self.tau,
                          "recommended": self.recommended, "correct": self.correct,
                          "stopped": self.stopped})
        meta = {b"bandsim.config": json.dumps(self.config).encode(),
                b"bandsim.versions": json.dumps(self.versions).encode(),
                b"bandsim.kind": b"bai"}
        meta[b"bandsim.sha256"] = data_digest(meta, self._arrays()).encode()
        write_parquet(path, table.replace_schema_metadata(meta), durable,
                      write_page_checksum=True)

    def _arrays(self):
        return tuple(getattr(self, k) for k in self._names())

    @classmethod
    def from_parquet(cls, path):
        """Read a result written by :meth:`to_parquet` (bit for bit).

        Raises
        ------
        CorruptResult
            The data does not match its SHA-256.
        ConfigError
            The file is not a fixed-confidence bandsim result.
        """
        import pyarrow.parquet as pq

        table = pq.ParquetFile(path, page_checksum_verification=True).read()
        meta = table.schema.metadata or {}
        if meta.get(b"bandsim.kind") != b"bai":
            raise ConfigError("path", str(path), "is not a bandsim best-arm identification result")
        col = {k: table.column(k).to_numpy() for k in cls._names()}
        res = cls(tau=col["tau"].astype(np.int64), recommended=col["recommended"].astype(np.int64),
                  correct=col["correct"].astype(bool), stopped=col["stopped"].astype(bool),
                  config=json.loads(meta[b"bandsim.config"]),
                  versions=json.loads(meta[b"bandsim.versions"]))
        if meta.get(b"bandsim.sha256", b"").decode() != data_digest(meta, res._arrays()):
            raise CorruptResult(f"{path}: data does not match its SHA-256")
        return res
