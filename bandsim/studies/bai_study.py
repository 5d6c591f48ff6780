"""Directories of fixed-confidence results: summary rows, tables, ``load`` and the τ plot.

A directory written by ``bandsim run ALGO --out DIR`` with a fixed-confidence
algorithm (or by ``bandsim reproduce azize-fig5.7``) holds one Parquet file
per configuration (:class:`~bandsim.bai.result.BAIResult`, schema metadata
``bandsim.kind = bai``). ``bandsim results``, ``bandsim plot`` and
:func:`bandsim.load` read them here; regret results are read as before
(:mod:`bandsim.studies.tables`).

The plot draws τ against ε or δ on log axes: the mean over the stopped runs
with its 95 % interval when every run stopped; when some run was censored the
point is min(τ, T_max) averaged over all runs, a lower bound on E[τ], drawn
as a hollow upward triangle and labelled with the censored count — never a
mean in which censored runs count as if they had stopped. The lower bounds
are overlaid: max(T*_KL, T*_TV/ε)·ln(1/(3δ)) (Azize's PhD thesis 2024,
Thm 4.24 / Cor. 4.25) and T*_ε·ln(1/(3δ)) (Jourdan & Azize, NeurIPS 2025).
"""
import functools
import math
import textwrap
from pathlib import Path

import numpy as np

from ..bai import bounds
from ..bai.result import BAIResult
from ..errors import ConfigError
from .store import result_files


@functools.lru_cache(maxsize=256)
def _t_eps(means, epsilon):
    """T*_ε of a (means, ε) pair, cached (it does not depend on δ)."""
    return bounds.t_star_eps(np.array(means), epsilon)


def ja25_bound(means, epsilon, delta):
    """T*_ε(ν)·ln(1/(3δ)) of Jourdan & Azize (NeurIPS 2025), in pulls (float; NaN if undefined).

    Parameters
    ----------
    means : sequence of float
        Bernoulli means in (0, 1) with a unique best arm.
    epsilon : float or None
        ε of ε-global DP (None: non-private, T*_KL).
    delta : float
        Risk δ; NaN unless 0 < δ < 1/3.
    """
    if not 0 < delta < 1 / 3 or not all(0 < m < 1 for m in means):
        return float("nan")
    t = bounds.t_star_kl(means) if epsilon is None else \
        _t_eps(tuple(float(m) for m in means), float(epsilon))
    return t * math.log(1 / (3 * delta))


def summary_row(res):
    """One table row of a result: its summary, K, seed, and the Jourdan–Azize bound.

    Parameters
    ----------
    res : BAIResult

    Returns
    -------
    dict
        :meth:`BAIResult.summary` plus ``arms``, ``seed``, ``lower_bound_ja25``
        (:func:`ja25_bound`) and ``ratio_ja25`` (tau_mean_lower over it).
    """
    s = res.summary()
    c = res.config
    s["arms"] = c.get("arms")
    s["seed"] = c.get("seed")
    s["means"] = c.get("means")
    s["lower_bound_ja25"] = ja25_bound(c["means"], s["epsilon"], s["delta"])
    s["ratio_ja25"] = s["tau_mean_lower"] / s["lower_bound_ja25"]
    return s


def is_bai_file(path):
    """Whether a Parquet file is a fixed-confidence result (schema metadata only; bool)."""
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(path).metadata or {}
    except Exception:  # not Parquet / unreadable: the regret reader names it
        return False
    return meta.get(b"bandsim.kind") == b"bai"


def bai_files(directory):
    """The fixed-confidence result files under ``directory`` (sorted list of Path)."""
    d = Path(directory)
    return [f for f in result_files(d) if is_bai_file(f)] if d.is_dir() else []


def holds_bai(directory):
    """Whether ``directory`` is a directory of fixed-confidence results (bool).

    Decided by its first result file (one schema read, so a large regret
    study pays nothing): ``bandsim run --out`` and ``reproduce`` never mix the
    two kinds in one directory.
    """
    d = Path(directory)
    if not d.is_dir():
        return False
    first = next(iter(result_files(d)), None)
    return first is not None and is_bai_file(first)


