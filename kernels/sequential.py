"""Per-step engines: UCB1, DP-UCB (tree-based binary mechanism) and Successive Elimination.

These algorithms decide at every pull (UCB) or every cycle (SE), so they are
simulated one pull at a time: one run after the other, one loop iteration per
pull, many runs in parallel through the runner's shards. Rewards are exact
(Bernoulli: one uniform per pull, ``u < μ``; clipped Gaussian: one
:func:`kernels.rewards.clipped_gaussian` draw per pull; categorical: one
inversion draw; all through :func:`kernels.rewards.draw`). Pseudo-regret
Σ_a Δ_a N_a(t) is written only at the checkpoints (memory O(checkpoints)).

Speed without changing a single decision
----------------------------------------
The UCB index of arm i at time t is ``c_i + L(t) r_i`` with
``c_i = (Õ_i + Γ)/n_i``, ``r_i = 1/sqrt(n_i)`` and ``L(t) = sqrt(2 log t)``
(Γ = 0 and Õ_i = exact reward sum for UCB1). Two exact devices avoid
recomputing logs and square roots at every step:

* **L brackets.** For t in a bracket [t0, t1], L(t) ∈ [L(t0), L(t1)], and the
  difference of two indices is linear in L. If one arm beats every other at
  both ends by a margin (``MARGIN`` relative), it is the argmax for every t in
  the bracket; otherwise the index is computed at L(t) exactly, with the
  same arithmetic as the per-pull reference (``tests/reference.py``).
* **Leader windows.** After arm a is chosen, the next decisions are "a again"
  as long as a's index stays above an upper bound U of every other arm's
  index over the window (others do not change while a is pulled). With
  ``V = U + margin − L(t0)/sqrt(n_max)``, the test ``Õ_a + Γ > n_a V`` is a
  sufficient condition, checked with one multiply per pull; when it fails,
  the exact argmax decides.

The margin (1e-9 relative) exceeds any floating-point rounding of the index
by many orders of magnitude, so every decision equals the one the per-pull
reference makes: with the same random stream, the pull sequences are
identical (tested for UCB1 and DP-UCB).

SE tests after every cycle whether max_j S_j − S_i > 2 sqrt(2 n log T) (sum
units). The gap of the sums grows by at most 1 per cycle and the threshold
never decreases, so the next ⌊thr − D − 1⌋ cycles cannot remove an arm and
run without the test (same draws, same pulls as the reference).

References
----------
Sajed (MSc thesis 2019): Algorithm 1 (UCB), Algorithm 2 (Successive
Elimination), Algorithm 5 (tree-based binary mechanism), Algorithm 6
(DP-UCB, Mishra & Thakurta 2015).
"""
import math

import numpy as np

from ._jit import jit, jit_inline
from .elimination import eliminate
from .codes import BERNOULLI, LAW_LAPLACE
from .record import rbernoulli, rbernoulli_window, rdraw, release, reveal
from .regret import ROUND_ROBIN, advance, commit, start_run

#: Relative margin by which a shortcut decision must win (see module docstring).
MARGIN = 1e-9
#: Tree levels allocated per arm (enough for any T < 2**62).
MAX_LEVELS = 64
#: ``tag`` of :func:`tree_release` that tags each node with its own level.
LEVEL = -1


@jit_inline
def laplace(rng, scale):
    """One Lap(scale) draw as ``scale (E₁ − E₂)``, E₁, E₂ i.i.d. Exp(1) (float64).

    The difference of two independent standard exponentials is exactly
    Laplace(0, 1); numpy's ziggurat exponential sampler makes this about twice
    as fast as the inverse-CDF ``Generator.laplace`` (no unpredictable branch).
    """
    return scale * (rng.standard_exponential() - rng.standard_exponential())


@jit_inline
def _tree_node(alpha, n, x):
    """The node that count n completes: its level i (the lowest set bit of n) and its
    exact p-sum α_i ← Σ_{j<i} α_j + x (``alpha`` updated in place)."""
    i = 0
    while (n >> i) & 1 == 0:
        i += 1
    s = x
    for j in range(i):
        s += alpha[j]
    alpha[i] = s
    return i, s


