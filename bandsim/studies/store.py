"""A results store that cannot lie: every job keyed by its full configuration.

A study (a sweep or a figure) is a list of jobs, each the keyword set of one
:func:`bandsim.simulate` call. The store gives each job

- an **identity**: the fully resolved configuration that determines its
  numbers — algorithm, every algorithm parameter with its default filled in,
  the instance (name, K, reward model, σ of Gaussian rewards, explicit means,
  or the SHA-256 of an instance file), horizon, runs, root seed, the
  checkpoint times — and the code and environment that compute them: the
  bandsim version, the SHA-256 of the kernel sources, the numpy and numba
  versions and, for plug-ins, their provenance as every result records it
  (``config["plugins"]``: distribution, version and SHA-256 of the plug-in's
  sources, :func:`bandsim.registry.plugin_provenance`; :func:`identity`);
- a **key**: the SHA-256 of the identity's canonical JSON (floats written
  exactly, so ε = 0.1 and 0.1000001 differ; :func:`key`);
- a **file**: ``DIR/<slot>--<key[:12]>.parquet``, where the slot is the job's
  readable name within the study (e.g. ``dp-se_arms=5_epsilon=0.25_instance=C1``).

The identity of a stored file is recomputed from the configuration the
simulation itself recorded (:func:`identity_of`), never from the file name.
When a study is run again into the same directory, a job is taken from disk
only if the stored identity equals the asked one. A file in the job's slot
that holds another configuration (the study changed: another horizon, runs,
seed, version, parameter…) is refused with one :class:`~bandsim.ConfigError`
that names what differs, unless ``overwrite=True``, which deletes it and
recomputes. Every file carries Parquet page checksums and the SHA-256 of its
data (:meth:`bandsim.Result.to_parquet`); a file that fails them, or whose
content key differs from the key in its name, is reported and its job redone.
Every file is written through :mod:`bandsim.atomic`, so a killed study leaves
no partial result.

The directory itself — its lock, its manifest (the study and the environment
it was computed in) and its index — is :mod:`bandsim.studies.studydir`.

Interruptions: a study turns Ctrl-C into :class:`Interrupted` and a failure of
the disk or of the Dask cluster into :class:`StudyFailed`; both carry how many
jobs are done and how many are left, and the command line prints that and
the command that resumes.
"""
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from .. import registry
from .._version import __version__
from ..datasets.files import sha256
from ..errors import ConfigError, check_int
from ..kernels import _jit as jit
from ..results import Z95, Result, json_safe
from ..runner import MAX_HORIZON, resolve_checkpoints

#: Keys of a job that are run settings, not algorithm parameters.
RUN_KEYS = {"instance", "arms", "horizon", "runs", "seed", "rewards", "sigma", "means",
            "checkpoints", "threads", "instance_file"}
