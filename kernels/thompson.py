"""Per-round engines of the private Thompson-sampling algorithms of Hu & Hegde (UAI 2022).

Both algorithms draw one Beta sample per arm at every round, so they are
simulated round by round (cost O(K T) per run). Rewards enter differently:

``run_lazy_dp_ts_shard`` (Lazy-DP-TS, Algorithm 2)
    An arm's private mean is refreshed only when its current chunk of 2^(r+1)
    fresh observations is complete, from that chunk alone (one Lap(1/ε) on
    the chunk sum). No decision depends on an unfinished chunk, so the
    chunk's reward sum is drawn when it closes, as one
    :func:`kernels.rewards.batch_sum` of 2^(r+1) rewards (exact).
``run_dp_ts_shard`` (DP-TS, Algorithm 1)
    The private sum changes after every pull (a binary mechanism over the
    current epoch's stream), so every reward is drawn when it is pulled
    (``batch_sum`` of one reward). Completed epochs enter the sum with one
    Lap(2/ε) each; the current epoch through the binary mechanism of Chan,
    Shi & Song with per-node noise Lap(2(r+1)/ε), **drawn once per node**
    when the node is formed and reused (:func:`kernels.sequential.tree_insert`).

Per round and arm j: m̄_j = clip(m̃_j + υ_j) and θ_j ~ Beta(m̄_j O_j + 1,
(1 − m̄_j) O_j + 1) (real pseudo-counts); the arm with the largest θ is
pulled (ties have probability 0; the lowest index wins one). Beta(a, b) is
drawn as X/(X + Y) with X ~ Gamma(a), Y ~ Gamma(b) independent (an exact
identity; 2–3× faster in Numba than ``Generator.beta``), and Beta(a, 1)
(m̄ = 1, the clipped case) as U^{1/a} (exact).

Shifts: Lazy-DP-TS υ = c_shift · LOG(t) / O; DP-TS
υ = c_shift · LOG(O + 1) · LOG(t) / O, with LOG(x) = ``log_factor`` · ln x
(1 for the natural log, 1/ln 2 for log₂): the plans set c_shift = 3/ε and
6√8/ε respectively.

Pseudo-regret Σ_a Δ_a N_a(t) is written at the checkpoints from the counts.

Both engines take a last argument ``rec`` (:mod:`kernels.record`): ``None``
in a simulation (the draws above, unchanged), a recorder in the whole-run
privacy audit, which logs every reward block and every Laplace release
(initial pulls, chunk and epoch sums, binary-mechanism nodes) and freezes
the releases in a replay; the posterior reads only released values.

References
----------
Hu & Hegde, "Near-optimal Thompson sampling-based algorithms for
differentially private stochastic bandits", UAI 2022 (PMLR 180), Algorithm 1
(DP-TS), Algorithm 2 (Lazy-DP-TS), Section 3; Chan, Shi & Song, "Private and
continual release of statistics", ACM TISSEC 2011, Binary Mechanism B.
"""
import math

import numpy as np

from ._jit import jit, jit_inline
from .codes import LAW_LAPLACE
from .indices import clip01
from .record import release, rsum
from .regret import start_run
from .samplers import laplace_draw
from .sequential import MAX_LEVELS, tree_release


@jit_inline
def beta_pseudo(rng, mbar, O):
    """θ ~ Beta(mbar O + 1, (1 − mbar) O + 1) (float64)."""
    a = mbar * O + 1.0
    b = (1.0 - mbar) * O + 1.0
    if b == 1.0:
        return rng.random() ** (1.0 / a)
    x = rng.standard_gamma(a)
    y = rng.standard_gamma(b)
    return x / (x + y)


#: Sampler kinds of :func:`run_lazy_dp_ts_shard`: Lazy-DP-TS's own (inlined), or the hook.
LAZY_SAMPLE = 0
HOOK_SAMPLE = 1


@jit_inline
def _regret(g, pulls):
    r = 0.0
    for a in range(g.shape[0]):
        r += g[a] * pulls[a]
    return r