@jit_inline
def _tree_sum(cum, n, i, noisy):
    """The noisy prefix sum O_n = α̂_i + cum[j] (j the next set bit of n above i), with
    ``noisy`` = α̂_i the node just released; ``cum[i]`` updated in place."""
    m = n >> (i + 1)
    j = i + 1
    out = noisy
    if m != 0:
        while m & 1 == 0:
            m >>= 1
            j += 1
        out = cum[j] + noisy
    cum[i] = out
    return out


@jit_inline
def tree_insert(alpha, cum, n, x, scale, rng):
    """Insert the n-th value of a stream into the tree-based binary mechanism.

    Parameters
    ----------
    alpha : float64 (L,)
        Exact p-sums per level (Algorithm 5's α_i), updated in place.
    cum : float64 (L,)
        ``cum[i]`` = released sum Σ_{j ≥ i, bit j of m set} α̂_j at the last
        count m whose lowest set bit was i, updated in place.
    n : int64
        Count of the new value (1-based, ≥ 1).
    x : float64
        The new value σ(n) (a reward, in [0, 1]).
    scale : float64
        Laplace scale 1/ε' = (⌈log₂ T⌉ + 1)/ε of every node's noise.
    rng : numpy.random.Generator

    Returns
    -------
    float64
        The released noisy prefix sum O_n = Σ_{j: bit j of n set} α̂_j
        (Algorithm 5 line 10), summed from the highest level down.

    Notes
    -----
    With i the lowest set bit of n: α_i ← Σ_{j<i} α_j + σ(n) and
    α̂_i ← α_i + Lap(scale) — one fresh Laplace draw per insertion, exactly
    where Algorithm 5 (lines 6–9) draws it. The nodes on bits above i are
    unchanged since the last count whose lowest set bit was the next set bit
    j of n, so O_n = α̂_i + cum[j] costs O(1) amortised. Zeroing the lower
    counters (line 8) is not needed: a level is always rewritten before it
    is read again. :func:`tree_release` is the same insertion in the
    recording mode.

    References
    ----------
    Sajed (2019), Section 3.3, Algorithm 5 (Chan, Shi & Song 2010; Dwork et al. 2010).
    """
    return tree_release(alpha, cum, n, x, scale, rng, None, 0, 0, 0, LEVEL)


@jit_inline
def tree_release(alpha, cum, n, x, scale, rng, rec, run, t, arm, tag):
    """:func:`tree_insert`, its node released through :func:`kernels.record.release`.

    The one code path of the binary mechanism: with ``rec`` None the release
    is the noisy node itself, and this is :func:`tree_insert`.

    Parameters
    ----------
    alpha, cum, n, x, scale, rng
        As in :func:`tree_insert`.
    rec : kernels.record.Recorder or None
        A recorder logs the node formed by the n-th item — level i = the
        lowest set bit of n, the sum of the items n − 2^i + 1 … n — as a
        ``LAW_LAPLACE`` release: n = 2^i rewards it covers, true = the exact
        p-sum α_i, scale = ``scale``; the prefix sum is built from the value
        :func:`kernels.record.release` returns (frozen in a replay).
    run, t, arm : int64
        Run, pulls so far (this one included) and the arm whose tree it is.
    tag : int64
        The release's tag; ``LEVEL`` (−1) tags the node with its level i.

    Returns
    -------
    float64
        The released noisy prefix sum O_n.
    """
    i, s = _tree_node(alpha, n, x)
    return _tree_sum(cum, n, i, release(rec, run, t, arm, np.int64(1) << i, LAW_LAPLACE,
                                        i if tag == LEVEL else tag, s, scale,
                                        s + laplace(rng, scale)))


@jit_inline
def _total_regret(g, n, k):
    r = 0.0
    for i in range(k):
        r += g[i] * n[i]
    return r


