"""Open Bandit Dataset instances: items as Bernoulli arms with their click-through rate.

The Open Bandit Dataset (Saito, Aihara, Matsutani, Narita, arXiv:2008.07146)
logs ZOZOTOWN fashion recommendations: one CSV row per impression with
``item_id`` (the arm), ``position`` (slot 1–3), ``click`` (the reward, 0/1)
and ``propensity_score`` of the logging policy. Under the uniform-random
logging policy (the ``random`` folder) every item is shown with the same
probability, so an item's empirical click-through rate clicks / impressions is
an unbiased estimate of its mean reward: each item becomes an arm with
Bernoulli(CTR) rewards.

Choices (docs/fidelity.md, "Instances from data"):

- ``position=None`` pools the three slots (one CTR per item); ``position=k``
  keeps only impressions in slot k (the bandit of one slot).
- Items listed in a sibling ``item_context.csv`` but never shown (or items
  with no impression in the chosen slot) have no CTR and are left out, with a
  warning.
- An arm whose CTR rests on fewer than ``min_clicks`` clicks triggers a
  :class:`SparseDataWarning`; the file records impressions, clicks and a
  Wilson 95 % interval for every arm.
- Logs whose propensity scores are not constant (not uniform-random logging)
  trigger a warning: plain CTRs are then biased by the logging policy.
"""
import csv
import warnings
from pathlib import Path

import numpy as np

from ..errors import ConfigError, check_int
from .files import DataFormatError, file_provenance, library_versions, write_instance

COLUMNS = ("item_id", "position", "click")


class SparseDataWarning(UserWarning):
    """An arm's estimated mean rests on very little data."""


def _scan_csv(path, check):
    """First data line (1-based, header = line 1) whose row fails ``check``."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        for no, row in enumerate(reader, 2):
            problem = check(row)
            if problem:
                return no, problem
    return None


def _row_problem(row):
    for c in COLUMNS:
        v = row.get(c)
        try:
            x = float(v)
        except (TypeError, ValueError):
            return f"{c}={v!r} is not a number"
        if x != int(x):
            return f"{c}={v!r} is not an integer"
    if row["click"].strip() not in ("0", "1", "0.0", "1.0"):
        return f"click={row['click']!r} is not 0 or 1"
    if float(row["position"]) < 1:
        return f"position={row['position']!r} is not ≥ 1"
    if float(row["item_id"]) < 0:
        return f"item_id={row['item_id']!r} is negative"
    return None


def read_obd(path):
    """Read an Open Bandit Dataset log (CSV).

    Parameters
    ----------
    path : str or Path
        E.g. ``open-bandit-dataset/random/all/all.csv``.

    Returns
    -------
    dict of numpy arrays
        ``item_id``, ``position``, ``click`` (int64, one per impression) and
        ``propensity_score`` (float64, NaN when the column is absent).

    Raises
    ------
    DataFormatError
        Missing columns, or the first malformed row (its line number).
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv

    path = Path(path)
    if not path.is_file():
        raise ConfigError("path", str(path), "no such file")
    with open(path, newline="") as f:
        header = next(csv.reader(f), [])
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise DataFormatError(path, 1, f"header lacks column(s) {', '.join(missing)} "
                                       "(an Open Bandit Dataset log has item_id, position, click)")
    cols = list(COLUMNS) + (["propensity_score"] if "propensity_score" in header else [])
    types = {c: pa.int64() for c in COLUMNS}
    types["propensity_score"] = pa.float64()
    try:
        t = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(
            include_columns=cols, column_types=types))
    except pa.ArrowInvalid as e:
        bad = _scan_csv(path, _row_problem)
        raise DataFormatError(path, *(bad or (None, f"cannot parse ({e})"))) from None
    out = {c: t.column(c).to_numpy(zero_copy_only=False) for c in cols}
    if any(t.column(c).null_count for c in COLUMNS):
        bad = _scan_csv(path, _row_problem)
        raise DataFormatError(path, *(bad or (None, "empty values")))
    if out["item_id"].size == 0:
        raise DataFormatError(path, None, "no impressions")
    ok = (np.isin(out["click"], (0, 1)) & (out["position"] >= 1) & (out["item_id"] >= 0))
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise DataFormatError(path, i + 2, _row_problem({c: str(out[c][i]) for c in COLUMNS}))
    out.setdefault("propensity_score", np.full(out["item_id"].size, np.nan))
    return out