@jit_inline
def close_chunk(rng, rec, run, t, J, rcode, rpar, noise_scale, mt, O, fresh, need, chunk):
    """Arm J's chunk of need[J] fresh rewards closes at round t: one block of its rewards
    and one release of their sum + Lap(noise_scale); mt[J] becomes the chunk's private mean,
    and the next chunk is twice as long (Hu & Hegde, UAI 2022, Algorithm 2)."""
    n = need[J]
    s = rsum(rng, rec, run, t - 1, J, rcode, rpar, n)
    mt[J] = release(rec, run, t, J, n, LAW_LAPLACE, chunk[J], s, noise_scale,
                    s + laplace_draw(rng, noise_scale)) / n
    O[J] = n
    fresh[J] = 0
    need[J] = 2 * n
    chunk[J] += 1


@jit_inline
def first_pulls(rng, rec, run, K, horizon, rcode, rpar, noise_scale, mt, O, fresh, need, chunk,
                pulls, g, checkpoints, row):
    """Lazy-DP-TS's start: each arm pulled once, its reward released alone + Lap(noise_scale)
    (tag −1); the checkpoints reached are written. Returns (t, ci)."""
    ci = 0
    t = np.int64(0)
    for j in range(K):
        if t >= horizon:
            break
        x = rsum(rng, rec, run, t, j, rcode, rpar[j], 1)
        mt[j] = release(rec, run, t + 1, j, 1, LAW_LAPLACE, -1, x, noise_scale,
                        x + laplace_draw(rng, noise_scale))
        O[j] = 1.0
        fresh[j] = 0
        need[j] = 2
        chunk[j] = 0
        pulls[j] += 1
        t += 1
        while ci < checkpoints.shape[0] and checkpoints[ci] == t:
            row[ci] = _regret(g, pulls)
            ci += 1
    return t, ci


@jit_inline
def lazy_dp_ts_sample(rng, mean, n, t, c):
    """Lazy-DP-TS's posterior sample θ ~ Beta(m̄ n + 1, (1 − m̄) n + 1) (float64), with
    m̄ = clip(mean + c[1] c[0] / n): ``c[0]`` = ln t (the engine's slot), ``c[1]`` =
    c_shift · log_factor (3/ε · LOG/ln), so the shift is υ = 3 LOG(t)/(ε n).

    References
    ----------
    Hu & Hegde, UAI 2022, Algorithm 2 (the shift and the Beta posterior).
    """
    return beta_pseudo(rng, clip01(mean + c[1] * c[0] / n), n)