SEP = "--"


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a study: ``done`` of ``total`` jobs are stored, ``left`` are not."""

    def __init__(self, done, total):
        self.done, self.total, self.left = done, total, total - done
        super().__init__(f"{done} of {total} jobs done, {total - done} left")


class StudyFailed(RuntimeError):
    """A study stopped by its surroundings (full or read-only disk, vanished
    output, lost Dask scheduler): ``done`` of ``total`` jobs are stored.

    Attributes
    ----------
    reason : str
        One line: what failed (e.g. ``writing out/: No space left on device``).
    done, total, left : int
    """

    def __init__(self, reason, done, total):
        self.reason, self.done, self.total, self.left = reason, done, total, total - done
        super().__init__(f"{reason}: {done} of {total} jobs done, {total - done} left")


def environment():
    """What besides the configuration decides a result's numbers.

    Returns
    -------
    dict
        ``version`` (bandsim), ``kernels`` (SHA-256 of the kernel sources,
        :data:`bandsim.kernels._jit.SOURCE_DIGEST`), ``numpy``, ``numba``.
    """
    return {"version": __version__, "kernels": jit.SOURCE_DIGEST, "numpy": np.__version__,
            "numba": numba.__version__}


# ----------------------------------------------------------------------------- identity

def _sha256_file(path, _cache={}):
    p = Path(path).resolve()
    try:
        st = p.stat()
    except OSError:
        raise ConfigError("instance_file", str(path), "cannot be read") from None
    k = (str(p), st.st_ino, st.st_mtime_ns, st.st_size)
    if k not in _cache:
        _cache[k] = sha256(p)
    return _cache[k]


def identity(job):
    """The identity of a job (a :func:`bandsim.simulate` keyword dict), without planning it.

    Parameters
    ----------
    job : dict
        ``algorithm`` and the other simulate() keywords; ``seed`` must be an
        integer (a study fixes it before asking).

    Returns
    -------
    dict
        JSON-serializable; equal to :func:`identity_of` of the job's result.

    Raises
    ------
    ConfigError
        Invalid algorithm, parameter, horizon, runs, seed or checkpoints.
    """
    algo = registry.get_algorithm(job["algorithm"])
    horizon = check_int("horizon", job.get("horizon"), 2, MAX_HORIZON)
    params = {k: v for k, v in job.items()
              if k not in RUN_KEYS and k != "algorithm" and v is not None}
    ident = {
        "algorithm": algo.name,
        "params": algo.resolve(params, horizon),
        "horizon": horizon,
        "runs": check_int("runs", job.get("runs", 1000), 1, 10**8),
        "seed": check_int("seed", job.get("seed"), 0, 2**63 - 1),
        "checkpoints": _checkpoints(job.get("checkpoints"), horizon, resolve_checkpoints),
        **environment(),
    }
    plugins = registry.plugin_provenance(algo)
    if plugins:  # as the simulation records it in config["plugins"] (identity_of)
        ident["plugins"] = plugins
    if job.get("instance_file") is not None:
        ident["instance_file"] = _sha256_file(job["instance_file"])
        return ident
    rewards = job.get("rewards") or "bernoulli"
    means = job.get("means")
    if means is not None:
        means = [float(m) for m in np.asarray(means, dtype=np.float64).ravel()]
        ident.update(instance="means", arms=len(means), means=means)
    else:
        ident.update(instance=job.get("instance"),
                     arms=None if job.get("arms") is None else int(job["arms"]))
    ident["rewards"] = rewards
    if rewards == "gaussian":
        ident["sigma"] = float(job.get("sigma", 0.1) if job.get("sigma") is not None else 0.1)
    return ident


def _checkpoints(spec, horizon, resolve, _cache={}):
    """``resolve_checkpoints(spec, horizon)`` as a list, memoized (a study asks it per job)."""
    try:
        k = (json.dumps(spec), horizon)
    except TypeError:  # e.g. a numpy array
        return resolve(spec, horizon).tolist()
    if k not in _cache:
        if len(_cache) > 4096:
            _cache.clear()
        _cache[k] = resolve(spec, horizon).tolist()
    return list(_cache[k])


def identity_of(config, checkpoints, versions):
    """The identity of a stored result, from what the simulation recorded.

    Parameters
    ----------
    config : dict
        ``Result.config``.
    checkpoints : sequence of int
    versions : dict
        ``Result.versions``.

    Plug-in provenance is ``config["plugins"]``, recorded by the simulation
    (:func:`bandsim.registry.plugin_provenance`), the same source :func:`identity` asks.
    """
    ident = {
        "algorithm": config["algorithm"],
        "params": config["params"],
        "horizon": int(config["horizon"]),
        "runs": int(config["runs"]),
        "seed": int(config["seed"]),
        "checkpoints": [int(c) for c in checkpoints],
        "version": versions.get("bandsim"),
        "kernels": versions.get("kernels_source"),
        "numpy": versions.get("numpy"),
        "numba": versions.get("numba"),
    }
    if config.get("plugins"):
        ident["plugins"] = config["plugins"]
    if config.get("instance_file"):
        ident["instance_file"] = config["instance_file"].get("sha256")
        return ident
    ident.update(instance=config.get("instance"), arms=int(config["arms"]))
    if config.get("instance") == "means":
        ident["means"] = [float(m) for m in config["location"]]
    ident["rewards"] = config.get("rewards")
    if config.get("rewards") == "gaussian":
        ident["sigma"] = float(config["sigma"])
    return ident


def canonical(obj):
    """Canonical JSON of an identity: sorted keys, no spaces, floats exact (repr)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)


