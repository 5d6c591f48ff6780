"""The one way bandsim writes a file: atomically.

Every file bandsim writes (results, summaries, figures, instance files) goes
through :func:`atomic_open`: the bytes go to a temporary file in the target's
own directory, which is flushed and fsync'ed and then renamed over the target
with :func:`os.replace` (atomic on POSIX and Windows within one file system),
and the directory entry is fsync'ed. A reader therefore sees either the old
file or the complete new one, never a truncated file, even if the writer is
killed (SIGKILL, power loss after the rename's fsync). A killed writer leaves
at most a temporary file named ``.NAME.<random>.tmp`` beside the target;
:func:`remove_leftovers` removes those of one target.
"""
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

TMP_SUFFIX = ".tmp"


def _tmp_prefix(path):
    return f".{path.name}."


@contextmanager
def atomic_open(path):
    """Open a binary file that replaces ``path`` only when the block ends without error.

    Parameters
    ----------
    path : str or Path
        The target; its directory is created if needed.

    Yields
    ------
    file
        A binary file object open for writing (pass it to ``pq.write_table``,
        ``fig.savefig(..., format=...)``, ``write``).

    Notes
    -----
    On an exception (KeyboardInterrupt included) the temporary file is
    removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(path), suffix=TMP_SUFFIX, dir=path.parent)
    try:
        os.chmod(tmp, _mode(path))  # mkstemp makes 0600; give the file the usual mode
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


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


def write_parquet(path, table, **kwargs):
    """Write a pyarrow Table to ``path`` atomically (``pyarrow.parquet.write_table``)."""
    import pyarrow.parquet as pq

    with atomic_open(path) as f:
        pq.write_table(table, f, **kwargs)


def save_figure(fig, path, **kwargs):
    """Save a matplotlib figure to ``path`` atomically; the format is the suffix's."""
    path = Path(path)
    with atomic_open(path) as f:
        fig.savefig(f, format=path.suffix.lstrip(".").lower(), **kwargs)


def remove_leftovers(path):
    """Remove temporary files a killed writer of ``path`` left behind; return how many."""
    path = Path(path)
    n = 0
    if path.parent.is_dir():
        for p in path.parent.glob(_tmp_prefix(path) + "*" + TMP_SUFFIX):
            p.unlink(missing_ok=True)
            n += 1
    return n
