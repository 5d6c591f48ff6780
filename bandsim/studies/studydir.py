"""A study's directory: one writer, one study, one index.

A directory a study writes to (``sweep --out DIR``, ``reproduce``'s
``DIR/<figure>``) holds, besides its result files (:mod:`bandsim.studies.store`):

- ``.bandsim/lock`` — a lock (:mod:`filelock`) held while a study writes: a
  second writer is refused at once with one line naming the process that
  holds it, so two writers never interleave (and never delete each other's
  temporary files, which are per process anyway, :mod:`bandsim.atomic`);
- ``study.json`` — the **manifest**: the study's definition (its TOML tables,
  or the figure and its overrides), the root seed, the environment the
  results are computed in (:func:`bandsim.studies.store.environment`), and
  the number and digest of its jobs. A different study into the directory
  is refused with one line naming what differs; ``overwrite=True`` recomputes
  and removes every result that no longer belongs;
- ``.bandsim/index.sqlite`` — the **index**: for each result file its size,
  modification time and inode when it was last verified, its key, summary and
  configuration. Resuming, ``bandsim results`` and ``bandsim plot`` list the
  directory once and read a file only when its entry is missing or stale (a
  file changed after it was verified — e.g. a flipped bit written to it — is
  read, fails its checksums, and is redone). The index is a cache: it is
  rebuilt from the files when lost or damaged. Rows are committed at most
  once a second, so it costs nothing per job.

Failures of the surroundings (full or read-only disk, output removed, the Dask
scheduler lost) end the study with :class:`~bandsim.studies.store.StudyFailed`
(jobs done, jobs left); the output directory is checked writable before any
job is planned.
"""
import errno
import json
import os
import sqlite3
import time
from contextlib import nullcontext
from pathlib import Path

from filelock import FileLock, Timeout

from ..atomic import probe, remove_leftovers, sync, write_text
from ..errors import ConfigError
from .jobs import run_jobs
from .store import (NOT_RESULTS, SEP, Entry, Interrupted, Outcome, StudyFailed, _show,
                    differences, dumps, environment, identity, key, read_identity, verify)

META = ".bandsim"
MANIFEST = "study.json"
#: A study of more jobs is refused (one line) before any is planned.
MAX_JOBS = 200_000
_COMMIT_EVERY = 1.0  # seconds between index commits


def _unwritable(directory, err):
    return ConfigError("out", str(directory), f"cannot be written ({err.strerror or err})")


class StudyDir:
    """The lock, manifest and index of one study directory (a context manager).

    Parameters
    ----------
    directory : path
        Created if missing.
    write : bool
        Take the lock and open the index for writing (a study); False opens
        the index read-only if there is one (``bandsim results``).

    Raises
    ------
    ConfigError
        ``directory`` is a file, cannot be written, or another process holds
        its lock (one line naming that process).
    """

    def __init__(self, directory, *, write=True):
        self.dir = Path(directory)
        self.write = write
        self.db = None
        self._lock = None
        self._last = time.monotonic()
        self._unsynced = []

    # -- lock
    def __enter__(self):
        if not self.write:
            self.db = _open_index(self.dir / META / "index.sqlite", readonly=True)
            return self
        if self.dir.exists() and not self.dir.is_dir():
            raise ConfigError("out", str(self.dir), "is a file, not a directory")
        probe(self.dir)  # full, read-only, under a file: refused before a directory is made
        meta = self.dir / META
        try:
            meta.mkdir(parents=True, exist_ok=True)
            check = meta / f"probe.{os.getpid()}"
            check.write_bytes(b"")
            check.unlink()
        except OSError as e:
            raise _unwritable(self.dir, e) from None

        self._lock = FileLock(str(meta / "lock"), timeout=0)
        try:
            self._lock.acquire()
        except Timeout:
            try:
                who = (meta / "owner").read_text().strip()
            except OSError:
                who = "another process"
            raise ConfigError("out", str(self.dir),
                              f"is being written by another bandsim study ({who}); wait for "
                              "it to finish or choose another --out") from None
        except OSError as e:
            raise _unwritable(self.dir, e) from None
        try:
            (meta / "owner").write_text(
                f"pid {os.getpid()} on {os.uname().nodename}, since "
                f"{time.strftime('%Y-%m-%d %H:%M:%S')}")
        except OSError as e:
            self._lock.release()
            raise _unwritable(self.dir, e) from None
        self.db = _open_index(meta / "index.sqlite", readonly=False)
        return self

    def __exit__(self, *exc):
        if self.db is not None:
            try:
                if self.write:
                    self.commit()
                self.db.close()
            except (sqlite3.Error, OSError):
                pass
            self.db = None
        if self._lock is not None:
            try:
                (self.dir / META / "owner").unlink(missing_ok=True)
            except OSError:
                pass
            self._lock.release()
            self._lock = None
        return False

    # -- manifest
    def manifest(self):
        """The directory's manifest (dict), or None."""
        try:
            m = json.loads((self.dir / MANIFEST).read_text())
        except (OSError, ValueError):
            return None
        return m if isinstance(m, dict) else None

    def write_manifest(self, manifest):
        write_text(self.dir / MANIFEST, dumps(manifest, indent=1))

    # -- index
    def rows(self):
        """{file name: (size, mtime_ns, inode, key, record)} of the index (empty if none)."""
        if self.db is None:
            return {}
        try:
            return {r[0]: r[1:] for r in self.db.execute(
                "SELECT name, size, mtime, ino, key, record FROM files")}
        except sqlite3.Error:
            return {}

    def add(self, path, k, outcome, written=True):
        """Record a verified result file (committed at most once a second); a file
        ``written`` by this study is fsync'ed before its row is committed."""
        if self.db is None:
            return
        st = os.stat(path)
        if written:
            self._unsynced.append(path)
        self.db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)",
                        (Path(path).name, st.st_size, st.st_mtime_ns, st.st_ino, k,
                         dumps(outcome.record())))
        if time.monotonic() - self._last > _COMMIT_EVERY:
            self.commit()

    def forget(self, names):
        """Drop the index rows of removed files (by file name)."""
        if self.db is not None and names:
            self.db.executemany("DELETE FROM files WHERE name = ?", [(n,) for n in names])

    def commit(self):
        """Make the files added since the last commit durable, then the index rows."""
        sync(self._unsynced)
        self._unsynced = []
        if self.db is not None:
            self.db.commit()
        self._last = time.monotonic()


