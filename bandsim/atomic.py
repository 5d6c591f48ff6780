"""The one way bandsim writes a file: atomically.

Every file bandsim writes (results, summaries, figures, instance files) goes
through :func:`atomic_open`: the bytes go to a temporary file in the target's
own directory, which is flushed and fsync'ed and then renamed over the target
with :func:`os.replace` (atomic on POSIX and Windows within one file system),
and the directory entry is fsync'ed. A reader therefore sees either the old
file or the complete new one, never a truncated file, even if the writer is
killed (SIGKILL, power loss after the rename's fsync). A killed writer leaves
at most a temporary file named ``.NAME.<pid>.<random>.tmp`` beside the target;
:func:`remove_leftovers` removes those of one target whose process is gone (a
live writer's temporary file is never touched).

Targets: a symbolic link is written through (its final target is replaced,
the link stays), and an existing target that is not a regular file (a device
such as ``/dev/full``, a FIFO, a directory) is refused with a
:class:`~bandsim.ConfigError` before anything is written.

Writers fail closed: :func:`probe` writes (and removes) a small file where a
command will write, so a full disk, a read-only file system or a path under a
regular file is refused in one line before any work (``os.access`` cannot tell:
root passes it on a read-only mount, and it knows nothing of free space); an
error while writing names the target (never the temporary file) and leaves
the target as it was; :func:`failure_text` is the one line ``bandsim`` prints
for any OSError (:func:`bandsim.cli.main`).
"""
import errno
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .errors import ConfigError

TMP_SUFFIX = ".tmp"
#: Bytes :func:`probe` writes: one page, so a file system without a free block refuses it.
PROBE_BYTES = 4096
#: Short causes of the write errors a user can fix (errno → text).
CAUSES = {errno.ENOSPC: "no space left on the device", errno.EROFS: "read-only file system",
          errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
          errno.ENOTDIR: "a parent is not a directory", errno.EISDIR: "is a directory",
          errno.ENOENT: "no such directory", errno.EDQUOT: "disk quota exceeded",
          errno.EFBIG: "file too large", errno.EIO: "input/output error (device)",
          errno.ENAMETOOLONG: "name too long", errno.ENXIO: "no such device",
          errno.EEXIST: "exists"}


def cause(err):
    """The cause of an OSError in a few words, with its errno name: ``no space left on the
    device (ENOSPC)``.

    Parameters
    ----------
    err : OSError

    Returns
    -------
    str
    """
    name = errno.errorcode.get(err.errno)
    text = CAUSES.get(err.errno) or (err.strerror or str(err)).lower()
    return f"{text} ({name})" if name else text


def failure_text(err, where=None):
    """One line for a failed write: ``cannot write PATH: no space left on the device (ENOSPC)``.

    Parameters
    ----------
    err : OSError
    where : str, optional
        What was written when the error names no file (e.g. ``standard output``).
        Without it, an error that :func:`atomic_open` did not raise (reading,
        say) is "cannot access".

    Returns
    -------
    str
    """
    path = err.filename if err.filename is not None else where
    verb = "write" if where is not None or getattr(err, "writing", False) else "access"
    return f"cannot {verb} {path or 'a file'}: {cause(err)}"


def probe(path, field="out", value=None):
    """Refuse, before any work, a place bandsim could not write: write and remove a probe file.

    Parameters
    ----------
    path : str or Path
        A directory that will be written (created if missing: the probe goes
        to its nearest existing ancestor, and nothing is created).
    field : str
        The option named in the error.
    value : object, optional
        Its value (default ``path``).

    Raises
    ------
    ConfigError
        The nearest existing ancestor is not a directory, or the probe write
        fails (no space, read-only file system, permission, quota …), in one
        line naming the path and the cause.
    """
    value = str(path) if value is None else value
    p = Path(path)
    while not p.exists() and p != p.parent:
        if p.is_symlink():  # a dangling link: its target's directory is what gets written
            p = p.resolve()
            continue
        p = p.parent
    if not p.is_dir():
        raise ConfigError(field, value, f"{p} is not a directory")
    try:
        _write_probe(p)
    except OSError as e:
        raise ConfigError(field, value, f"cannot be written: {cause(e)} in {p}") from None


def _write_probe(directory):
    """Write :data:`PROBE_BYTES` to a new file in ``directory``, fsync, remove (OSError if not)."""
    fd, tmp = tempfile.mkstemp(prefix=f".bandsim-probe.{os.getpid()}.", suffix=TMP_SUFFIX,
                               dir=directory)
    try:
        os.write(fd, b"\0" * PROBE_BYTES)
        os.fsync(fd)
    finally:
        os.close(fd)
        Path(tmp).unlink(missing_ok=True)