@jit
def run_ucb_shard(rng, shard, gamma, scale, rec):
    """Simulate a shard of runs of UCB1 (``scale == 0``) or DP-UCB (``scale > 0``).

    Parameters
    ----------
    rng : numpy.random.Generator
        The shard's generator; runs use it one after the other. Per pull it
        draws the reward (one uniform for Bernoulli), then, for DP-UCB, the
        tree node's Laplace noise (two standard exponentials).
    shard : kernels.shard.Shard
        The runs; its fields:
    gaps : float64 (R, K)
        Suboptimality gaps Δ_a of each run's instance.
    rcode : int
        Reward model code (:mod:`kernels.rewards`).
    rpar : float64 (R, K, P)
        Reward parameters of each run's arms.
    horizon : int64
        T.
    gamma : float64
        Γ of Algorithm 6 (0 for UCB1), in reward-sum units.
    scale : float64
        Laplace scale of every tree node, (⌈log₂ T⌉ + 1)/ε; 0 = no privacy
        (the exact reward sum is used: UCB1).
    checkpoints : int64 (C,)
        Increasing times in [1, T].
    out_regret : float64 (R, C); out_pulls : int64 (R, K); out_elim : int64 (R, K)
        Outputs: pseudo-regret at the checkpoints, N_a(T), and −1 (UCB never
        eliminates).
    rec : kernels.record.Recorder or None
        ``None`` in a simulation. In the whole-run privacy audit a recorder:
        every pull is a block of one reward (:func:`kernels.record.rdraw`), and
        every tree node is a ``LAW_LAPLACE`` release tagged with its level
        (:func:`tree_release`); UCB1 releases each reward as it is
        (``LAW_EXACT``, :func:`kernels.record.reveal`). The index reads only
        released values. Both modes run this same code: they differ only
        inside the record primitives.

    Notes
    -----
    Pulls 1..K pull arm 1..K once (Algorithm 1 lines 4–8, Algorithm 6 lines
    4–8). Afterwards pull t goes to argmax_i Õ_i/n_i + sqrt(2 log t / n_i)
    + Γ/n_i, ties to the lowest index, computed as (Õ_i + Γ)/n_i
    + sqrt(2 log t) (1/sqrt(n_i)); see the module docstring for the exact
    shortcuts.

    References
    ----------
    Sajed (2019), Algorithm 1 (UCB1) and Algorithm 6 (DP-UCB, Mishra & Thakurta 2015).
    """
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    n_runs, K = gaps.shape
    nc = checkpoints.shape[0]
    n = np.zeros(K, np.int64)
    O = np.zeros(K)
    c = np.zeros(K)
    rr = np.zeros(K)
    lo = np.zeros(K)
    hi = np.zeros(K)
    alpha = np.zeros((K, MAX_LEVELS))
    cum = np.zeros((K, MAX_LEVELS))
    private = scale > 0.0
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        ci = 0
        t = 0
        for a in range(K):
            n[a] = 0
            O[a] = 0.0
            out_elim[run, a] = -1
        # lines 4-8: each arm once
        for a in range(K):
            if t >= horizon:
                break
            n[a] = 1
            x = rdraw(rng, rec, run, t, a, rcode, rpar[run, a])
            if private:
                O[a] = tree_release(alpha[a], cum[a], 1, x, scale, rng, rec, run, t + 1, a,
                                    LEVEL)
            else:
                O[a] = reveal(rec, run, t + 1, a, x)
            c[a] = (O[a] + gamma) / n[a]
            rr[a] = 1.0 / math.sqrt(n[a])
            t += 1
            while ci < nc and checkpoints[ci] == t:
                row[ci] = _total_regret(g, n, K)
                ci += 1
        tb1 = -1  # no L bracket yet
        L0 = 0.0
        L1 = 0.0
        while t < horizon:
            tt = t + 1  # the pull being decided
            if tt > tb1:
                tb0 = tt
                tb1 = min(horizon, tt + max(64, tt >> 6))
                L0 = math.sqrt(2.0 * math.log(tb0))
                L1 = math.sqrt(2.0 * math.log(tb1))
                for i in range(K):
                    lo[i] = c[i] + L0 * rr[i]
                    hi[i] = c[i] + L1 * rr[i]
            # the argmax at L(tt): shortcut over the bracket, else exact
            a = 0
            for i in range(1, K):
                if lo[i] > lo[a]:
                    a = i
            tol = MARGIN * (1.0 + abs(lo[a]) + abs(hi[a]))
            sure = True
            for i in range(K):
                if i != a and not (lo[a] - lo[i] > tol and hi[a] - hi[i] > tol):
                    sure = False
            if not sure:
                Lt = math.sqrt(2.0 * math.log(tt))
                a = 0
                best = c[0] + Lt * rr[0]
                for i in range(1, K):
                    v = c[i] + Lt * rr[i]
                    if v > best:
                        best = v
                        a = i
            # pull a at time tt
            p = rpar[run, a]
            na = n[a] + 1
            x = rdraw(rng, rec, run, t, a, rcode, p)
            if private:
                Oa = tree_release(alpha[a], cum[a], na, x, scale, rng, rec, run, tt, a, LEVEL)
            else:
                Oa = O[a] + reveal(rec, run, tt, a, x)
            t = tt
            # leader window: decisions for pulls t+1 .. t_end, sized so that the
            # first one passes (shrunk geometrically towards a crossing)
            nxt = checkpoints[ci] if ci < nc else horizon
            t_end = min(nxt, t + max(1, na >> 4))
            V = 0.0
            while t_end > t:
                n_max = na + (t_end - t)
                Le = math.sqrt(2.0 * math.log(t_end))
                U = -np.inf
                for i in range(K):
                    if i != a:
                        v = c[i] + Le * rr[i]
                        if v > U:
                            U = v
                V = U + MARGIN * (1.0 + abs(U)) - L0 / math.sqrt(n_max)
                if Oa + gamma > na * V or t_end - t <= 1:
                    break
                t_end = t + (t_end - t) // 4
            if t_end > t:
                nf = float(na)
                # one reward at a time, each through the record primitives (pull t + 1
                # draws block t0 = t and releases at t + 1); Bernoulli without the
                # per-pull dispatch on the reward code
                if rcode == BERNOULLI and not private:
                    t, Oa = rbernoulli_window(rng, rec, run, t, t_end, a, p[0], Oa, nf, gamma, V)
                elif rcode == BERNOULLI:
                    mu = p[0]
                    al = alpha[a]
                    cu = cum[a]
                    nn = na
                    while t < t_end and Oa + gamma > nf * V:
                        x = rbernoulli(rng, rec, run, t, a, mu)
                        nn += 1
                        nf += 1.0
                        t += 1
                        Oa = tree_release(al, cu, nn, x, scale, rng, rec, run, t, a, LEVEL)
                else:
                    while t < t_end and Oa + gamma > nf * V:
                        x = rdraw(rng, rec, run, t, a, rcode, p)
                        nf += 1.0
                        t += 1
                        if private:
                            Oa = tree_release(alpha[a], cum[a], np.int64(nf), x, scale, rng,
                                              rec, run, t, a, LEVEL)
                        else:
                            Oa += reveal(rec, run, t, a, x)
                na += t - tt
            n[a] = na
            O[a] = Oa
            c[a] = (Oa + gamma) / na
            rr[a] = 1.0 / math.sqrt(na)
            lo[a] = c[a] + L0 * rr[a]
            hi[a] = c[a] + L1 * rr[a]
            while ci < nc and checkpoints[ci] == t:
                row[ci] = _total_regret(g, n, K)
                ci += 1
        for a in range(K):
            out_pulls[run, a] = n[a]


