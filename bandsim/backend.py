"""The public kernel API of bandsim: exact samplers, protocols and bookkeeping.

Every function below is a Numba dispatcher (the kernel itself, not a
wrapper): it can be called from Python and from a user's own
``@numba.njit`` code, where it is inlined or called at native speed. Its
pure-Python source is ``f.py_func``; types for checkers are in
``backend.pyi``. ``rng`` is always a ``numpy.random.Generator`` (Numba
supports ``Generator`` arguments in jitted code); "int" means int64 inside
Numba, "float" float64. Arrays must be C-contiguous.

The names in ``__all__`` are the public surface. They follow semantic
versioning, and a change to one is deprecated for one minor release first
(docs/backend.md, "Stability"); tests/test_public_api.py compares their
signatures with tests/data/public_api.json.

Reward sums (reward model ``code`` with parameter row ``par`` float64 (P,))
---------------------------------------------------------------------------
batch_sum(rng, code, par, n) -> float
    Sum of n i.i.d. rewards of one arm, in reward units, in [0, n]: one
    Binomial(n, μ) for ``BERNOULLI`` (``par = [μ]``); user by user up to
    ``GAUSSIAN_EXACT_MAX_N`` then moment-matched for ``CLIPPED_GAUSSIAN``
    (``par = [μ, σ, E X, Var X]``); one multinomial for ``CATEGORICAL``.
    ValueError for an unknown code. DESIGN rules 1 and 3 of the simulator.
draw(rng, code, par) -> float
    One reward in [0, 1] (the per-pull path). ValueError for an unknown code.
encoded_sum(rng, code, par, n, g) -> int
    Σ x̂_i of n rewards encoded at precision g ≥ 1 by randomized rounding,
    in encoded units, in [0, n g]. Chowdhury & Zhou, "Distributed
    Differential Privacy in Multi-Armed Bandits" (ICLR 2023), Algorithm 2.
binary_batch_sum(rng, code, par, n) -> int
    Ones among n binary (or Bernoulli(x)-binarized) rewards: one
    Binomial(n, E X). Tenenbaum, Kaplan, Mansour & Stemmer, "Differentially
    Private Multi-Armed Bandits in the Shuffle Model" (NeurIPS 2021), Section 2.
reward_mean(code, par) -> float
    E X of an arm (reward units). ValueError for an unknown code.
BERNOULLI, CLIPPED_GAUSSIAN, CATEGORICAL : int
    Reward model codes; ``GAUSSIAN_EXACT_MAX_N`` (64) the exact-sum limit.

Noise samplers (all raise ValueError naming the parameter for NaN, inf or an
out-of-range parameter, never a wrong draw)
--------------------------------------------------------------------------
laplace_draw(rng, scale) -> float
    Continuous Lap(scale), scale > 0, in the units of the statistic it is
    added to (Lap(1/ε) on a sum of rewards in [0, 1] is ε-DP: Dwork, McSherry,
    Nissim & Smith (TCC 2006)). ``Generator.laplace``: the draw of the
    built-in DP-SE and SVT engines.
discrete_laplace(rng, q) -> int
    Lap_Z(b) with q = 1 − e^{−1/b} in [2^−46, 1] (pass ``-math.expm1(-1/b)``).
    Chowdhury & Zhou (ICLR 2023), Definition 4, Appendix G.2.
discrete_laplace_sum(rng, n, q) -> int
    Sum of n ≥ 0 i.i.d. Lap_Z(b): NB(n, q) − NB(n, q), O(1) in n.
polya(rng, r, beta) -> int
    Pólya(r, β), r in (0, inf), β in (0, 1). Chowdhury & Zhou, Section 4, Fact 1.
skellam(rng, mu) -> int
    Sk(0, 2 mu) = Poisson(mu) − Poisson(mu), mu in (0, 2^52]. Ibid., Definition 5.
discrete_gaussian(rng, sigma2) -> int
    N_Z(0, σ²), σ² in (0, 2^90]: Canonne, Kamath & Steinke, "The Discrete
    Gaussian for Differential Privacy" (NeurIPS 2020), Algorithm 3.
geometric_failures(rng, q) -> int
    Failures before the first success, q in [2^−46, 1].
POISSON_MAX, Q_MIN, SIGMA2_MAX : float
    The parameter limits above (2^52, 2^−46, 2^90).

SecAgg protocol P = (R, S, A) of Chowdhury & Zhou (ICLR 2023), Algorithms 2, 3
------------------------------------------------------------------------------
``mech`` is one of ``DIST_DP``, ``DIST_RDP``, ``DIST_CDP``, ``CENTRAL``, ``LOCAL``,
``DIST_DP_SHUFFLE``; ``ipar`` int64 (3,) = [g, τ, m] (precision, accuracy,
modulus m = n g + 2τ + 1); ``fpar`` float64 (F,) the noise parameters of the
code (kernels/secagg.py docstring: DIST_DP/CENTRAL/LOCAL [q, β], DIST_RDP
[g²/(2ε²)], DIST_CDP [g²/ε²], DIST_DP_SHUFFLE [q, β, q̂]). Outputs are the
analyzer's estimate of the batch's reward sum, float, reward units. Every
function raises ValueError for an unknown ``mech`` or invalid noise parameters.

secagg_batched_estimate(rng, mech, rcode, rpar, n, fpar, ipar, rec, run, t0, arm) -> float
    Batched path: one encoded sum, the total noise from its closed form, one
    reduction mod m (eq. (3)). ``rec=None`` outside a whole-run audit.
secagg_per_user_estimate(rng, mech, rcode, rpar, n, fpar, ipar) -> float
    The same law, every user encoding and noising her own reward (the twin).
user_noise(rng, mech, n, fpar) -> int; total_noise(rng, mech, n, fpar) -> int
    One user's η_i, and Σ η_i of a batch of n (encoded units).
analyze(y, n, g, tau, m) -> float
    The analyzer A: ŷ in Z_m decoded into reward units (Algorithm 3).
batch_estimate(rng, mech, rcode, rpar, n, fpar, ipar, rec, run, t0, arm) -> float
    Every built-in mechanism code behind one call (``NONE``, ``LAPLACE`` with
    ``fpar = [scale]``, the SecAgg codes, ``SHUFFLE_BINARY`` with
    ``fpar = [τ]``): what the elimination engine calls per batch. ValueError
    for any other code.

Shuffle binary summation (Tenenbaum et al., NeurIPS 2021, Appendix A, Algorithm 3)
----------------------------------------------------------------------------------
τ = 96 log(2/δ)/ε² (float). Outputs estimate Σ x_i (ones, float).

shuffle_batched_sum(rng, x_sum, m, tau) -> float
    From the true count of ones of m ≥ 1 users (one Binomial draw).
shuffle_per_user_sum(rng, x, tau) -> float
    From the users' bits x int64 (m,), every user's message drawn.
shuffle_batch_estimate(rng, rcode, rpar, n, tau, rec, run, t0, arm) -> float
    A batch of n users of one arm, rewards drawn (binarized).

Tree-based (binary) mechanism (Chan, Shi & Song, ACM TISSEC 2011; Dwork, Naor,
Pitassi & Rothblum, STOC 2010; Sajed (MSc thesis 2019), Algorithm 5)
-------------------------------------------------------------------------------
tree_insert(alpha, cum, n, x, scale, rng) -> float
    Insert the n-th value (n ≥ 1) x of a stream; return the noisy prefix sum
    O_n (units of x). ``alpha``, ``cum`` float64 (L,), L ≥ ⌊log₂ n⌋ + 1
    (``MAX_LEVELS`` = 64 suffices for any n), zeros at the start, updated in
    place; ``scale`` the Laplace scale of every node ((⌈log₂ T⌉ + 1)/ε).
tree_release(alpha, cum, n, x, scale, rng, rec, run, t, arm, tag) -> float
    The same, with the node released through :func:`release` (recordable);
    ``tag`` the release's tag, ``TREE_LEVEL`` (−1) for the node's level.

Sparse vector technique (Dwork & Roth, "The Algorithmic Foundations of
Differential Privacy" (2014), Section 3.6; Sajed (2019), Algorithm 4, and
Algorithm 10 (DP-SE 2))
--------------------------------------------------------------------
An SVT is a noisy threshold ``release(rec, …, LAW_SVT_THRESHOLD, …,
laplace_draw(rng, b))`` and, per query, a fresh ``laplace_draw`` compared with
it (``LAW_SVT_QUERY``: the engine releases the margin q − (threshold + query
noise), "above" when it is > 0); the built-in engine that does so is exported:

svt_run_shard(rng, shard, query_threshold, elim_width, svt_scale, hist_scale, rec) -> None
    DP-SE 2 over a :class:`Shard` (outputs written into it); ValueError if an
    epoch needs more levels than the tables hold.
Shard, make_shard(gaps, rcode, rpar, horizon, checkpoints, out_regret, out_pulls, out_elim)
    The runs an engine simulates: gaps float64 (R, K), rpar float64 (R, K, P),
    checkpoints int64 (C,), outputs regret float64 (R, C), pulls, elim int64 (R, K).

Regret bookkeeping (pseudo-regret Σ_a Δ_a N_a(t), exact at checkpoints)
-----------------------------------------------------------------------
``order`` is ``ROUND_ROBIN`` (Sajed (2019), Algorithm 9) or ``BLOCKS``
(Chowdhury & Zhou, Algorithm 1); ``active`` int64 (K,) (first k used), gaps
float64 (K,), ``out`` float64 (C,), ``checkpoints`` int64 (C,) increasing.
An unknown order raises ValueError.

stage_pulls(order, j, k, n, u) -> int
    Pulls of the j-th active arm after u pulls of a stage of n per arm.
stage_regret(order, active, k, n, gaps, u) -> float
    Pseudo-regret of the first u pulls of a stage.
advance(out, checkpoints, ci, t, u, regret, order, active, k, n, gaps, pulls) -> (int, float)
    Account u pulls of a stage starting at t: checkpoints written, pulls int64
    (K,) updated; returns (next checkpoint index, regret).
commit(out, checkpoints, ci, t, horizon, regret, arm, gaps, pulls) -> int
    Pull ``arm`` from t to the horizon.
fill_checkpoints(...) -> int, fill_linear(...) -> int, start_run(active, pulls, elim_row) -> None
    The pieces of the two above, and a run's reset.
eliminate(est, active, k, width, t, elim_row) -> int
    Remove every active arm with max est − est[a] > width (Sajed (2019),
    Algorithm 9 line 20); compacts ``active`` in place, returns the new k.

Release primitive and recorder (Cebere, Erb, Desfontaines, Bellet &
Fitzsimons, "Privacy in Theory, Bugs in Practice" (PETS 2026))
----------------------------------------------------------------
release(rec, run, t, arm, n, law, tag, true, scale, value) -> float
    The value a mechanism publishes: ``value`` itself when ``rec`` is None
    (compiled away), logged in a :class:`Recorder` otherwise and frozen in a
    replay. Route every noisy statistic through it so that a whole-run audit
    can record and replay the loop. ``law`` is a ``LAW_*`` code.
Recorder, recorder(mode, capacity, block=-1, y=0.0, seed=0, frozen=None, blocks=None,
         mirror=False, shift=None, gain=None)
    The log (NamedTuple of arrays) and its Python-side constructor; ``mode``
    is ``RECORD`` or ``REPLAY``.
LAW_EXACT, LAW_LAPLACE, LAW_SVT_THRESHOLD, LAW_SVT_QUERY, LAW_BATCH, RECORD, REPLAY : int
    Law and mode codes.

Vectorized environment (what :meth:`bandsim.env.VecEnv.pull` runs)
-------------------------------------------------------------------
env_step(rng, rcode, rpar, gaps, arms, n, mech, fpar, ipar, hooks, rec, t, pulls, regret, out, checkpoints, ci, curve) -> None
    Pull ``arms[r]`` int64 (R,) for ``n`` users in every run r and release each
    batch sum into ``out`` float64 (R,) through :func:`batch_estimate`; pulls
    int64 (R, K), t, regret float64 (R,) updated in place (docs/env.md).

Mechanism codes: ``NONE``, ``LAPLACE``, ``DIST_DP``, ``DIST_RDP``, ``DIST_CDP``,
``CENTRAL``, ``LOCAL``, ``DIST_DP_SHUFFLE``, ``SHUFFLE_BINARY`` (int).

Examples
--------
>>> import numpy as np, numba
>>> from bandsim import backend as B
>>> @numba.njit
... def noisy_sum(rng, mu, n, eps):
...     s = B.batch_sum(rng, B.BERNOULLI, np.array([mu]), n)
...     return B.release(None, 0, n, 0, n, B.LAW_LAPLACE, 0, s, 1 / eps,
...                      s + B.laplace_draw(rng, 1 / eps))
>>> x = noisy_sum(np.random.default_rng(1), 0.5, 1000, 1.0)

docs/backend.md has a whole DP-SE simulation written this way.
"""
from .kernels.binary_summation import batch_estimate as shuffle_batch_estimate
from .kernels.binary_summation import batched_sum as shuffle_batched_sum
from .kernels.binary_summation import per_user_sum as shuffle_per_user_sum
from .kernels.codes import (BERNOULLI, BLOCKS, CATEGORICAL, CENTRAL, CLIPPED_GAUSSIAN,
                            DIST_CDP, DIST_DP, DIST_DP_SHUFFLE, DIST_RDP, LAPLACE, LAW_BATCH,
                            LAW_EXACT, LAW_LAPLACE, LAW_SVT_QUERY, LAW_SVT_THRESHOLD, LOCAL,
                            NONE, RECORD, REPLAY, ROUND_ROBIN, SHUFFLE_BINARY)