def _open_index(path, *, readonly):
    """The index database, created if needed; None if it cannot be opened read-only."""
    if readonly:
        if not path.exists():
            return None
        try:
            return sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        except sqlite3.Error:
            return None
    for attempt in (0, 1):
        try:
            db = sqlite3.connect(path)
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS files (name TEXT PRIMARY KEY, size INTEGER, "
                       "mtime INTEGER, ino INTEGER, key TEXT, record TEXT)")
            db.execute("SELECT count(*) FROM files").fetchone()
            return db
        except sqlite3.DatabaseError:  # a damaged cache: rebuild it from the files
            if attempt:
                raise
            path.unlink(missing_ok=True)


def stat_matches(st, row):
    """True when a file's ``os.stat`` result is what the index row recorded (size,
    modification time in ns, inode): the file is unchanged since it was verified."""
    return row is not None and (st.st_size, st.st_mtime_ns, st.st_ino) == tuple(row[:3])


def listing(directory):
    """{name: DirEntry} of the result files directly in ``directory``, and temp-file names."""
    files, temps = {}, []
    try:
        it = os.scandir(directory)
    except FileNotFoundError:
        return files, temps
    with it:
        for e in it:
            if e.name.endswith(".tmp") and e.name.startswith("."):
                temps.append(e.name)
            elif (e.name.endswith(".parquet") and not e.name.startswith(".")
                  and e.name not in NOT_RESULTS and e.is_file()):
                files[e.name] = e
    return files, temps


def _slot_of(name):
    stem = name[:-len(".parquet")]
    return stem.rpartition(SEP)[0] if SEP in stem else stem


