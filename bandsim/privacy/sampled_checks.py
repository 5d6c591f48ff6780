"""Checks of the sampled audit beyond the G-test: encoding neighbours and a scale test.

The sampled audit (:mod:`bandsim.privacy.sampled`) compares the real kernels'
draws with the exact law on neighbouring inputs. Rewards 0 and 1 make the
randomized rounding trivial, so :func:`fractional_pairs` adds neighbours with
a fractional reward (0.99 and 1 − 1/(2g)), whose exact law is a mixture of
two shifts; :func:`scale_test` is a one-parameter test of the noise scale,
more powerful than the G-test against a noise a few percent too small.

References
----------
Chowdhury & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits"
(ICLR 2023), Algorithm 2 line 3 (randomized rounding).
"""
import math
from dataclasses import dataclass

import numpy as np


@dataclass
class _Pair:
    """One path: the draws under both inputs as cells of an ordered line, and the law."""

    path: str
    cells: tuple      # (int64 (N,), int64 (N,)), indices in [0, n_cells)
    probs: tuple      # (float64 (n_cells,), float64 (n_cells,)) expected
    n_cells: int
    labels: np.ndarray = None
    inputs: tuple = ("0", "1")
    gof_only: bool = False
    tested0: bool = False  # its input-0 draws are another pair's, tested there


def _circle(view_logp, m, k0, k1, y0, y1, path, inputs):
    """Modular draws ŷ as cells of the circle centred on input 0's noise mode."""
    h = m // 2
    c = int(np.argmax(view_logp))  # the noise mode (0 for symmetric laws)
    base = (c + k0 - h) % m

    def cells(y):
        return (np.asarray(y, np.int64) - base) % m

    p = np.exp(view_logp - view_logp.max())
    p /= p.sum()
    probs = tuple(np.roll(p, (k - base) % m) for k in (k0, k1))
    labels = np.arange(m, dtype=np.int64) - h
    return _Pair(path, (cells(y0), cells(y1)), probs, m, labels, inputs)


def _window(view_logp, m, g, hi, k0, k1, z0, z1, path, inputs):
    """Decoded outputs z (reward units) as cells of the analyzer's output space.

    The declared analyzer (Chowdhury & Zhou, ICLR 2023, Algorithm 3) decodes
    ŷ ∈ ℤ_m to its representative in the window [hi + 1 − m, hi] (hi = n g + τ)
    and divides by g: its outputs are the m points v/g of that window. Each
    output is its own cell v − (hi + 1 − m) — no reduction mod m, which would
    merge an output with its wrapped twin v ± m and erase a decoder whose window
    moves with the data — plus one cell of expected mass 0 for an output off
    the window or off the grid 1/g (the audit FAILs any draw there).

    Parameters
    ----------
    view_logp : float64 (m,)
        Log-pmf of the noise mod m (index: noise mod m).
    m, g, hi : int
        Modulus, precision and the window's top (encoded units).
    k0, k1 : int
        The two inputs' encoded sums.
    z0, z1 : float64 (N,)
        Outputs under each input (reward units).
    path : str
    inputs : tuple of str

    Returns
    -------
    _Pair
        ``m + 1`` cells, labelled by v (the last: ``hi + 1``, off the window).
    """
    lo = hi + 1 - m

    def cells(z):
        v = np.asarray(z, np.float64) * g
        r = np.rint(v)
        ok = (np.abs(v - r) <= 1e-6 * np.maximum(1.0, np.abs(v))) & (r >= lo) & (r <= hi)
        return np.where(ok, r - lo, m).astype(np.int64)

    p = np.exp(view_logp - view_logp.max())
    p /= p.sum()
    j = np.arange(m)
    probs = tuple(np.append(p[(j + lo - k) % m], 0.0) for k in (k0, k1))
    labels = np.arange(lo, hi + 2, dtype=np.int64)
    return _Pair(path, (cells(z0), cells(z1)), probs, m + 1, labels, inputs)


def scale_test(counts, probs):
    """One-parameter test of the noise scale: mean |c − c₀| of the draws against its exact value.

    c₀ is the median cell of ``probs``; the statistic z = (mean − E)/sqrt(Var/N)
    uses the exact mean E and variance of |c − c₀| under ``probs``, so z² is
    χ²(1) (CLT, N ≥ 10⁴). A noise scale off by a few percent moves the mean
    by many standard errors while the G-test spreads the same shift over all
    its cells: more power against a wrong scale, none against a wrong shape.

    Returns
    -------
    statistic (z²), p_value, cells (1)
    """
    from scipy import stats

    counts = np.asarray(counts, np.float64)
    p = np.asarray(probs, np.float64)
    p = p / p.sum()
    c0 = int(np.searchsorted(np.cumsum(p), 0.5))
    f = np.abs(np.arange(len(p)) - c0).astype(np.float64)
    mean = float(p @ f)
    var = float(p @ (f - mean) ** 2)
    n = counts.sum()
    if var <= 0 or n == 0:
        return 0.0, 1.0, 1
    z2 = float((counts @ f / n - mean) ** 2 / (var / n))
    return z2, float(stats.chi2.sf(z2, 1)), 1


#: Fractional rewards of the per-user path's extra neighbours (besides 1): x = 0.99 and
#: x = 1 − 1/(2g) (a function of g), where randomized rounding is not trivial.
FRACTIONAL = (0.99, "1 − 1/(2g)")
#: The fractional neighbours take draws // FRACTION_OF_DRAWS draws.
FRACTION_OF_DRAWS = 4


def fractional_pairs(user_view, m, g, n_view, per_user, code, fpar, ipar, draws, rng, y0, to_y):
    """Per-user path on x = (0, …, 0) versus x = (v, 0, …, 0) for v in :data:`FRACTIONAL`.

    The exact law under v is the mixture of the view shifted by ⌊v g⌋ and by
    ⌊v g⌋ + 1 with weight frac(v g) — the randomized rounding of Chowdhury &
    Zhou (2023), Algorithm 2 line 3, computed with the kernel's float
    operations. An encoder that leaves {0, …, g} (rounding up from ⌈v g⌉, an
    unclipped reward) then fails the G-test and raises the ε bound. The draws
    under x = 0 are the integer pair's (``y0``); under x₁, ``draws`` // 4
    (:data:`FRACTION_OF_DRAWS`): an encoding error moves whole cells of mass,
    and a quarter of the draws keeps the audit's cost within ~1.3× its
    cost without them.
    """
    out = []
    for v in FRACTIONAL:
        v = 1 - 1 / (2 * g) if isinstance(v, str) else v
        y = v * g
        lo = math.floor(y)
        f = y - lo
        x = np.zeros(n_view)
        x[0] = v
        y1 = to_y(per_user(rng, code, x, fpar, ipar, max(1000, draws // FRACTION_OF_DRAWS)))
        pair = _circle(user_view.logp, m, 0, lo, y0, y1, f"per-user, x₁ = {v:.6g}",
                       ("x = (0, …, 0)", f"x = ({v:.6g}, 0, …, 0)"))
        shifted = np.roll(pair.probs[1], 1)
        pair.probs = (pair.probs[0], (1 - f) * pair.probs[1] + f * shifted)
        pair.tested0 = True
        out.append(pair)
    return out


__all__ = ["FRACTIONAL", "FRACTION_OF_DRAWS", "fractional_pairs", "scale_test"]