def _tmp_prefix(path):
    return f".{path.name}."


def target(path):
    """The file a write to ``path`` replaces: symlinks resolved, non-regular files refused.

    Raises
    ------
    ConfigError
        ``path`` exists and is not a regular file (device, FIFO, socket, directory).
    """
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return path
    except OSError as e:
        raise ConfigError("out", str(path), f"cannot be written ({e.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise ConfigError("out", str(path), f"is {kind}; bandsim writes only regular files")
    return path


@contextmanager
def atomic_open(path, durable=True):
    """Open a binary file that replaces ``path`` only when the block ends without error.

    Parameters
    ----------
    path : str or Path
        The target; its directory is created if needed.
    durable : bool
        fsync the file before the rename and the directory after it. A caller
        that writes many files may pass False and call :func:`sync` for them
        in one batch later (a study does, before its index records them; a
        file lost to a power cut before that is found missing or failing its
        checksums and redone).

    Yields
    ------
    file
        A binary file object open for writing (pass it to ``pq.write_table``,
        ``fig.savefig(..., format=...)``, ``write``).

    Raises
    ------
    OSError
        Of the same class, naming ``path`` (not the temporary file) in its
        ``filename``, when creating, writing or renaming fails (no space,
        read-only, …): :func:`failure_text` gives its one line.

    Notes
    -----
    On an exception (KeyboardInterrupt included) the temporary file is
    removed and ``path`` is left as it was.
    """
    path = target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f"{_tmp_prefix(path)}{os.getpid()}.",
                                   suffix=TMP_SUFFIX, dir=path.parent)
    except OSError as e:
        raise _named(e, path) from None
    try:
        os.chmod(tmp, _mode(path))  # mkstemp makes 0600; give the file the usual mode
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise _named(e, path) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(path.parent)


def _named(err, path):
    """``err`` naming ``path`` (the target, not the temporary file)."""
    if err.errno is None:  # e.g. pyarrow's own I/O errors
        named = OSError(str(err))
        named.filename = str(path)
    else:
        named = OSError(err.errno, err.strerror or os.strerror(err.errno), str(path))
    named.writing = True  # failure_text says "cannot write"
    return named


def sync(paths):
    """fsync files written with ``durable=False``, then their directories (once each)."""
    dirs = set()
    for p in paths:
        try:
            fd = os.open(p, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        dirs.add(Path(p).parent)
    for d in dirs:
        _fsync_dir(d)


def _mode(path):
    """The target's current permissions, or 0666 less the process umask."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse
        pass
    finally:
        os.close(fd)


def write_bytes(path, data):
    """Write ``data`` (bytes) to ``path`` atomically."""
    with atomic_open(path) as f:
        f.write(data)


def write_text(path, text):
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"))


def write_parquet(path, table, durable=True, **kwargs):
    """Write a pyarrow Table to ``path`` atomically (``pyarrow.parquet.write_table``)."""
    import pyarrow.parquet as pq

    with atomic_open(path, durable) as f:
        pq.write_table(table, f, **kwargs)


def save_figure(fig, path, **kwargs):
    """Save a matplotlib figure to ``path`` atomically; the format is the suffix's."""
    path = Path(path)
    with atomic_open(path) as f:
        fig.savefig(f, format=path.suffix.lstrip(".").lower(), **kwargs)


def _alive(pid):
    if pid == os.getpid():
        return False  # our own leftovers: nothing of ours is being written now
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def leftover_pid(name):
    """The writer's process id in a temporary file's name, or None (older bandsim)."""
    parts = name[:-len(TMP_SUFFIX)].split(".") if name.endswith(TMP_SUFFIX) else []
    return int(parts[-2]) if len(parts) >= 3 and parts[-2].isdigit() else None


def remove_leftovers(path, names=None):
    """Remove temporary files that dead writers of ``path`` left behind; return how many.

    Parameters
    ----------
    path : path
        The target file.
    names : iterable of str, optional
        The directory's entries, when the caller listed it already (avoids one
        directory listing per target).
    """
    path = Path(path)
    prefix = _tmp_prefix(path)
    if names is None:
        if not path.parent.is_dir():
            return 0
        names = [p.name for p in path.parent.glob(prefix + "*" + TMP_SUFFIX)]
    n = 0
    for name in names:
        if not (name.startswith(prefix) and name.endswith(TMP_SUFFIX)):
            continue
        pid = leftover_pid(name)
        if pid is not None and _alive(pid):
            continue
        (path.parent / name).unlink(missing_ok=True)
        n += 1
    return n
