"""Whole-run verdicts kept on disk, keyed by the code that decides them and the setting.

A verdict of :func:`bandsim.wholerun.audit` depends on the algorithm, its
resolved parameters, T, the instance, the seed — and on every line of code a
recorded run executes (the kernels, the plans, the declarations, the
mechanisms, the checks). Its key is the SHA-256 of those (the algorithm's
name, the parameters' ``repr``, T, the means, the seed, the bandsim version,
the SHA-256 of every source file of the ``bandsim`` package and of its
``kernels``, and a plug-in's own source digest): any edit of the code is
another key, so a stale verdict is never read. A plug-in whose sources have
no digest (declared in a script or a notebook) is never cached. The files
live next to the exact audits' (:mod:`bandsim.privacy.auditcache`), in
``$BANDSIM_CACHE_DIR/whole-run`` (``BANDSIM_CACHE_DIR=off`` disables both).

:func:`verdict` computes (or reads) one verdict; :func:`lookup` only reads,
for ``bandsim list``, which must stay fast.
"""
import hashlib
import json
import math
import os
from pathlib import Path

from .. import kernels
from .._version import __version__
from ..atomic import write_text
from ..errors import ConfigError
from ..privacy.auditcache import cache_dir as _audit_dir
from ..registry import get_algorithm, is_builtin, origin
from .checks import MEANS, audit, audit_params

#: Horizon of the whole-run verdict of a result (min(T, this)) and of the audit defaults.
RESULT_HORIZON = 100_000

_CODE = []


def cache_dir():
    """The whole-run verdict directory (Path), or None when the cache is disabled."""
    d = _audit_dir()
    return None if d is None else d.parent / "whole-run"


def _read(k):
    d = cache_dir()
    if k is None or d is None:
        return None
    try:
        return json.loads((d / f"{k}.json").read_text())
    except (OSError, ValueError):
        return None


def _write(k, value):
    d = cache_dir()
    if k is None or d is None:
        return
    try:
        d.mkdir(parents=True, exist_ok=True)
        write_text(d / f"{k}.json", json.dumps(value))
    except (OSError, ValueError):
        pass


def code_digest():
    """SHA-256 (hex) of every ``.py`` file of the installed ``bandsim`` package and its
    ``kernels`` (memoized per process; ~2 ms)."""
    if not _CODE:
        h = hashlib.sha256()
        roots = {Path(__file__).resolve().parents[1], Path(kernels.__file__).resolve().parent}
        for root in sorted(roots):
            for f in sorted(root.rglob("*.py")):
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
        _CODE.append(h.hexdigest())
    return _CODE[0]


def _plugin_digest(algo):
    """The plug-in sources' digests behind ``algo`` ([] for built-ins), None if unknown."""
    out = []
    for kind, name in (("algorithm", algo.name), ("mechanism", algo.mechanism)):
        if not name or is_builtin(name, kind):
            continue
        sha = origin(name, kind).get("sha256")
        if not sha:
            return None
        out.append(sha)
    return out


def key(algo, params, horizon, means=MEANS, seed=0):
    """SHA-256 (hex) naming one whole-run verdict, or None when it must not be cached."""
    plug = _plugin_digest(algo)
    if plug is None:
        return None
    text = json.dumps(["whole-run", algo.name, repr(sorted(params.items())), int(horizon),
                       [float(m) for m in means], int(seed), __version__, code_digest(), plug])
    return hashlib.sha256(text.encode()).hexdigest()


def verdict(algorithm, params=None, horizon=RESULT_HORIZON, seed=0):
    """The whole-run audit's summary (``WholeRunReport.to_dict``), cached on disk.

    Parameters
    ----------
    algorithm : str or Algorithm
    params : dict, optional
        Parameters (resolved or not; defaults as :func:`bandsim.wholerun.audit`).
    horizon : int
        T of the audited runs.
    seed : int

    Returns
    -------
    dict
        ``verdict``, ``horizon``, ``neighbours``, ``releases``, ``seconds``
        and, when present, ``failures``, ``reason``, ``epsilon``, ``claimed``;
        ``cached`` (bool) says whether it was read from disk.
    """
    algo = get_algorithm(algorithm)
    resolved = algo.resolve(audit_params(algo, params), horizon)
    k = key(algo, resolved, horizon, seed=seed)
    hit = _read(k)
    if hit is not None:
        return dict(hit, cached=True)
    out = audit(algo.name, resolved, horizon=horizon, seed=seed).to_dict()
    _write(k, out)
    return dict(out, cached=False)