@jit
def run_lazy_dp_ts_shard(rng, shard, kind, sample, c, noise_scale, rec):
    """Simulate a shard of runs of Lazy-DP-TS (Hu & Hegde 2022, Algorithm 2), or of any
    posterior sampler ``sample`` over its chunked private means.

    Parameters
    ----------
    rng : numpy.random.Generator
        Per round: K Beta draws (gammas); per closed chunk: its batch sum and
        one Laplace.
    shard : kernels.shard.Shard
        The runs (gaps, reward model, horizon, checkpoints, output rows).
    kind : int
        ``LAZY_SAMPLE``: the posterior sample is :func:`lazy_dp_ts_sample`,
        inlined (Lazy-DP-TS; ``sample`` is not called); ``HOOK_SAMPLE``: it is
        ``sample``. Any other value raises ``ValueError``.
    sample : first-class function (rng, mean: float64, n: float64, t: int64, c: float64[::1]) -> float64
        The posterior sample θ_j of arm j at round t from its private mean
        m̃_j over n = O_j rewards; the arm with the largest θ is pulled (ties
        to the lowest arm).
    c : float64 (P,)
        The sampler's constants, copied; ``c[0]`` is the engine's slot,
        set to ln t before each round's samples.
    noise_scale : float64
        Laplace scale on each chunk's reward sum (1/ε: sensitivity 1).
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; a recorder in the whole-run privacy audit
        (:mod:`kernels.record`). The initial pull of an arm is one block of
        one reward and one release (tag −1); a chunk of n = 2^(r+1) rewards
        is one block, logged when it closes at round t with t0 = t − 1 (its
        rewards are the arm's last n pulls, not consecutive rounds), and one
        release (t, arm, n, ``LAW_LAPLACE`` of ``noise_scale``, tag r).

    Notes
    -----
    Round t ≤ K pulls arm t once: O_j = 1, m̃_j = X_j + Lap(1/ε), r_j = 0 (the
    initial observation is used only there). Round t > K pulls
    argmax_j θ_j; arm J's fresh count grows by one, and when it reaches
    2^(r_J+1): O_J = 2^(r_J+1), m̃_J = (chunk sum + Lap(1/ε)) / O_J, r_J += 1,
    the chunk is emptied.

    References
    ----------
    Hu & Hegde, UAI 2022, Algorithm 2 and Section 3.2.
    """
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    n_runs, K = gaps.shape
    nc = checkpoints.shape[0]
    mt = np.zeros(K)
    O = np.zeros(K)
    fresh = np.zeros(K, np.int64)
    need = np.zeros(K, np.int64)
    chunk = np.zeros(K, np.int64)  # r of the chunk being filled (its 2^(r+1) rewards)
    active = np.empty(K, np.int64)
    cw = c.copy()
    if kind != LAZY_SAMPLE and kind != HOOK_SAMPLE:
        raise ValueError("run_lazy_dp_ts_shard: unknown sampler kind")
    inline = kind == LAZY_SAMPLE
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        pulls = out_pulls[run]
        start_run(active, pulls, out_elim[run])
        t, ci = first_pulls(rng, rec, run, K, horizon, rcode, rpar[run], noise_scale, mt, O,
                            fresh, need, chunk, pulls, g, checkpoints, row)
        while t < horizon:
            t += 1
            cw[0] = math.log(t)
            J = 0
            best = -np.inf
            for j in range(K):
                if inline:
                    th = lazy_dp_ts_sample(rng, mt[j], O[j], t, cw)
                else:
                    th = sample(rng, mt[j], O[j], t, cw)
                if th > best:
                    best = th
                    J = j
            pulls[J] += 1
            fresh[J] += 1
            if fresh[J] == need[J]:
                close_chunk(rng, rec, run, t, J, rcode, rpar[run, J], noise_scale, mt, O, fresh,
                            need, chunk)
            while ci < nc and checkpoints[ci] == t:
                row[ci] = _regret(g, pulls)
                ci += 1