@jit
def ucb_index(stat, n, t, c):
    """UCB1's and DP-UCB's index (stat + c[0])/n + sqrt(2 log t) (1/sqrt(n)) (float64).

    ``stat`` the arm's released prefix sum r̃, ``n`` (int64) its pulls, ``t``
    (int64) the pull being decided, ``c[0]`` = Γ (0 for UCB1), reward-sum
    units: the printed r̃/n + sqrt(2 log t / n) + Γ/n in the arithmetic of
    :func:`run_ucb_shard`, this index's exact specialisation (same decisions,
    same draws), where a plan with this index runs. References: Sajed (2019),
    Algorithm 1 line 9, Algorithm 6 line 11 (Mishra & Thakurta 2015).
    """
    return (stat + c[0]) / n + math.sqrt(2.0 * math.log(t)) * (1.0 / math.sqrt(n))


@jit
def run_index_shard(rng, shard, index, c, scale, rec):
    """Simulate a shard of runs of a per-step index policy over the tree's private sums.

    The per-step family's plug-in point: pulls 1..K pull each arm once, then
    pull t goes to argmax_i ``index(Õ_i, n_i, t, c)`` (ties to the lowest
    arm), every index evaluated at every pull. Draws, releases and records
    are those of :func:`run_ucb_shard`, which is the exact specialisation of
    this loop for :func:`ucb_index`.

    Parameters
    ----------
    rng : numpy.random.Generator
        Per pull: the reward, then (``scale > 0``) the tree node's Laplace.
    shard : kernels.shard.Shard
        The runs and their output rows (``elim`` is −1: no arm is eliminated).
    index : first-class function (stat: float64, n: int64, t: int64, c: float64[::1]) -> float64
        ``stat`` the arm's released prefix sum Õ_i (reward-sum units: the
        tree-based binary mechanism's O_n, or the exact sum when ``scale`` is
        0), ``n`` its pulls, ``t`` the pull being decided.
    c : float64 (P,)
        The index's constants (read only).
    scale : float64
        Laplace scale of every tree node ((⌈log₂ T⌉ + 1)/ε for ε-DP); 0: no
        privacy, the exact sums.
    rec : kernels.record.Recorder or None
        As in :func:`run_ucb_shard`.

    References
    ----------
    Sajed (2019), Algorithms 5 and 6 (the tree-based binary mechanism and
    the per-step index loop of DP-UCB, Mishra & Thakurta 2015).
    """
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    n_runs, K = gaps.shape
    nc = checkpoints.shape[0]
    n = np.zeros(K, np.int64)
    O = np.zeros(K)
    alpha = np.zeros((K, MAX_LEVELS))
    cum = np.zeros((K, MAX_LEVELS))
    private = scale > 0.0
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        ci = 0
        t = 0
        for a in range(K):
            n[a] = 0
            O[a] = 0.0
            out_elim[run, a] = -1
        while t < horizon:
            tt = t + 1
            a = t
            if t >= K:
                a = 0
                best = index(O[0], n[0], tt, c)
                for i in range(1, K):
                    v = index(O[i], n[i], tt, c)
                    if v > best:
                        best = v
                        a = i
            n[a] += 1
            x = rdraw(rng, rec, run, t, a, rcode, rpar[run, a])
            if private:
                O[a] = tree_release(alpha[a], cum[a], n[a], x, scale, rng, rec, run, tt, a,
                                    LEVEL)
            else:
                O[a] += reveal(rec, run, tt, a, x)
            t = tt
            while ci < nc and checkpoints[ci] == t:
                row[ci] = _total_regret(g, n, K)
                ci += 1
        for a in range(K):
            out_pulls[run, a] = n[a]


