"""Exact audits kept on disk, keyed by what decides them, shared by every process.

A study of many jobs audits the largest batch of each job's plan
(:func:`bandsim.privacy.results.result_privacy`); jobs that differ only in
their instance, seed or runs share that batch, and so do the jobs of the next
study. The outcome of each distinct audit is kept as one small JSON file in
the cache directory (``$BANDSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/bandsim``,
else ``~/.cache/bandsim``; under ``audits/``), named by the SHA-256 of its key:
the mechanism, the algorithm, the batch's parameters (its ``repr``), the fold
limit, the bandsim version, the SHA-256 of the sources that compute an
audit (this package and the mechanism's module) and, for a plug-in's
mechanism, the digests of its code and of everything its Numba code reaches
(``sha256`` and ``reach`` of :func:`bandsim.registry.origin`: its exact law,
e.g. ``release_logpmf``, is the plug-in's code). Any edit of that code is
another key, so a stale answer is never read. ``BANDSIM_CACHE_DIR=off``
disables the cache; a cache that cannot be read or written is ignored.
"""
import hashlib
import json
import os
import sys
from pathlib import Path

from .. import registry
from .._version import __version__
from ..atomic import write_text

_SOURCES = {}


def cache_dir():
    """The audit cache directory (Path), or None when disabled."""
    root = os.environ.get("BANDSIM_CACHE_DIR")
    if root == "off":
        return None
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "bandsim")
    return Path(root) / "audits"


def _source_digest(module):
    """SHA-256 of this package's sources and of ``module``'s file (memoized)."""
    if module not in _SOURCES:
        h = hashlib.sha256()
        here = Path(__file__).resolve().parent
        files = sorted(here.glob("*.py"))
        mod = sys.modules.get(module)
        if getattr(mod, "__file__", None):
            files.append(Path(mod.__file__))
        for f in files:
            try:
                h.update(f.name.encode() + b"\0" + f.read_bytes())
            except OSError:
                h.update(f.name.encode() + b"\0?")
        _SOURCES[module] = h.hexdigest()
    return _SOURCES[module]


def audit_key(mechanism, audit, batch, algorithm, fold_max):
    """SHA-256 (hex) naming one audit: mechanism name, algorithm, batch, fold limit, code.

    ``audit`` is the function that computes it (the mechanism's own or its family's,
    :func:`bandsim.privacy.audit.audit_of`); its module's source is part of the key.
    """
    module = getattr(audit, "__module__", "") or ""
    origin = registry.origin(mechanism, "mechanism")  # a plug-in's law is its own code
    text = json.dumps([mechanism, algorithm, repr(batch), fold_max, __version__,
                       _source_digest(module), origin.get("sha256"), origin.get("reach")])
    return hashlib.sha256(text.encode()).hexdigest()


def cached(key, compute):
    """``compute()`` (a JSON-able dict) once per key across processes."""
    d = cache_dir()
    path = None if d is None else d / f"{key}.json"
    if path is not None:
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            pass
    value = compute()
    if path is not None:
        try:
            d.mkdir(parents=True, exist_ok=True)
            write_text(path, json.dumps(value))
        except (OSError, ValueError):
            pass
    return value
