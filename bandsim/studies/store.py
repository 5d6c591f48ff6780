"""A results store that cannot lie: every job keyed by its full configuration.

A study (a sweep or a figure) is a list of jobs, each the keyword set of one
:func:`bandsim.simulate` call. The store gives each job

- an **identity**: the fully resolved configuration that determines its
  numbers — algorithm, every algorithm parameter with its default filled in,
  the instance (name, K, reward model, σ of Gaussian rewards, explicit means,
  or the SHA-256 of an instance file), horizon, runs, root seed, the
  checkpoint times — and the bandsim version (:func:`identity`);
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
recomputes. An unreadable file (a truncated write of an older bandsim, a
damaged disk) is reported and its job redone. Every file is written through
:mod:`bandsim.atomic`, so a killed study leaves no partial result.

Interruptions: :func:`run_stored` turns Ctrl-C into :class:`Interrupted`,
which carries how many jobs are done and how many are left; the command line
prints that and the command that resumes.
"""
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from ..results import json_safe

#: Keys of a job that are run settings, not algorithm parameters.
RUN_KEYS = {"instance", "arms", "horizon", "runs", "seed", "rewards", "sigma", "means",
            "checkpoints", "threads", "instance_file"}
SEP = "--"


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a study: ``done`` of ``total`` jobs are stored, ``left`` are not."""

    def __init__(self, done, total):
        self.done, self.total, self.left = done, total, total - done
        super().__init__(f"{done} of {total} jobs done, {total - done} left")


# ----------------------------------------------------------------------------- identity

def _sha256_file(path, _cache={}):
    from ..datasets.files import sha256

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
    from .. import __version__, registry
    from ..errors import check_int
    from ..runner import MAX_HORIZON, resolve_checkpoints

    algo = registry.get_algorithm(job["algorithm"])
    horizon = check_int("horizon", job.get("horizon"), 2, MAX_HORIZON)
    params = {k: v for k, v in job.items()
              if k not in RUN_KEYS and k != "algorithm" and v is not None}
    ident = {
        "algorithm": algo.name,
        "params": algo.resolve(params, horizon),
        "horizon": horizon,
        "runs": check_int("runs", job.get("runs", 1000), 1, 10**8),
        "seed": check_int("seed", job.get("seed"), 0),
        "checkpoints": resolve_checkpoints(job.get("checkpoints"), horizon).tolist(),
        "version": __version__,
    }
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


def identity_of(config, checkpoints, versions):
    """The identity of a stored result, from what the simulation recorded.

    Parameters
    ----------
    config : dict
        ``Result.config``.
    checkpoints : sequence of int
    versions : dict
        ``Result.versions``.
    """
    ident = {
        "algorithm": config["algorithm"],
        "params": config["params"],
        "horizon": int(config["horizon"]),
        "runs": int(config["runs"]),
        "seed": int(config["seed"]),
        "checkpoints": [int(c) for c in checkpoints],
        "version": versions.get("bandsim"),
    }
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
    """The identity of a result file, from its Parquet footer only.

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


def result_files(directory):
    """Every bandsim result file under ``directory`` (recursively), sorted."""
    d = Path(directory)
    return sorted(p for p in d.rglob("*.parquet")
                  if p.name != "summary.parquet" and not p.name.startswith("."))


@dataclass
class Outcome:
    """What a study keeps of a result in memory: its summary and mean curve.

    Attributes
    ----------
    summary : dict
        ``Result.summary()`` without ``pulls_mean``, plus ``seed``.
    checkpoints : int64 (C,)
    mean, half95 : float64 (C,)
        Mean pseudo-regret over runs and the half-width of its 95 % interval
        (NaN with one run).
    config : dict
        The result's configuration without its per-stage tables.
    """

    summary: dict
    checkpoints: np.ndarray
    mean: np.ndarray
    half95: np.ndarray
    config: dict = field(default_factory=dict)

    @classmethod
    def of(cls, res):
        from ..results import Z95

        y = res.pseudo_regret
        half = (Z95 * y.std(axis=0, ddof=1) / np.sqrt(y.shape[0]) if y.shape[0] > 1
                else np.full(y.shape[1], np.nan))
        s = res.summary()
        s.pop("pulls_mean", None)
        s["seed"] = res.config.get("seed")
        config = {k: v for k, v in res.config.items() if k != "stages"}
        return cls(s, res.checkpoints.copy(), y.mean(axis=0), half, config)


def save_result(res, path, seconds=None):
    """Write ``res`` to ``path`` atomically and return its :class:`Outcome`."""
    from ..atomic import remove_leftovers

    remove_leftovers(path)
    res.to_parquet(path)
    out = Outcome.of(res)
    out.summary["seconds"] = seconds
    return out


def load_outcome(path):
    """The :class:`Outcome` of a stored result file (raises ValueError if unreadable)."""
    from ..results import Result

    try:
        res = Result.from_parquet(path)
    except Exception as e:  # noqa: BLE001
        raise ValueError(f"{path}: not a readable bandsim result ({type(e).__name__}: {e})") \
            from None
    return Outcome.of(res)


@dataclass
class Entry:
    """One job of a study in the store."""

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