def check(jobs, slots, sd, *, overwrite=False, study=None, notes=None, full=False):
    """Match a study's jobs against its directory (lock held).

    Parameters
    ----------
    jobs : list of dict
        simulate() keyword sets with integer seeds.
    slots : list of str
        One readable, unique name per job.
    sd : StudyDir
        The directory, open for writing.
    overwrite : bool
        Recompute results of another configuration and remove every result
        file that is not one of this study's jobs, instead of refusing.
    study : dict, optional
        ``name``, ``definition`` (what the user asked, compared field by
        field with the manifest's) and ``seed`` to record in the manifest.
    notes : list, optional
        Receives one line per damaged file that is redone.
    full : bool
        Read and verify every stored file, whatever the index says.

    Returns
    -------
    entries : list of Entry
    outcomes : list of Outcome or None
        Outcomes of the jobs already stored (from the index, or verified).

    Raises
    ------
    ConfigError
        The directory holds another study (one line naming what differs and
        how many results), unless ``overwrite``.
    """
    directory = sd.dir
    if len(jobs) > MAX_JOBS:
        raise ConfigError("jobs", len(jobs), f"a study may have at most {MAX_JOBS:,} jobs")
    seen = set()
    for s in slots:
        if s in seen:
            raise ConfigError("job", s, "two jobs of the study have the same name")
        seen.add(s)
    env = environment()
    old = sd.manifest() or {}
    asked = {"definition": (study or {}).get("definition"), "environment": env}
    stored = {k: old.get(k) for k in asked}
    if old.get("definition") is None or asked["definition"] is None:
        stored.pop("definition"), asked.pop("definition")
    if not old.get("environment"):
        stored.pop("environment"), asked.pop("environment")
    study_diff = differences(_merged(stored), _merged(asked))
    files, temps = listing(directory)
    for t in temps:  # dead writers' temp files; a live writer holds the lock we hold
        remove_leftovers(directory / t[1:].rsplit(".", 3)[0], [t])
    rows = sd.rows()
    by_slot = {}
    for name in files:
        by_slot.setdefault(_slot_of(name), []).append(name)
    entries, outcomes, conflicts, damaged = [], [], [], []
    names = set()
    for i, (job, slot) in enumerate(zip(jobs, slots)):
        ident = identity(job)
        k = key(ident)
        name = f"{slot}{SEP}{k[:12]}.parquet"
        names.add(name)
        e = Entry(i, slot, directory / name, None, k)
        out = None
        for other in by_slot.get(slot, ()):
            if other == name or other not in files:
                continue
            try:
                theirs = _stored_identity(directory / other, files[other], rows.get(other))
            except ValueError:
                damaged.append((other, "unreadable"))
                continue
            if theirs == ident and name not in files:  # same configuration, other name
                os.replace(directory / other, e.path)
                files[name] = None
                del files[other]
                continue
            conflicts.append((other, differences(theirs, ident)))
        if name in files:
            st = os.stat(e.path)
            row = rows.get(name)
            if not full and stat_matches(st, row) and row[3] == k:
                out = Outcome.from_record(json.loads(row[4]), e.path)
            else:
                try:
                    res, got = verify(e.path)
                    if got != k:
                        raise ValueError(f"{name}: holds key {got[:12]}")
                    out = Outcome.of(res)
                    sd.add(e.path, k, out, written=False)
                except ValueError as err:
                    damaged.append((name, str(err)))
                    e.note = f"{err}: redone"
        if out is not None:
            out.summary.update(resumed=True, seconds=None)
            e.done = True
        entries.append(e)
        outcomes.append(out)
    strays = [n for n in files if n not in names and n not in {c for c, _ in conflicts}
              and n not in {d for d, _ in damaged}]
    if (study_diff or conflicts or strays) and not overwrite:
        raise ConfigError("--out", str(directory), _refusal(study_diff, conflicts, strays))
    gone = [n for n, _ in damaged] + ([c for c, _ in conflicts] + strays if overwrite else [])
    for n in gone:
        (directory / n).unlink(missing_ok=True)
    sd.forget(gone)
    for n, why in damaged:
        if notes is not None:
            notes.append(why if why.endswith("redone") else f"{why}: redone")
    sd.commit()
    return entries, outcomes


def _merged(d):
    """Definition and environment as one dict, so differences name ``study.horizon``, ``version``."""
    return {**(d.get("definition") or {}), **(d.get("environment") or {})}


def _refusal(study_diff, conflicts, strays):
    if study_diff:
        what = "; ".join(f"{f} {_show(s)} stored, {_show(a)} asked" for f, s, a in study_diff[:4])
        lead = f"holds another study ({what})"
    elif conflicts:
        name, diff = conflicts[0]
        what = "; ".join(f"{f} {_show(s)} stored, {_show(a)} asked" for f, s, a in diff[:4])
        fields = sorted({f for _, d in conflicts for f, _, _ in d})
        lead = (f"holds {len(conflicts)} stored result(s) computed with another configuration "
                f"(differing: {', '.join(fields)}; e.g. {name}: {what})")
    else:
        lead = f"holds another study ({len(strays)} stored result(s) not in this one, e.g. " \
               f"{strays[0]})"
    n = len(conflicts) + len(strays)
    return (lead + (f"; {n} stored result(s) would be removed" if n else "")
            + "; rerun with --overwrite to recompute, or choose another --out")


def _stored_identity(path, entry, row):
    """Identity of a stored file: from the index when its entry is fresh, else the footer."""
    if row is not None and entry is not None and stat_matches(entry.stat(), row):
        rec = json.loads(row[4])
        if "identity" in rec:
            return rec["identity"]
    return read_identity(path)