def key(ident):
    """SHA-256 (hex) of an identity's canonical JSON."""
    return hashlib.sha256(canonical(ident).encode()).hexdigest()


def _flat(ident):
    out = {}
    for k, v in ident.items():
        if isinstance(v, dict):
            out.update({f"{k}.{kk}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out


def differences(stored, asked):
    """Fields whose values differ: list of (field, stored value, asked value)."""
    a, b = _flat(stored), _flat(asked)
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            out.append((k, a.get(k), b.get(k)))
    return out


def _show(v):
    if isinstance(v, list) and len(v) > 4:
        return f"[{len(v)} values]"
    if isinstance(v, float):
        return repr(v)
    return json.dumps(v) if not isinstance(v, str) else v


# ----------------------------------------------------------------------------- files

def read_identity(path):
    """The identity of a result file, from its Parquet footer only (no checksum verified).

    Raises
    ------
    ValueError
        The file is unreadable or not a bandsim result.
    """
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(path).metadata or {}
        config = json.loads(meta[b"bandsim.config"])
        cps = json.loads(meta[b"bandsim.checkpoints"])
        versions = json.loads(meta.get(b"bandsim.versions", b"{}"))
        return identity_of(config, cps, versions)
    except Exception as e:  # noqa: BLE001 - any failure means "not a readable result"
        raise ValueError(f"{path}: not a readable bandsim result ({type(e).__name__}: {e})") \
            from None


def name_key(path):
    """The key prefix in a store file's name (``slot--<key[:12]>.parquet``), or None."""
    stem = Path(path).name[:-len(".parquet")]
    k = stem.rpartition(SEP)[2] if SEP in stem else ""
    return k if len(k) == 12 and all(c in "0123456789abcdef" for c in k) else None


def verify(path, *, strict=True):
    """Read a whole result file, verifying it; return ``(Result, key)``.

    Parameters
    ----------
    path : path
    strict : bool
        Also refuse a file without a data SHA-256 (written by an older
        bandsim; the store redoes those).

    Raises
    ------
    ValueError
        One line naming the file and what is wrong: unreadable, a page
        checksum or the data SHA-256 fails (:class:`bandsim.results.CorruptResult`),
        no checksum (``strict``), or the content key differs from the key
        in the file's name.
    """
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        res = Result.from_parquet(path)
        if strict and b"bandsim.sha256" not in (pq.read_schema(path).metadata or {}):
            raise ValueError("no data checksum (written by an older bandsim)")
        k = key(identity_of(res.config, res.checkpoints, res.versions))
    except Exception as e:  # noqa: BLE001 - any failure means "not a readable result"
        msg = str(e).replace(f"{path}: ", "").replace(str(path), "the file")
        raise ValueError(f"{path.name}: {msg or type(e).__name__}") from None
    named = name_key(path)
    if named is not None and named != k[:12]:
        raise ValueError(f"{path.name}: its content has key {k[:12]}, not the key in its name")
    return res, k


def result_files(directory):
    """Every bandsim result file under ``directory`` (recursively), sorted."""
    d = Path(directory)
    return sorted(p for p in d.rglob("*.parquet")
                  if p.name not in NOT_RESULTS and not p.name.startswith("."))


#: Parquet files a study directory holds that are not single results.
NOT_RESULTS = {"summary.parquet", "consolidated.parquet"}


#: Parts of a result's configuration an Outcome does not keep (in the file only).
SLIM = ("stages", "privacy", "samplers")


class Outcome:
    """What a study keeps of a result in memory: its summary and mean curve.

    Attributes
    ----------
    summary : dict
        ``Result.summary()`` without ``pulls_mean``, plus ``seed``.
    checkpoints : int64 (C,)
    mean, half95 : float64 (C,)
        Mean pseudo-regret over runs and the half-width of its 95 % interval
        (NaN with one run). An outcome taken from a study's index reads them
        from its file (verified) the first time they are asked for.
    config : dict
        The result's configuration without its per-stage tables, privacy
        report and sampler provenance (:data:`SLIM`).
    version : str
        bandsim version that computed it.
    """

    def __init__(self, summary, checkpoints=None, mean=None, half95=None, config=None,
                 version=None, path=None):
        self.summary, self.config, self.version, self.path = summary, config or {}, version, path
        self._curve = None if mean is None else (checkpoints, mean, half95)

    def _load(self):
        if self._curve is None:
            res, _ = verify(self.path, strict=False)
            self._curve = Outcome.of(res)._curve
        return self._curve

    checkpoints = property(lambda self: self._load()[0])
    mean = property(lambda self: self._load()[1])
    half95 = property(lambda self: self._load()[2])

    @classmethod
    def of(cls, res):
        y = res.pseudo_regret
        half = (Z95 * y.std(axis=0, ddof=1) / np.sqrt(y.shape[0]) if y.shape[0] > 1
                else np.full(y.shape[1], np.nan))
        s = res.summary()
        s.pop("pulls_mean", None)
        s["seed"] = res.config.get("seed")
        config = {k: v for k, v in res.config.items() if k not in SLIM}
        return cls(s, res.checkpoints.copy(), y.mean(axis=0), half, config,
                   res.versions.get("bandsim"))

    def forget_curve(self, path):
        """Drop the curve (read again from ``path`` if asked): a study of 10⁵ jobs keeps
        only summaries in memory."""
        self.path, self._curve = path, None

    def record(self):
        """The JSON-able part a study's index keeps (no curve)."""
        return {"summary": self.summary, "config": self.config, "version": self.version}


    @classmethod
    def from_record(cls, rec, path):
        return cls(dict(rec["summary"]), config=rec["config"], version=rec["version"],
                   path=path)


def save_result(res, path, seconds=None, durable=False):
    """Write ``res`` to ``path`` atomically and return its :class:`Outcome`.

    Not fsync'ed unless ``durable``: a study syncs its files in batches before
    its index records them (:meth:`bandsim.studies.studydir.StudyDir.commit`).
    """
    res.to_parquet(path, durable=durable)
    out = Outcome.of(res)
    out.summary["seconds"] = seconds
    return out


def load_outcome(path):
    """The :class:`Outcome` of a stored result file, verified (raises ValueError if not)."""
    res, _ = verify(path, strict=False)
    return Outcome.of(res)


@dataclass
class Entry:
    """One job of a study in the store: its slot, file, key and whether it is done."""

    index: int
    slot: str
    path: Path
    identity: dict
    key: str
    done: bool = False
    note: str = ""


def exact(x):
    """A float as short as ``:g`` when that is exact, else its full ``repr`` (0.1000001)."""
    x = float(x)
    short = f"{x:g}"
    return short if float(short) == x else repr(x)


def slot_name(text):
    """A file-system-safe slot name (no path separators, no ``--``)."""
    s = "".join(c if (c.isalnum() or c in "._=+-") else "-" for c in str(text))
    while SEP in s:
        s = s.replace(SEP, "-")
    return s.strip("-.") or "job"


def dumps(obj, **kw):
    """Strict JSON (no NaN/Infinity tokens) of ``obj``."""
    return json.dumps(json_safe(obj), allow_nan=False, **kw)