def collect(directory, allow_missing=False, warn=None):
    """Summary rows of every fixed-confidence result under ``directory``.

    Parameters
    ----------
    directory : path
    allow_missing : bool
        Skip a damaged file (named through ``warn``) instead of failing.
    warn : callable(str), optional

    Returns
    -------
    list of dict
        :func:`summary_row` plus ``file`` (relative path), sorted by
        algorithm, instance, ε, δ.

    Raises
    ------
    ConfigError
        No fixed-confidence result, or a damaged one (unless ``allow_missing``).
    """
    d = Path(directory)
    rows = []
    for f in bai_files(d):
        try:
            res = BAIResult.from_parquet(f)
        except Exception as e:
            if not allow_missing:
                raise ConfigError("dir", str(d), f"{f.relative_to(d)} is damaged ({e})") from None
            if warn:
                warn(f"skipped {f}: {e}")
            continue
        rows.append(dict(summary_row(res), file=str(f.relative_to(d))))
    if not rows:
        raise ConfigError("dir", str(d), "holds no best-arm identification result")
    return sorted(rows, key=lambda r: (r["algorithm"], r["instance"], r["epsilon"] or math.inf,
                                       r["delta"]))


def load(directory, level="job", allow_missing=False):
    """A directory of fixed-confidence results as a pyarrow table (:func:`bandsim.load`).

    Parameters
    ----------
    directory : path
    level : {"job", "run"}
        ``job``: one row per file (the columns of ``bandsim results --json``,
        the error interval as ``error_ci_low``/``error_ci_high``, the means as
        text); ``run``: one row per run of every file (``run``, ``tau``,
        ``recommended``, ``correct``, ``stopped``) with ``algorithm``,
        ``instance``, ``epsilon``, ``delta``, ``budget`` and ``file``.
    allow_missing : bool
        Skip damaged files (as :func:`collect`).

    Returns
    -------
    pyarrow.Table

    Raises
    ------
    ConfigError
        Unknown ``level``; as :func:`collect`.
    """
    import pyarrow as pa

    if level not in ("job", "run"):
        raise ConfigError("level", level, "must be job or run")
    rows = collect(directory, allow_missing)
    if level == "job":
        out = {k: [r.get(k) for r in rows] for k in rows[0] if k not in ("error_ci95", "means")}
        out["means"] = [",".join(f"{m:g}" for m in r["means"]) for r in rows]
        out["error_ci_low"] = [r["error_ci95"][0] for r in rows]
        out["error_ci_high"] = [r["error_ci95"][1] for r in rows]
        return pa.table(out)
    parts = []
    for r in rows:
        res = BAIResult.from_parquet(Path(directory) / r["file"])
        n = res.runs
        cols = {"run": np.arange(n, dtype=np.int64), "tau": res.tau,
                "recommended": res.recommended, "correct": res.correct, "stopped": res.stopped}
        for k in ("algorithm", "instance", "epsilon", "delta", "budget", "file"):
            cols[k] = pa.array([r[k]] * n, type=pa.float64() if k in ("epsilon", "delta")
                               else pa.int64() if k == "budget" else pa.string())
        parts.append(pa.table(cols))
    return pa.concat_tables(parts)


#: Settings the plot can put on its x axis.
X_AXES = ("epsilon", "delta")


