"""The episodic index-policy engine: one arm per episode, one decision per episode.

A run starts with K episodes of one pull, arm 0 to arm K − 1. Then, at every
episode start t_ℓ = t + 1, the engine pulls the arm A with the largest
``index(stat_a, n_a, t_ℓ, c)`` for a whole episode of consecutive pulls:

* **length.** Arm A is pulled until its count N_A reaches the next target:
  ``GEOMETRIC`` (ratio α): L = max(1, ⌈α N_A⌉ − N_A) — α = 2 is the doubling
  of AdaP (episode lengths 1, 1, 2, 4, …); ``GRID``: the next point of the
  per-arm grid ⌈α^k⌉, k = 0, 1, … that exceeds N_A. The horizon cuts the last
  episode exactly at T.
* **reward.** The episode's reward sum is one :func:`kernels.rewards.batch_sum`
  draw (exact: one Binomial(L, μ_A) for Bernoulli arms).
* **noise.** One Laplace draw of scale ``noise_scale`` is added to the sum:
  the reward sum of an episode has sensitivity 1 (rewards in [0, 1]), so
  ``noise_scale = 1/ε`` makes each release ε-DP; rewards of different
  episodes are disjoint, so the whole run is ε-DP (parallel composition;
  decisions are post-processing).
* **statistic.** ``LAST_EPISODE`` (forgetting, AdaP): stat_A = (S + Lap)/L,
  n_A = L. ``CUMULATIVE`` (DP-KLUCB/DP-IMED): S̃_A += S + Lap,
  stat_A = S̃_A / N_A, n_A = N_A.

The last argument ``rec`` of the engine (:mod:`kernels.record`) is ``None`` in
a simulation and a recorder in the whole-run privacy audit: each episode is
one block of reward draws and each episode sum one logged release, frozen
in a replay; the index reads only released values.

Ties of the index go to a uniformly random arm among the tied ones
(``tie_random``), else to the lowest index.

Pseudo-regret Σ_a Δ_a N_a(t) grows linearly inside an episode (one arm), so
its value at every checkpoint is exact (:func:`kernels.regret.advance` with
one block); memory is O(runs × checkpoints).

The index function is the plug-in point: any Numba-compiled function of
signature ``float64(float64 stat, int64 n, int64 t, float64[::1] c)`` (see
:mod:`kernels.indices`). Numba types a dispatcher passed as an argument by
its identity, so a cached engine compiled for one index could not be found
again by the next process (every run would recompile, ~2 s). :func:`run_shard`
therefore hands the index over as a first-class function object of that
fixed signature (:func:`as_index`): the engine is compiled once for all
index functions, and its on-disk cache is reused across processes.

References
----------
Azize & Basu, NeurIPS 2022, Algorithm 1 (episodes of doubling length, the
last-episode private mean, Laplace mechanism) and Eq. (7);
Azize, Wu, Honda, Orabona, Ito & Basu, NeurIPS 2025 (DP-KLUCB, DP-IMED:
geometric episodes of ratio α, cumulative private sum with one Laplace per
episode).
"""
import math

import numpy as np
from numba import types

from ._jit import jit
from .codes import LAW_EXACT, LAW_LAPLACE
from .record import release, rsum
from .regret import BLOCKS, advance, start_run
from .samplers import laplace_draw

GEOMETRIC = 0
GRID = 1

LAST_EPISODE = 0
CUMULATIVE = 1

#: Relative tolerance of ⌈α N⌉: α N is computed in float64 (1.1 × 10 is
#: 11.000000000000002), so ⌈α N (1 − ROUND_TOL)⌉ is taken; exact for α N < 10¹².
ROUND_TOL = 1e-12

#: The signature every index function must compile for.
INDEX_SIGNATURE = types.float64(types.float64, types.int64, types.int64,
                                types.Array(types.float64, 1, "C"))


@jit
def ceil_tol(x):
    """⌈x⌉ of a positive float64 computed with rounding error, as int64 (see ROUND_TOL)."""
    return np.int64(math.ceil(x * (1.0 - ROUND_TOL)))


@jit
def episode_length(count, ratio, rule):
    """Pulls of the next episode of an arm pulled ``count`` times so far (int64 ≥ 1).

    Parameters
    ----------
    count : int64
        N_a, pulls of the arm before the episode (≥ 1).
    ratio : float64
        α > 1.
    rule : int
        ``GEOMETRIC``: max(1, ⌈α N⌉ − N). ``GRID``: (smallest ⌈α^k⌉ > N) − N.
    """
    if rule == GEOMETRIC:
        target = ceil_tol(ratio * count)
    else:
        k = 0
        target = np.int64(1)
        while target <= count:
            k += 1
            target = ceil_tol(ratio ** k)
    return max(np.int64(1), target - count)


@jit
def _argmax(rng, index, stat, cnt, t, c, tie_random):
    """Arm with the largest index; ties uniformly at random (reservoir) or lowest."""
    K = stat.shape[0]
    lead = stat[0]
    for a in range(1, K):
        if stat[a] > lead:
            lead = stat[a]
    c[0] = lead
    best = index(stat[0], cnt[0], t, c)
    arm = 0
    ties = 1
    for a in range(1, K):
        v = index(stat[a], cnt[a], t, c)
        if v > best:
            best = v
            arm = a
            ties = 1
        elif v == best and tie_random:
            ties += 1
            if rng.random() * ties < 1.0:
                arm = a
    return arm