def run_stored(jobs, slots, directory, *, overwrite=False, console=None, backend="local",
               scheduler=None, labels=None, notes=None, study=None, store=None,
               verbose=False, full=False, status=None):
    """Run the jobs of a study that the directory does not hold yet.

    Parameters
    ----------
    jobs, slots, overwrite, study
        As :func:`check`.
    directory : path
        The study's directory (created; checked writable before any planning).
    console : rich.console.Console, optional
        One overall progress bar; notes about redone files.
    backend, scheduler
        As :func:`bandsim.studies.jobs.run_jobs`.
    labels : list of str, optional
        Per-job labels (lines printed with ``verbose``).
    notes : list, optional
        Receives one line per damaged file that was redone.
    store : StudyDir, optional
        The directory already open (its lock held) by the caller.
    verbose : bool
        Print one line per finished job.
    full : bool
        Verify every stored file by reading it (see :func:`check`).
    status : callable (entries, index or None, seconds) -> str, optional
        The progress bar's text (:func:`bandsim.studies.jobs.run_jobs`), given the
        entries (``done`` set) and the job that finished.

    Returns
    -------
    entries : list of Entry
    outcomes : list of Outcome
        In job order; ``summary["resumed"]`` says whether it came from disk.

    Raises
    ------
    ConfigError
        See :func:`check` and :class:`StudyDir`; invalid jobs (before any job runs).
    Interrupted
        On Ctrl-C, with the number of jobs done and left.
    StudyFailed
        The disk (full, read-only, output removed) or the Dask cluster
        failed; jobs done and left.
    """
    directory = Path(directory)
    with (nullcontext(store) if store is not None else StudyDir(directory)) as sd:
        msgs = []
        entries, outcomes = check(jobs, slots, sd, overwrite=overwrite, study=study,
                                  notes=msgs, full=full)
        for m in msgs:
            if notes is not None:
                notes.append(m)
            if console is not None:
                console.print(f"[yellow]note:[/] {m}", highlight=False, markup=True)
        manifest = {"study": (study or {}).get("name"),
                    "definition": (study or {}).get("definition"),
                    "seed": (study or {}).get("seed"), "environment": environment(),
                    "jobs": len(jobs)}
        manifest.update((study or {}).get("extra", {}))
        try:
            sd.write_manifest(manifest)
        except OSError as e:
            raise _unwritable(directory, e) from None
        todo = [e for e in entries if not e.done]
        total, done = len(entries), len(entries) - len(todo)
        try:
            for j, out, seconds in run_jobs(
                    _lazy(jobs, todo), console=console, backend=backend, scheduler=scheduler,
                    labels=[labels[e.index] for e in todo] if labels else None,
                    paths=[e.path for e in todo], total=len(todo), verbose=verbose,
                    status=status and (lambda j, s: status(
                        entries, None if j is None else todo[j].index, s))):
                out.summary.update(resumed=False, seconds=seconds)
                e = todo[j]
                sd.add(e.path, e.key, out)
                out.forget_curve(e.path)
                outcomes[e.index] = out
                e.done = True
                done += 1
        except KeyboardInterrupt:
            _commit_quietly(sd)
            raise Interrupted(done, total) from None
        except StudyFailed as err:
            _commit_quietly(sd)
            raise StudyFailed(err.reason, done, total) from None
        except (OSError, sqlite3.Error) as err:
            _commit_quietly(sd)
            raise StudyFailed(_why(err, directory), done, total) from None
    return entries, outcomes


def _lazy(jobs, todo):
    """The jobs still to run, in order (a list view that keeps no copies)."""
    class View:
        def __len__(self):
            return len(todo)

        def __getitem__(self, i):
            return jobs[todo[i].index]

        def __iter__(self):
            return (jobs[e.index] for e in todo)

    return View()


def _commit_quietly(sd):
    try:
        sd.commit()
    except sqlite3.Error:
        pass


def _why(err, directory):
    code = getattr(err, "errno", None)
    if code == errno.ENOSPC or "full" in str(err):
        return f"writing {directory} failed: no space left on device"
    if code == errno.EROFS or "readonly" in str(err) or "read-only" in str(err):
        return f"writing {directory} failed: the file system is read-only"
    if code == errno.ENOENT and not Path(directory).is_dir():
        return f"writing {directory} failed: the directory was removed"
    return f"writing {directory} failed: {getattr(err, 'strerror', None) or err}"
