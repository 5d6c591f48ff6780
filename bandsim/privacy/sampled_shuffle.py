"""The sampled audit's paths of the shuffle binary summation (Tenenbaum et al. (NeurIPS 2021),
Algorithm 3): the batched and per-user kernels on Σx = 0 and Σx = 1, against the
exact Binomial law of the noise bits (see :mod:`bandsim.privacy.sampled`)."""
import math

import numpy as np

from ..kernels.binary_summation import noise_mean, sample_batched, sample_per_user
from . import pmf as P

def shuffle_pairs(spec, b, draws, rng, notes, pair_cls, budget):
    """The sampled audit's paths of the shuffle binary summation (batched and per user)."""
    import copy


    mech = copy.copy(b.extra["mech"])
    mech.tau = float(b.fpar[0])  # the parameter the kernels read
    n = b.n
    trials, prob = mech.noise_law(n)
    law = P.Binomial(trials, prob)
    sd = math.sqrt(max(trials * prob * (1 - prob), 1.0))
    lo, hi = max(0, law.center - int(40 * sd) - 2), min(trials, law.center + int(40 * sd) + 2)
    view = P.window(law, lo, hi)
    cells = hi - lo + 2  # one more: the input with one more 1
    probs = []
    for k in (0, 1):
        p = np.zeros(cells)
        p[k:k + len(view.logp)] = np.exp(view.logp)
        probs.append(p / p.sum())
    mean = noise_mean(n, mech.tau)

    def to_cells(z):
        ones = np.rint(np.asarray(z) + mean).astype(np.int64)
        return np.clip(ones - lo, 0, cells - 1)

    labels = np.arange(lo, lo + cells)
    out = [pair_cls("batched", tuple(to_cells(sample_batched(rng, k, n, mech.tau, draws))
                                  for k in (0, 1)), tuple(probs), cells, labels,
                 ("Σx = 0", "Σx = 1"))]
    coins = mech.fair_bits(n) or 1
    work = draws * n * coins * 2
    if work > budget:
        notes.append(f"per-user path skipped: {draws:,} draws × {n:,} users × {coins:,} coins "
                     f"× 2 inputs = {work:.3g} > the budget {budget:.3g}")
    else:
        xs = [np.zeros(n, np.int64), np.zeros(n, np.int64)]
        xs[1][0] = 1
        out.append(pair_cls("per-user", tuple(to_cells(sample_per_user(rng, x, mech.tau, draws))
                                           for x in xs), tuple(probs), cells, labels,
                         ("x = (0, …, 0)", "x = (1, 0, …, 0)")))
    return out


__all__ = ["shuffle_pairs"]