from .kernels.elimination import eliminate
from .kernels.protocols import batch_estimate
from .kernels.record import Recorder, recorder, release
from .kernels.regret import (advance, commit, fill_checkpoints, fill_linear, stage_pulls,
                             stage_regret, start_run)
from .kernels.rewards import (GAUSSIAN_EXACT_MAX_N, batch_sum, binary_batch_sum, draw,
                              encoded_sum, reward_mean)
from .kernels.samplers import (POISSON_MAX, Q_MIN, SIGMA2_MAX, discrete_gaussian,
                               discrete_laplace, discrete_laplace_sum, geometric_failures,
                               laplace_draw, polya, skellam)
from .kernels.secagg import analyze
from .kernels.secagg import batched_estimate as secagg_batched_estimate
from .kernels.secagg import per_user_estimate as secagg_per_user_estimate
from .kernels.secagg import total_noise, user_noise
from .kernels.sequential import LEVEL as TREE_LEVEL
from .kernels.sequential import MAX_LEVELS, tree_insert, tree_release
from .kernels.shard import Shard, make_shard
from .kernels.svt import run_shard as svt_run_shard
from .kernels.vecenv import step as env_step

#: The public functions (Numba dispatchers, ``recorder`` and ``make_shard`` plain Python).
FUNCTIONS = (
    "batch_sum", "draw", "encoded_sum", "binary_batch_sum", "reward_mean",
    "laplace_draw", "discrete_laplace", "discrete_laplace_sum", "polya", "skellam",
    "discrete_gaussian", "geometric_failures",
    "secagg_batched_estimate", "secagg_per_user_estimate", "user_noise", "total_noise",
    "analyze", "batch_estimate",
    "shuffle_batched_sum", "shuffle_per_user_sum", "shuffle_batch_estimate",
    "tree_insert", "tree_release",
    "svt_run_shard", "make_shard",
    "stage_pulls", "stage_regret", "advance", "commit", "fill_checkpoints", "fill_linear",
    "start_run", "eliminate",
    "release", "recorder", "env_step",
)
#: The public classes (NamedTuples that cross into the kernels).
CLASSES = ("Recorder", "Shard")
#: The public constants (int codes and float limits).
CONSTANTS = (
    "BERNOULLI", "CLIPPED_GAUSSIAN", "CATEGORICAL", "GAUSSIAN_EXACT_MAX_N",
    "POISSON_MAX", "Q_MIN", "SIGMA2_MAX", "MAX_LEVELS", "TREE_LEVEL",
    "NONE", "LAPLACE", "DIST_DP", "DIST_RDP", "DIST_CDP", "CENTRAL", "LOCAL",
    "DIST_DP_SHUFFLE", "SHUFFLE_BINARY", "ROUND_ROBIN", "BLOCKS",
    "LAW_EXACT", "LAW_LAPLACE", "LAW_SVT_THRESHOLD", "LAW_SVT_QUERY", "LAW_BATCH",
    "RECORD", "REPLAY",
)

__all__ = [*FUNCTIONS, *CLASSES, *CONSTANTS]
