"""DP-SE 2: the sparse vector technique at checkpoints r = 2^ℓ inside epochs.

An epoch starts with fresh counters and a threshold noise B ~ Lap(6/ε). Its
rounds pull every viable arm once (round-robin, index order). At rounds
r = 2^ℓ (ℓ = 1, 2, …) the SVT asks, with fresh A_r ~ Lap(6/ε), whether
max_i S_i − min_j S_j > thr(ℓ, k) + A_r + B, where S are the epoch's reward
sums (the mean-gap query of Algorithm 10, line 19, multiplied by r). When it
does, a private histogram S̃_j = S_j + Lap(2/ε) removes every arm with
S̃_max − S̃_j > width(ℓ, k), and the next epoch begins. When one arm is left
it is pulled until T.

Between checkpoints nothing is observed, so the 2^{ℓ−1} new pulls of each arm
are one exact batch sum (:func:`kernels.rewards.batch_sum`: one Binomial draw
for Bernoulli rewards), and the pseudo-regret at checkpoints inside a segment
follows from the round-robin order (:mod:`kernels.regret`); the horizon cuts
a segment exactly at T.

References
----------
Sajed (2019), Appendix A.1, Algorithm 10 (DP-SE 2), Theorem A.1.1; Appendix A.2
(modified halting rule); Section 3.2, Algorithm 4 (SVT).
"""
import numpy as np

from ._jit import jit
from .elimination import eliminate
from .codes import LAW_LAPLACE, LAW_SVT_QUERY, LAW_SVT_THRESHOLD
from .record import release, rsum
from .regret import ROUND_ROBIN, advance, commit, start_run
from .samplers import laplace_draw


@jit
def run_shard(rng, shard, query_threshold, elim_width, svt_scale, hist_scale, rec):
    """Simulate a shard of runs of DP-SE 2.

    Parameters
    ----------
    rng : numpy.random.Generator
        The shard's generator.
    shard : kernels.shard.Shard
        The runs: gaps float64 (R, K), rcode, rpar float64 (R, K, P), horizon
        T, checkpoints int64 (C,) and the output rows regret float64 (R, C),
        pulls and elim int64 (R, K) (elimination time t, −1 if never).
    query_threshold : float64 (ℓ_max + 1, K + 1)
        SVT threshold on max S − min S at r = 2^ℓ with k viable arms (reward
        sums), without the noises A_r + B.
    elim_width : float64 (ℓ_max + 1, K + 1)
        Elimination width on the noisy sums S̃_max − S̃_j.
    svt_scale : float64
        Laplace scale of B and of every A_r (6/ε, sum units).
    hist_scale : float64
        Laplace scale of the histogram noise on each sum (2/ε).
    rec : kernels.record.Recorder or None
        ``None`` in a simulation. In the whole-run privacy audit a recorder
        (:mod:`kernels.record`) logs, per epoch e of a run (the SVT instance,
        tag e): each segment of n new pulls of an arm as a block; B as a
        ``LAW_SVT_THRESHOLD`` release (statistic 0, n = −1); each query as a
        ``LAW_SVT_QUERY`` release (n = −1) of its margin over the noisy
        threshold, q − (thr + A_r + B) with q = max S_i − min S_j, whose
        statistic is q − (thr + B) (B the released threshold noise: the value
        minus the statistic is −A_r, up to rounding); the SVT answers "above"
        iff the released margin is > 0, which is exactly q > thr + A_r + B;
        each histogram sum S_j + Lap(2/ε) as a ``LAW_LAPLACE`` release (n = r
        pulls of arm j in the epoch). Control flow reads only the released
        values, in a simulation (``rec`` None) as in the audit.

    Raises
    ------
    ValueError
        If an epoch needs more levels than the tables hold (a bug in the
        table sizes, not a user error).
    """
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    n_runs, K = gaps.shape
    max_level = query_threshold.shape[0] - 1
    active = np.empty(K, np.int64)
    sums = np.zeros(K)
    noisy = np.zeros(K)
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        pulls = out_pulls[run]
        start_run(active, pulls, out_elim[run])
        k = K
        t = 0
        ci = 0
        regret = 0.0
        epoch = 0  # the SVT instance
        while k > 1 and t < horizon:
            B = release(rec, run, t, -1, -1, LAW_SVT_THRESHOLD, epoch, 0.0, svt_scale,
                        laplace_draw(rng, svt_scale))
            for j in range(k):
                sums[active[j]] = 0.0
            r = 0
            level = 0
            halted = False
            while t < horizon:
                level += 1
                if level > max_level:
                    raise ValueError("svt engine: level table too short")
                target = 1 << level
                n = target - r
                length = k * n
                if t + length >= horizon:
                    ci, regret = advance(row, checkpoints, ci, t, horizon - t, regret,
                                         ROUND_ROBIN, active, k, n, g, pulls)
                    t = horizon
                    break
                for j in range(k):
                    a = active[j]
                    sums[a] += rsum(rng, rec, run, t, a, rcode, rpar[run, a], n)
                ci, regret = advance(row, checkpoints, ci, t, length, regret, ROUND_ROBIN,
                                     active, k, n, g, pulls)
                t += length
                r = target
                A = laplace_draw(rng, svt_scale)
                hi = sums[active[0]]
                lo = hi
                for j in range(1, k):
                    s = sums[active[j]]
                    if s > hi:
                        hi = s
                    if s < lo:
                        lo = s
                # hi − lo > thr + A + B, exactly: the rounded difference of two doubles
                # is > 0 iff the first is larger (gradual underflow, no fastmath)
                thr = query_threshold[level, k]
                above = release(rec, run, t, -1, -1, LAW_SVT_QUERY, epoch, (hi - lo) - (thr + B),
                                svt_scale, (hi - lo) - (thr + A + B)) > 0.0
                if above:
                    halted = True
                    break
            if not halted:
                break
            for j in range(k):
                a = active[j]
                noisy[a] = release(rec, run, t, a, r, LAW_LAPLACE, epoch, sums[a], hist_scale,
                                   sums[a] + laplace_draw(rng, hist_scale))
            k = eliminate(noisy, active, k, elim_width[level, k], t, out_elim[run])
            epoch += 1
        commit(row, checkpoints, ci, t, horizon, regret, active[0], g, pulls)