def plot(directory, out=None, x="epsilon", dpi=150, formats=("png",), title=None, rows=None):
    """τ against ε or δ (log–log), one series per algorithm, one panel per instance (and the
    other setting), lower bounds overlaid; censored runs shown as lower bounds.

    Parameters
    ----------
    directory : path
        A directory of fixed-confidence results.
    out : path, optional
        Figure file (default ``DIR/plot.png``; other formats beside it).
    x : {"epsilon", "delta"}
    dpi : int
    formats : sequence of str
    title : str, optional
        Figure title (default: what is plotted and the runs used).
    rows : list of dict, optional
        Already collected rows.

    Returns
    -------
    list of Path

    Raises
    ------
    ConfigError
        Unknown ``x``, no results.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if x not in X_AXES:
        raise ConfigError("x", x, f"must be one of {', '.join(X_AXES)} for best-arm "
                                  "identification results")
    d = Path(directory)
    rows = rows if rows is not None else collect(d)
    other = "delta" if x == "epsilon" else "epsilon"
    def pkey(r):
        return (r.get("panel") or r["instance"], r["arms"], r[other] if "panel" not in r
                else None)

    panels = sorted({pkey(r) for r in rows},
                    key=lambda p: (p[0], p[1], -1 if p[2] is None else p[2]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.8), squeeze=False)
    sym = {"epsilon": "ε", "delta": "δ"}
    for ax, (inst, k, val) in zip(axes[0], panels):
        pr = [r for r in rows if pkey(r) == (inst, k, val)]
        _panel(ax, pr, x)
        ax.set_title(f"{inst}" + (f", K = {k}" if "panel" not in pr[0] else "")
                     + (f", {sym[other]} = {val:g}" if val is not None else ""), fontsize=9)
        ax.set_xlabel(sym[x])
        ax.set_ylabel("stopping time τ (pulls)")
    runs = sorted({r["runs"] for r in rows})
    title = title or (f"stopping time τ against {sym[x]}: mean ± 95 % CI over "
                      f"{'/'.join(map(str, runs))} runs; ▵ = censored runs (lower bound)")
    fig.suptitle("\n".join(textwrap.wrap(title, 140)), fontsize=9)
    handles, labels = [], []
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    fig.tight_layout()
    target = Path(out) if out else d / "plot.png"
    paths = []
    for fmt in formats:
        p = target.with_suffix("." + fmt)
        fig.savefig(p, dpi=dpi, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def _xval(r, x):
    v = r[x]
    return math.inf if v is None else v


def _panel(ax, rows, x):
    ax.set_xscale("log")
    ax.set_yscale("log")
    xs_all = sorted({_xval(r, x) for r in rows if _xval(r, x) != math.inf})
    for i, algo in enumerate(sorted({r["algorithm"] for r in rows})):
        color = f"C{i}"
        ar = sorted((r for r in rows if r["algorithm"] == algo), key=lambda r: _xval(r, x))
        if all(r[x] is None for r in ar) and xs_all:  # non-private: constant in ε
            r = ar[0]
            y = r["tau_mean"] if not r["censored"] else r["tau_mean_lower"]
            ax.hlines(y, xs_all[0], xs_all[-1], colors=color, linestyles="-",
                      label=algo + (" (≥, censored)" if r["censored"] else ""))
            continue
        full = [r for r in ar if not r["censored"]]
        cens = [r for r in ar if r["censored"]]
        if full:
            ax.errorbar([r[x] for r in full], [r["tau_mean"] for r in full],
                        yerr=[np.nan_to_num(r["tau_ci95"]) for r in full], color=color,
                        marker="o", ms=4, capsize=2, label=algo)
        if cens:
            ax.plot([r[x] for r in cens], [r["tau_mean_lower"] for r in cens], color=color,
                    marker="^", mfc="none", ls="none",
                    label=None if full else f"{algo} (censored)")
            for r in cens:
                ax.annotate(f"{r['censored']}/{r['runs']} cens.", (r[x], r["tau_mean_lower"]),
                            textcoords="offset points", xytext=(3, 4), fontsize=6, color=color)
    _bounds(ax, rows, x)


def _bounds(ax, rows, x):
    r0 = rows[0]
    xs = sorted({r[x] for r in rows if r[x] is not None})
    if not xs:
        return
    grid = np.geomspace(xs[0], xs[-1], 40) if xs[-1] > xs[0] else np.array(xs)
    means = r0.get("means")
    if means is None:
        return
    other = "delta" if x == "epsilon" else "epsilon"
    tkl, ttv = bounds.t_star_kl(means), bounds.t_star_tv(means)  # Cor. 4.25, once a panel
    thesis = []
    for v in grid:
        eps, delta = (v, r0[other]) if x == "epsilon" else (r0[other], v)
        ok = delta is not None and 0 < delta < 1 / 3
        thesis.append(max(tkl, ttv / (math.inf if eps is None else eps))
                      * math.log(1 / (3 * delta)) if ok else np.nan)
    ax.plot(grid, thesis, "k--", lw=1, label="lower bound, Azize thesis Cor. 4.25")
    ja = [ja25_bound(means, *((v, r0[other]) if x == "epsilon" else (r0[other], v)))
          for v in xs]
    ax.plot(xs, ja, "k:", lw=1.2, label="lower bound T*_ε, Jourdan & Azize 2025")