@jit_inline
def _one_cycle(rng, rec, run, t, rcode, par, active, k, S):
    """Pull each of the first k active arms once, in order, adding rewards to S: the
    pull t + j + 1 of the j-th active arm is a block of one reward
    (:func:`kernels.record.rdraw`), released as it is (:func:`kernels.record.reveal`).
    """
    if rcode == BERNOULLI:
        for j in range(k):
            a = active[j]
            x = rbernoulli(rng, rec, run, t + j, a, par[a, 0])
            S[a] += reveal(rec, run, t + j + 1, a, x)
    else:
        for j in range(k):
            a = active[j]
            x = rdraw(rng, rec, run, t + j, a, rcode, par[a])
            S[a] += reveal(rec, run, t + j + 1, a, x)


@jit
def run_se_shard(rng, shard, log_horizon, rec):
    """Simulate a shard of runs of Successive Elimination, checked every cycle.

    Parameters
    ----------
    rng : numpy.random.Generator
        One reward draw per pull (one uniform for Bernoulli), in pull order.
    shard : kernels.shard.Shard
        The runs; its fields:
    gaps : float64 (R, K); rcode : int; rpar : float64 (R, K, P); horizon : int64
        As in :func:`run_ucb_shard`.
    log_horizon : float64
        log T (natural), of the confidence width 2 sqrt(2 log T / n).
    checkpoints : int64 (C,)
    out_regret : float64 (R, C); out_pulls : int64 (R, K); out_elim : int64 (R, K)
        Outputs; ``out_elim`` holds the time t of the cycle end at which an
        arm was removed, −1 if never.
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; in the whole-run privacy audit a recorder:
        every pull is a block of one reward, released as it is (``LAW_EXACT``).

    Notes
    -----
    A cycle pulls every viable arm once, in index order, and halts at T
    (lines 4–8). After the cycle, with n the number of pulls of each viable
    arm, every arm i with max_j μ̄_j − μ̄_i > 2 sqrt(2 log T / n) is removed
    (line 9; see docs/fidelity.md for n). The last arm is pulled until T.

    References
    ----------
    Sajed (2019), Section 2.1.2, Algorithm 2 (Even-Dar, Mannor & Mansour 2002).
    """
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    n_runs, K = gaps.shape
    active = np.empty(K, np.int64)
    S = np.zeros(K)
    mean = np.zeros(K)
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        pulls = out_pulls[run]
        start_run(active, pulls, out_elim[run])
        S[:] = 0.0
        k = K
        t = 0
        ci = 0
        regret = 0.0
        cycles = 0
        while k > 1 and t < horizon:
            if t + k > horizon:  # HALT mid-cycle (line 7)
                ci, regret = advance(row, checkpoints, ci, t, horizon - t, regret,
                                     ROUND_ROBIN, active, k, 1, g, pulls)
                t = horizon
                break
            # cycles whose test cannot remove an arm: the largest gap of the
            # sums grows by at most 1 per cycle and the threshold
            # 2 sqrt(2 n log T) (sum units) does not decrease, so while
            # D + j ≤ thr(n) − 1 no test can succeed; run them untested
            j = 0
            if cycles > 0:
                hi = S[active[0]]
                lo = hi
                for jj in range(1, k):
                    v = S[active[jj]]
                    if v > hi:
                        hi = v
                    if v < lo:
                        lo = v
                free = 2.0 * math.sqrt(2.0 * cycles * log_horizon) - (hi - lo) - 1.0
                if free >= 1.0:
                    j = min(np.int64(free), (horizon - t) // k - 1)
            if j > 0:
                for c in range(j):
                    _one_cycle(rng, rec, run, t + c * k, rcode, rpar[run], active, k, S)
                ci, regret = advance(row, checkpoints, ci, t, j * k, regret, ROUND_ROBIN,
                                     active, k, j, g, pulls)
                t += j * k
                cycles += j
            _one_cycle(rng, rec, run, t, rcode, rpar[run], active, k, S)
            ci, regret = advance(row, checkpoints, ci, t, k, regret, ROUND_ROBIN, active,
                                 k, 1, g, pulls)
            t += k
            cycles += 1
            width = 2.0 * math.sqrt(2.0 * log_horizon / cycles)
            for j in range(k):
                mean[active[j]] = S[active[j]] / cycles
            k = eliminate(mean, active, k, width, t, out_elim[run])
        commit(row, checkpoints, ci, t, horizon, regret, active[0], g, pulls)


@jit
def sample_releases(rng, s, scale, size):
    """``size`` draws (float64 (size,)) of ``s`` plus this engine's own Laplace draw
    (laplace) of scale ``scale``: what the sampled privacy audit tests."""
    out = np.empty(size)
    for i in range(size):
        out[i] = s + laplace(rng, scale)
    return out