@jit
def run_dp_ts_shard(rng, shard, c_shift, chunk_scale, node_scale, log_factor, rec):
    """Simulate a shard of runs of DP-TS (Hu & Hegde 2022, Algorithm 1).

    Parameters
    ----------
    rng : numpy.random.Generator
        Per round: K Beta draws, one reward, and the Laplace of the binary
        mechanism's new node (or of the closed epoch).
    shard : kernels.shard.Shard
        The runs (gaps, reward model, horizon, checkpoints, output rows).
    c_shift : float64
        c of υ = c LOG(O + 1) LOG(t) / O (6√8/ε in the paper).
    chunk_scale : float64
        Laplace scale on the initial reward and on each completed epoch's
        sum (1/(0.5ε) = 2/ε; sensitivity 1).
    node_scale : float64
        Per-node Laplace scale of the binary mechanism is
        ``node_scale · (r + 1)`` in epoch r (log₂ of its bound 2^(r+1), over
        0.5ε: node_scale = 2/ε).
    log_factor : float64
        LOG(x) = log_factor · ln x (1/ln 2 = log₂, the paper's notation).
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; a recorder in the whole-run privacy audit
        (:mod:`kernels.record`). Every reward is one block of one reward
        (t0 = t − 1 at round t). Releases, all ``LAW_LAPLACE`` with the
        arm's epoch r as tag: the initial pull (n = 1, ``chunk_scale``, tag
        −1: the epoch of one reward before epoch 0), each completed epoch's
        sum (n = 2^(r+1), ``chunk_scale``) and each node of epoch r's binary
        mechanism (n = 2^i at level i, ``node_scale`` (r + 1); see
        :func:`kernels.sequential.tree_release`).

    Notes
    -----
    Round t ≤ K: pull arm t, O = 1, C = X + Lap(2/ε), B = 0, r = 0. Round
    t > K: pull J = argmax θ, O_J += 1, the reward joins epoch r_J's stream;
    if O_J = 2^(r_J+2) − 1 the epoch (2^(r_J+1) rewards) is complete:
    C_J += its sum + Lap(2/ε), B_J = 0, r_J += 1 and a fresh binary
    mechanism starts; otherwise B_J = the binary mechanism's release after
    the stream's s-th item (sum of the noisy nodes of the set bits of s).
    m̃_J = (C_J + B_J) / O_J.

    References
    ----------
    Hu & Hegde, UAI 2022, Algorithm 1, Section 3.1 and Appendix B; Chan,
    Shi & Song (2011), Binary Mechanism B.
    """
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    n_runs, K = gaps.shape
    nc = checkpoints.shape[0]
    C = np.zeros(K)
    B = np.zeros(K)
    O = np.zeros(K)
    mt = np.zeros(K)
    w = np.zeros(K)  # ln(O + 1) / O, refreshed when O changes
    psum = np.zeros(K)
    items = np.zeros(K, np.int64)
    epoch = np.zeros(K, np.int64)
    close = np.zeros(K, np.int64)
    alpha = np.zeros((K, MAX_LEVELS))
    cum = np.zeros((K, MAX_LEVELS))
    active = np.empty(K, np.int64)
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        pulls = out_pulls[run]
        start_run(active, pulls, out_elim[run])
        ci = 0
        t = np.int64(0)
        for j in range(K):
            if t >= horizon:
                break
            x = rsum(rng, rec, run, t, j, rcode, rpar[run, j], 1)
            C[j] = release(rec, run, t + 1, j, 1, LAW_LAPLACE, -1, x, chunk_scale,
                           x + laplace_draw(rng, chunk_scale))
            B[j] = 0.0
            O[j] = 1.0
            mt[j] = C[j]
            w[j] = math.log(2.0)
            psum[j] = 0.0
            items[j] = 0
            epoch[j] = 0
            close[j] = 3  # 2^(r+2) − 1 with r = 0
            pulls[j] += 1
            t += 1
            while ci < nc and checkpoints[ci] == t:
                row[ci] = _regret(g, pulls)
                ci += 1
        while t < horizon:
            t += 1
            lt = c_shift * log_factor * log_factor * math.log(t)
            J = 0
            best = -1.0
            for j in range(K):
                th = beta_pseudo(rng, clip01(mt[j] + lt * w[j]), O[j])
                if th > best:
                    best = th
                    J = j
            x = rsum(rng, rec, run, t - 1, J, rcode, rpar[run, J], 1)
            pulls[J] += 1
            O[J] += 1.0
            w[J] = math.log(O[J] + 1.0) / O[J]
            items[J] += 1
            if pulls[J] == close[J]:
                C[J] += release(rec, run, t, J, items[J], LAW_LAPLACE, epoch[J], psum[J] + x,
                                chunk_scale, psum[J] + x + laplace_draw(rng, chunk_scale))
                B[J] = 0.0
                psum[J] = 0.0
                items[J] = 0
                epoch[J] += 1
                close[J] = 2 * close[J] + 1
            else:
                psum[J] += x
                B[J] = tree_release(alpha[J], cum[J], items[J], x, node_scale * (epoch[J] + 1),
                                    rng, rec, run, t, J, epoch[J])
            mt[J] = (C[J] + B[J]) / O[J]
            while ci < nc and checkpoints[ci] == t:
                row[ci] = _regret(g, pulls)
                ci += 1