def wilson_interval(clicks, impressions, confidence=0.95):
    """Wilson score interval of each CTR (float64 arrays low, high)."""
    from scipy.stats import binomtest

    lo, hi = [], []
    for k, n in zip(clicks, impressions):
        ci = binomtest(int(k), int(n)).proportion_ci(confidence, method="wilson")
        lo.append(ci.low)
        hi.append(ci.high)
    return np.array(lo), np.array(hi)


def build_obd(path, out, position=None, min_clicks=10, name=None):
    """Build a Bernoulli instance file from an Open Bandit Dataset log.

    Parameters
    ----------
    path : str or Path
        Log of the uniform-random policy (``random/<campaign>/<campaign>.csv``).
    out : str or Path
        Output Parquet instance file (written atomically).
    position : int, optional
        Keep only impressions in this slot (1–3); default pools all slots.
    min_clicks : int
        Warn (:class:`SparseDataWarning`) about arms with fewer clicks.
    name : str, optional
        Instance name (default: the output file's stem).

    Returns
    -------
    Instance
        Bernoulli, mean of arm a = clicks_a / impressions_a.

    Raises
    ------
    DataFormatError, ConfigError
        Malformed log (naming the line), unknown position, fewer than 2 items
        with impressions. Nothing is written then.

    References
    ----------
    Saito et al., "Open Bandit Dataset and Pipeline", arXiv:2008.07146, Sections 4–5.
    """
    min_clicks = check_int("min_clicks", min_clicks, 0)
    log = read_obd(path)
    keep = np.ones(log["item_id"].size, bool)
    if position is not None:
        slots = np.unique(log["position"])
        position = check_int("position", position, 1)
        if position not in slots:
            raise ConfigError("position", position,
                              f"must be one of the logged slots {slots.tolist()}")
        keep = log["position"] == position
    items, clicks_all = log["item_id"][keep], log["click"][keep]
    n_items = int(log["item_id"].max()) + 1
    context = Path(path).with_name("item_context.csv")
    if context.is_file():
        with open(context, newline="") as f:
            listed = [int(float(r["item_id"])) for r in csv.DictReader(f) if r.get("item_id")]
        n_items = max(n_items, max(listed, default=-1) + 1)
    impressions = np.bincount(items, minlength=n_items)
    clicks = np.bincount(items, weights=clicks_all, minlength=n_items).astype(np.int64)
    arms = np.flatnonzero(impressions > 0)
    if arms.size < n_items:
        warnings.warn(f"{n_items - arms.size} of {n_items} items have no impression"
                      + (f" in position {position}" if position else "")
                      + " and are left out", SparseDataWarning, stacklevel=2)
    if arms.size < 2:
        raise ConfigError("path", str(path), "fewer than 2 items with impressions")
    imp, clk = impressions[arms], clicks[arms]
    ctr = clk / imp
    sparse = clk < min_clicks
    if sparse.any():
        warnings.warn(
            f"{int(sparse.sum())} of {arms.size} arms have fewer than {min_clicks} clicks "
            f"(fewest: {int(clk.min())} clicks in {int(imp[np.argmin(clk)])} impressions); "
            "their click-through rates are rough estimates (relative standard error "
            "≈ 1/√clicks) — use a larger log", SparseDataWarning, stacklevel=2)
    ps = log["propensity_score"][keep]
    ps = ps[np.isfinite(ps)]
    uniform = bool(ps.size == 0 or np.ptp(ps) <= 1e-12 * max(abs(ps).max(), 1.0))
    if not uniform:
        warnings.warn("propensity scores vary: this is not a uniform-random log, so plain "
                      "click-through rates are biased by the logging policy", stacklevel=2)
    low, high = wilson_interval(clk, imp)
    provenance = {
        "builder": "bandsim.datasets.obd.build_obd",
        "source": file_provenance(path),
        "impressions": int(keep.sum()), "clicks": int(clk.sum()),
        "position": position, "items": int(n_items), "arms": int(arms.size),
        "min_clicks": min_clicks, "arms_below_min_clicks": int(sparse.sum()),
        "uniform_random_logging": uniform,
        "reward": "click (Bernoulli), mean = clicks / impressions of the item"
                  + (f" in position {position}" if position else " over all positions"),
        "versions": library_versions("scipy"),
        "reference": "Saito et al., Open Bandit Dataset, arXiv:2008.07146",
    }
    return write_instance(
        out, [[0.0, 1.0]] * arms.size, np.stack([1 - ctr, ctr], axis=1).tolist(),
        name=name or Path(out).stem, kind="obd", provenance=provenance,
        labels=[f"item {i}" for i in arms], sizes=imp,
        extra={"impressions": imp, "clicks": clk,
               "ctr_low": low, "ctr_high": high})