@jit
def _run_shard(rng, shard, index, c, ratio, rule, estimator, noise_scale, tie_random, rec):
    gaps, rcode, rpar, horizon = shard.gaps, shard.rcode, shard.rpar, shard.horizon
    checkpoints, out_regret, out_pulls, out_elim = (shard.checkpoints, shard.regret,
                                                    shard.pulls, shard.elim)
    n_runs, K = gaps.shape
    active = np.empty(K, np.int64)
    one = np.zeros(1, np.int64)
    stat = np.zeros(K)
    cnt = np.zeros(K, np.int64)
    total = np.zeros(K)
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        pulls = out_pulls[run]
        start_run(active, pulls, out_elim[run])
        for a in range(K):
            stat[a] = 0.0
            cnt[a] = 0
            total[a] = 0.0
        t = np.int64(0)
        ci = 0
        regret = 0.0
        e = 0  # episodes so far; the first K pull arm e once
        while t < horizon:
            if e < K:
                A = e
                L = np.int64(1)
            else:
                A = _argmax(rng, index, stat, cnt, t + 1, c, tie_random)
                L = episode_length(pulls[A], ratio, rule)
            e += 1
            if L > horizon - t:  # the horizon cuts the episode (nothing is released)
                L = horizon - t
            s = rsum(rng, rec, run, t, A, rcode, rpar[run, A], L)
            one[0] = A
            ci, regret = advance(row, checkpoints, ci, t, L, regret, BLOCKS, one, 1, L, g,
                                 pulls)
            t += L
            if t >= horizon:
                break
            if noise_scale > 0.0:  # the sampled audit samples laplace_draw itself
                b = noise_scale  # the scale drawn is the scale recorded
                s = release(rec, run, t, A, L, LAW_LAPLACE, 0, s, b, s + laplace_draw(rng, b))
            else:
                s = release(rec, run, t, A, L, LAW_EXACT, 0, s, 0.0, s)
            if estimator == LAST_EPISODE:
                stat[A] = s / L
                cnt[A] = L
            else:
                total[A] += s
                stat[A] = total[A] / pulls[A]
                cnt[A] = pulls[A]


class _Index(types.WrapperAddressProtocol):
    """A Numba-compiled index function as a first-class function of INDEX_SIGNATURE."""

    def __init__(self, fn):
        from numba.experimental.function_type import _get_wrapper_address

        self.fn = fn
        self._addr = _get_wrapper_address(fn, INDEX_SIGNATURE)  # compiles fn if needed

    def __wrapper_address__(self):
        return self._addr

    def signature(self):
        return INDEX_SIGNATURE


_INDEXES = {}


def as_index(fn):
    """Wrap a Numba-compiled index function for :func:`run_shard` (memoised).

    Parameters
    ----------
    fn : numba dispatcher (``@njit``)
        ``fn(stat: float64, n: int64, t: int64, c: float64[::1]) -> float64``.

    Returns
    -------
    numba.types.WrapperAddressProtocol
        A first-class function object: the engine compiled (and cached on
        disk) once serves every index function.

    Raises
    ------
    TypeError
        If ``fn`` does not compile for the signature.
    """
    if isinstance(fn, types.WrapperAddressProtocol):
        return fn
    w = _INDEXES.get(fn)
    if w is None:
        try:
            w = _Index(fn)
        except Exception as exc:  # numba's typing errors are not one class
            raise TypeError(f"index function {getattr(fn, '__name__', fn)!r} does not "
                            f"compile as {INDEX_SIGNATURE}: {exc}") from exc
        _INDEXES[fn] = w
    return w


def run_shard(rng, shard, index, c, ratio, rule, estimator, noise_scale, tie_random, rec=None):
    """Simulate a shard of runs of an episodic index policy.

    Parameters
    ----------
    rng : numpy.random.Generator
        The shard's generator; runs use it one after the other. Per episode:
        the tie-breaking uniform (only on ties), the batch sum, the Laplace.
    shard : kernels.shard.Shard
        The runs: gaps, reward model, horizon, checkpoints and the output rows
        (pseudo-regret at the checkpoints, N_a(T), and −1: no arm is ever
        eliminated).
    index : numba dispatcher or first-class function
        ``index(stat, n, t, c) -> float64`` (:mod:`kernels.indices`); the arm
        with the largest value is pulled.
    c : float64 (P,)
        Parameters of the index; ``c[0]`` is overwritten with max_b stat_b
        before each decision (on a private copy, ``c`` is not modified).
    ratio : float64
        α > 1 of the episode lengths (2 = doubling).
    rule : int
        ``GEOMETRIC`` or ``GRID`` (:func:`episode_length`).
    estimator : int
        ``LAST_EPISODE`` or ``CUMULATIVE`` (module docstring).
    noise_scale : float64
        Scale b of the Laplace added to each episode's reward sum (1/ε for
        ε-DP with sensitivity 1); 0 = no noise.
    tie_random : bool
        Break index ties uniformly at random (else lowest arm).
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; a recorder in the whole-run privacy audit
        (:mod:`kernels.record`): every episode is one block (run, t0 = pulls
        before it, arm A, n = L) and every episode sum one release (t = pulls
        after it, arm A, n = L, law ``LAW_LAPLACE`` of scale ``noise_scale``,
        or ``LAW_EXACT`` when it is 0; tag 0). The episode the horizon cuts
        is a block without a release.

    References
    ----------
    Azize & Basu, NeurIPS 2022, Algorithm 1; Azize et al., NeurIPS 2025.
    """
    if not ratio > 1.0:
        raise ValueError("episode ratio must be > 1")
    cw = np.array(c, dtype=np.float64)  # c[0] is the engine's scratch slot
    _run_shard(rng, shard, as_index(index), cw, float(ratio), int(rule), int(estimator),
               float(noise_scale), bool(tie_random), rec)
