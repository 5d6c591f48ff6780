"""Loading installed plug-ins: after the built-ins, each package whole or not at all.

An installed distribution declares entry points in the group
``bandsim.plugins``; each names a module (imported once; it calls
:func:`bandsim.register`) or a callable (called once with no arguments). They
load on the first look-up in the registry, after every built-in is
registered, in the order of their distributions' names. See docs/plugins.md.
"""
import importlib
import sys
import warnings
from importlib.metadata import entry_points

from . import provenance, registry


def plugin_entry_points(distribution=None):
    """Entry points of the group ``bandsim.plugins`` (of one distribution if given), sorted."""
    eps = sorted(entry_points(group="bandsim.plugins"),
                 key=lambda e: (provenance.dist_name(e), e.name))
    if distribution is None:
        return eps
    want = _normal(distribution)
    return [ep for ep in eps if _normal(provenance.dist_name(ep)) == want]


def _normal(name):
    return name.lower().replace("_", "-").replace(".", "-")


def load_plugins():
    """Load every installed plug-in (entry-point group ``bandsim.plugins``), after the built-ins.

    Each entry point names a module (imported once; it calls :func:`register`)
    or a callable (called once with no arguments). Its declarations are
    staged and registered together when it returns. A plug-in that raises
    (``SystemExit`` included), declares something invalid, or takes a name
    that is already registered (by bandsim or by another distribution) is
    skipped whole, with one warning naming its entry point and distribution
    (and the other distribution, for a name clash). What it prints goes to
    stderr, so ``--json`` output stays clean.
    """
    for ep in plugin_entry_points():
        source = provenance.of_entry_point(ep)
        label = (f"bandsim plug-in {ep.name!r} ({ep.value}) of distribution "
                 f"{source['distribution']} {source['version']}")
        try:
            stage = load_entry_point(ep, source)
            registry.commit(stage)
        except (Exception, SystemExit) as e:  # a broken plug-in must not break bandsim
            what = (f"exited (SystemExit {e.code!r})" if isinstance(e, SystemExit)
                    else f"{type(e).__name__}: {e}")
            # one line (no source line under it), attributed to the plug-in
            warnings.warn_explicit(f"{label} skipped: {what}", UserWarning,
                                   f"<bandsim plug-in {ep.name}>", 0, module=__name__)
        finally:
            sys.stdout.flush()


def load_entry_point(ep, source=None):
    """Load one entry point with its declarations staged; the staged declarations.

    Raises whatever the plug-in raises; nothing is registered here (see
    :func:`load_plugins`). stdout is redirected to stderr while it runs.
    """
    with registry.staged(source or provenance.of_entry_point(ep)) as stage:
        obj = ep.load()
        if callable(obj) and not isinstance(obj, type(importlib)):
            obj()
    return stage



registry.set_loader(load_plugins)

__all__ = ["load_entry_point", "load_plugins", "plugin_entry_points"]