def check(jobs, slots, directory, *, overwrite=False):
    """Match a study's jobs against a directory.

    Parameters
    ----------
    jobs : list of dict
        simulate() keyword sets with integer seeds.
    slots : list of str
        One readable, unique name per job.
    directory : path
    overwrite : bool
        Delete stored results of other configurations in a job's slot and
        recompute, instead of refusing.

    Returns
    -------
    list of Entry
        ``done`` is True for jobs whose stored result has exactly their identity.

    Raises
    ------
    ConfigError
        A slot holds a result of another configuration and ``overwrite`` is
        False; the message names the differing fields (first job shown) and
        how many jobs are affected.
    """
    from ..atomic import remove_leftovers

    directory = Path(directory)
    if len(set(slots)) != len(slots):
        dup = next(s for s in slots if slots.count(s) > 1)
        raise ConfigError("job", dup, "two jobs of the study have the same name")
    entries, conflicts, stale = [], [], []
    for i, (job, slot) in enumerate(zip(jobs, slots)):
        ident = identity(job)
        k = key(ident)
        path = directory / f"{slot}{SEP}{k[:12]}.parquet"
        e = Entry(i, slot, path, ident, k)
        remove_leftovers(path)
        others = [p for p in directory.glob(f"{slot}{SEP}*.parquet") if p != path]
        legacy = directory / f"{slot}.parquet"  # named by bandsim < the store
        if legacy.exists():
            others.append(legacy)
        for p in others:
            try:
                stored = read_identity(p)
            except ValueError:
                stale.append(p)
                e.note = f"unreadable {p.name} removed"
                continue
            if stored == ident:  # same configuration, other name: adopt it
                p.replace(path)
                continue
            conflicts.append((e, p, differences(stored, ident)))
        if path.exists():
            try:
                stored = read_identity(path)
                e.done = stored == ident
                if not e.done:  # a truncated key collision: treat as another configuration
                    conflicts.append((e, path, differences(stored, ident)))
            except ValueError:
                stale.append(path)
                e.note = f"unreadable {path.name}: redone"
        entries.append(e)
    if conflicts and not overwrite:
        e, p, diff = conflicts[0]
        what = "; ".join(f"{f} {_show(s)} stored, {_show(a)} asked" for f, s, a in diff[:4])
        fields = sorted({f for _, _, d in conflicts for f, _, _ in d})
        raise ConfigError(
            "--out", str(directory),
            f"{len(conflicts)} stored result(s) were computed with another configuration "
            f"(differing: {', '.join(fields)}; e.g. {p.name}: {what}); "
            "rerun with --overwrite to recompute them, or choose another --out")
    for p in stale + [p for _, p, _ in conflicts]:
        p.unlink(missing_ok=True)
    for e, p, _ in conflicts:
        if p == e.path:
            e.done = False
    return entries


def run_stored(jobs, slots, directory, *, overwrite=False, console=None, backend="local",
               scheduler=None, labels=None, notes=None):
    """Run the jobs of a study that the directory does not hold yet.

    Parameters
    ----------
    jobs, slots, directory, overwrite
        As :func:`check`.
    console : rich.console.Console, optional
        Progress (planning and simulation) and notes about redone files.
    backend, scheduler
        As :func:`bandsim.jobs.run_jobs`.
    labels : list of str, optional
        Progress labels.
    notes : list, optional
        Receives one line per unreadable file that was removed.

    Returns
    -------
    entries : list of Entry
    outcomes : list of Outcome
        In job order; ``summary["resumed"]`` says whether it came from disk.

    Raises
    ------
    ConfigError
        See :func:`check`; invalid jobs (before any job runs).
    Interrupted
        On Ctrl-C, with the number of jobs done and left.
    """
    from .jobs import run_jobs

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    entries = check(jobs, slots, directory, overwrite=overwrite)
    outcomes = [None] * len(jobs)
    for e in entries:
        if e.note:
            if notes is not None:
                notes.append(e.note)
            if console is not None:
                console.print(f"[yellow]note:[/] {e.note}")
        if e.done:
            try:
                outcomes[e.index] = load_outcome(e.path)
                outcomes[e.index].summary.update(resumed=True, seconds=None)
            except ValueError as err:
                e.done = False
                e.path.unlink(missing_ok=True)
                msg = f"{err}: redone"
                if notes is not None:
                    notes.append(msg)
                if console is not None:
                    console.print(f"[yellow]note:[/] {msg}")
    todo = [e for e in entries if not e.done]
    done = len(entries) - len(todo)
    try:
        for j, out, seconds in run_jobs([jobs[e.index] for e in todo], console=console,
                                        backend=backend, scheduler=scheduler,
                                        labels=[labels[e.index] for e in todo] if labels
                                        else None,
                                        paths=[e.path for e in todo]):
            out.summary.update(resumed=False, seconds=seconds)
            outcomes[todo[j].index] = out
            todo[j].done = True
            done += 1
    except KeyboardInterrupt:
        raise Interrupted(sum(e.done for e in entries), len(entries)) from None
    return entries, outcomes


def dumps(obj, **kw):
    """Strict JSON (no NaN/Infinity tokens) of ``obj``."""
    return json.dumps(json_safe(obj), allow_nan=False, **kw)