def results_audited():
    """Whether results carry their whole-run verdict (bool): yes unless the
    environment sets ``BANDSIM_RESULT_AUDIT=off`` (then a board shows ``not recorded``)."""
    return os.environ.get("BANDSIM_RESULT_AUDIT", "on").strip().lower() != "off"


def result_verdict(algo, params, horizon):
    """``config["privacy"]["whole_run"]`` of a result: :func:`verdict` at its parameters and
    T' = min(T, :data:`RESULT_HORIZON`), seed 0, plus ``command`` (the line that
    reproduces it with every failure); ``not auditable`` with the reason when the
    audit cannot run at T'."""
    t = int(min(horizon, RESULT_HORIZON))
    eps = params.get("epsilon")
    cmd = (f"bandsim audit {algo.name} --whole-run"
           + (f" --epsilon {eps:g}" if isinstance(eps, (int, float)) else "")
           + "".join(f" --{k} {params[k]:g}" for k in ("delta", "scale", "p")
                     if isinstance(params.get(k), float) and algo.param(k) is not None)
           + f" --horizon {t}")
    try:
        out = verdict(algo, params, t)
    except ConfigError as e:
        out = dict(verdict="not auditable", horizon=t, reason=f"cannot audit at T = {t}: {e}")
    out.pop("cached", None)  # the same configuration whether computed or read
    out["command"] = cmd
    return out


def remember(report, seed=0):
    """Keep a fresh report (of :func:`bandsim.wholerun.audit` at its default parameters)
    in the cache, so that ``bandsim list`` shows it. Never raises."""
    try:
        algo = get_algorithm(report.algorithm)
    except ValueError:
        return
    if report.verdict != "not private":
        _write(key(algo, report.params, report.horizon, seed=seed), report.to_dict())


def lookup(algorithm, horizon=RESULT_HORIZON, seed=0):
    """The cached verdict at the audit defaults (dict), or None if it was never computed.

    Reads one small file; never audits (``bandsim list`` calls it for every algorithm).
    """
    algo = get_algorithm(algorithm)
    if not algo.private:
        return dict(verdict="not private")
    try:
        resolved = algo.resolve(audit_params(algo), horizon)
    except ValueError:
        return None
    return _read(key(algo, resolved, horizon, seed=seed))


def summary(v):
    """One short cell: ``PASS``, ``FAIL (2 checks)``, ``not auditable``, with ε vs claim and
    what the verdict's budget could detect (:func:`power_cell`)."""
    if v is None:
        return None
    text = v["verdict"]
    if text == "FAIL":
        text += f" ({len(v.get('failures', []))} failed checks)"
    eps, claimed = v.get("epsilon"), v.get("claimed")
    if text == "PASS" and isinstance(eps, float) and isinstance(claimed, float) \
            and math.isfinite(eps):
        text += f" ε {eps:.3g} ≤ {claimed:.3g}"
    return text + (f"; {power_cell(v['power'])}" if v.get("power") else "")


def power_cell(pw):
    """What a verdict's budget detects, short: ``detects scale −2 % (−23 % in every law),
    |ρ| ≥ 0.0076; each law ≥ 1,016 draws`` (the scale deficit of the best-sampled class and
    of the thinnest law — a class alone, or pooled with its law's other positions when
    under 1,000 draws —, the correlation of the thinnest pair class, each found with
    probability 0.99, and the fewest draws a law was tested from)."""
    parts = []
    if pw.get("scale_low") is not None:
        every, what = pw.get("scale_low_law"), "law"
        if every is None:  # a verdict from before the per-law floor
            every, what = pw.get("scale_low_every"), "class"
        parts.append(f"scale −{100 * pw['scale_low']:.0f} %" + (
            f" (−{100 * every:.0f} % in every {what})" if every is not None else ""))
    if pw.get("correlation") is not None:
        parts.append(f"|ρ| ≥ {pw['correlation']:.2g}")
    text = "detects " + ", ".join(parts) if parts else "detects nothing"
    if pw.get("min_floor") is not None:
        text += f"; each law ≥ {pw['min_floor']:,} draws"
    return text


__all__ = ["RESULT_HORIZON", "cache_dir", "code_digest", "key", "lookup", "power_cell", "remember", "result_verdict", "summary",
           "verdict"]
