"""Event-driven engine of Lazy-DP-TS (Hu & Hegde, UAI 2022, Algorithm 2), exact in law.

Lazy-DP-TS pulls its leader in almost every round. The per-round engine
(:func:`kernels.thompson.run_lazy_dp_ts_shard`, kept as the reference) draws K
Beta samples per round; this engine draws only the rounds in which the leader
might lose, and is equal to it in law (same pulls, same chunk releases).

Derivation
----------
Round t draws θ_j(t) ~ G_{j,t} = Beta(m̄_j(t) O_j + 1, (1 − m̄_j(t)) O_j + 1)
independently for every arm and round, m̄_j(t) = clip(m̃_j + c LOG(t)/O_j),
and pulls argmax_j θ_j(t). Equivalently θ_j(t) = G⁻¹_{j,t}(U_j(t)) with
U(t) ∈ [0, 1]^K i.i.d. uniform over rounds (quantile coupling).

*Window.* Between two chunk closes an arm's (m̃_j, O_j) is fixed and only
LOG(t) grows, so m̄_j(t) is non-decreasing in t; with O_j fixed, a larger m̄
raises the first Beta parameter and lowers the second, which increases the
Beta law in likelihood ratio, hence stochastically: G_{j,t}(q) is
non-increasing in t for every q. A window [t0, t1] is chosen at round t0 − 1
from the state: t1 ≤ T, t1 ≤ 2 t0, and t1 ≤ t0 + (rewards the leader's chunk
still needs) − 1, so no chunk closes before the pull of round t1 unless a
non-leader is pulled (which only happens at the rounds drawn below).

*Decision rule.* The rule compares the arms' samples with each other, not
with a fixed level. For the leader L and any level q ∈ (0, 1) fixed at round
t0 − 1, θ_L(t) > q > θ_a(t) for all a ≠ L is a *sufficient* event for L to
be pulled. Let x = G_{L,t0}(q) and y_a = G_{a,t1}(q). For t0 ≤ t ≤ t1,
U_L(t) ≥ x implies U_L(t) ≥ G_{L,t}(q), i.e. θ_L(t) ≥ q, and U_a(t) ≤ y_a
implies U_a(t) ≤ G_{a,t}(q), i.e. θ_a(t) ≤ q. Hence, with the *fixed* box
B = [x, 1] × Π_{a≠L} [0, y_a] and C = [0, 1]^K \\ B (the issue's event
{U_L < G_{L,t0}(q)} ∪ ⋃_{a≠L} {U_a > G_{a,t1}(q)}), every round of the
window with U(t) ∉ C pulls L. The rounds with U(t) ∈ C are i.i.d. Bernoulli
(p), p = 1 − (1 − x) Π_{a≠L} y_a, so the next one is one geometric draw;
the rounds before it are leader pulls. Any q works (it only sets p): q is
chosen to minimise p by golden-section search on [max_{a≠L} E θ_a(t1),
E θ_L(t0)] — log(1 − p) = log(1 − G_L(q)) + Σ log G_a(q) is concave in q
since Beta laws with both parameters ≥ 1 are log-concave. When no q
separates the arms (p above :data:`P_PLAIN`, or above 95 % at both first
levels of the search) the engine runs plain rounds (the reference's draws)
for a stretch and tries again.

*The round drawn.* At a C-round t the vector U(t) is drawn conditionally on
C, the θ's are evaluated exactly at t (θ_j(t) = G⁻¹_{j,t}(U_j)) and the
argmax is pulled. C is the complement of a product box, so U | C is drawn
by its *first violating coordinate* in a fixed order (the non-leaders by
index, then L): with e_k the probability that coordinate k leaves its side
of the box (e_a = 1 − y_a, e_L = x) and R_k = 1 − Π_{j ≥ k} (1 − e_j),
coordinate k is the first violator with probability e_k / R_k given that
none before it was (exact sequential sampling of the law of the first
violator; R_K = e_K forces the last). Coordinates before it are uniform on
their box side, the violator uniform on the other side, coordinates after it
uniform on [0, 1]. A coordinate uniform on [0, 1] needs no coupling: its θ is
an ordinary Beta draw (:func:`kernels.thompson.beta_pseudo`). A non-leader
inside its box has θ ≤ q and is evaluated only when no evaluated θ exceeds q.

*Restart.* The U's of later rounds are independent of the past, and q, x,
y_a and t1 remain valid after a C-round unless a chunk closed (x bounds
G_{L,t}(q) for every t ≥ t0). So the window goes on after a C-round, and a
new one is opened when a chunk closes, at t1, or at T. Every quantity chosen
(L, q, t1, stretches of plain rounds) depends on the past only, which keeps
the construction exact in law.

Special functions
-----------------
I_x(a, b), 1 − I_x(a, b) and their inverses are SciPy's compiled Boost
routines (``scipy.special.cython_special``'s double-precision
``betainc``/``betaincc``/``betaincinv``/``betainccinv``), bound by symbol name
so that the kernels stay cacheable: the values are those of
``scipy.special.betainc`` etc. (bit for bit, checked in the tests). The
exactness above holds up to their floating-point accuracy (relative errors of
order 1e-15 in the probabilities of the events used).

Rewards and releases are those of the reference engine: a chunk's sum is one
:func:`kernels.record.rsum` of its 2^(r+1) rewards when it closes at round t,
and one :func:`kernels.record.release` (t, arm, n, ``LAW_LAPLACE``, tag r).

References
----------
Hu & Hegde, "Near-optimal Thompson sampling-based algorithms for
differentially private stochastic bandits", UAI 2022 (PMLR 180), Algorithm 2,
Section 3.2; Shaked & Shanthikumar, "Stochastic Orders" (2007), Theorem
1.C.1 (likelihood ratio order implies the usual stochastic order); DiDonato &
Morris, ACM TOMS 18 (1992) (the incomplete beta function, as in Boost).
"""
import math

import llvmlite.binding as _llvm
import numpy as np
from numba import types
from numba.extending import get_cython_function_address

from ._jit import jit, jit_inline
from .indices import clip01
from .regret import start_run
from .thompson import _regret, beta_pseudo, close_chunk, first_pulls

_SIG = types.float64(types.float64, types.float64, types.float64, types.intc)
_SPECIAL = ("betainc", "betaincc", "betaincinv", "betainccinv")
_BETAINC, _BETAINCC, _BETAINCINV, _BETAINCCINV = (
    types.ExternalFunction("bandsim_scipy_" + name, _SIG) for name in _SPECIAL)
_bound = []


def bind_special_functions():
    """Bind SciPy's compiled ``betainc``/``betaincc``/``betaincinv``/``betainccinv``.

    The kernels call them by symbol name (so that they stay cacheable); the
    symbols must be bound before a kernel of this module is compiled or loaded
    from the cache. Idempotent; deferred to the first use so that importing
    the package does not load ``scipy.special``.
    """
    if not _bound:
        for name in _SPECIAL:
            _llvm.add_symbol("bandsim_scipy_" + name, get_cython_function_address(
                "scipy.special.cython_special", "__pyx_fuse_0" + name))
        _bound.append(True)

#: Above this probability of a drawn round a window is not worth opening: plain rounds.
P_PLAIN = 0.2
#: Plain rounds after a failed window: first stretch, and the cap of its doubling.
PLAIN_FIRST = 128
PLAIN_MAX = 1024
#: Golden-section steps of the search for the level q.
Q_STEPS = 10
#: A window is given up before the search when both first golden-section levels keep the
#: leader's rounds with probability below e^LOG_HOPELESS = 5 %.
LOG_HOPELESS = math.log(0.05)
#: A window ends at the latest at round WINDOW_GROWTH · t0.
WINDOW_GROWTH = 2


@jit_inline
def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b) (float64; SciPy/Boost ``betainc``).

    Parameters
    ----------
    a, b : float64
        Parameters, > 0.
    x : float64
        Point in [0, 1].

    Returns
    -------
    float64
        P(X ≤ x) for X ~ Beta(a, b).
    """
    return _BETAINC(a, b, x, 0)


@jit_inline
def betaincc(a, b, x):
    """Complement 1 − I_x(a, b), accurate in the upper tail (SciPy/Boost ``betaincc``).

    Parameters
    ----------
    a, b : float64
        Parameters, > 0.
    x : float64
        Point in [0, 1].

    Returns
    -------
    float64
        P(X > x) for X ~ Beta(a, b).
    """
    return _BETAINCC(a, b, x, 0)


@jit_inline
def betaincinv(a, b, y):
    """Inverse of I_x(a, b) in x (SciPy/Boost ``betaincinv``).

    Parameters
    ----------
    a, b : float64
        Parameters, > 0.
    y : float64
        Probability in [0, 1].

    Returns
    -------
    float64
        x with I_x(a, b) = y.
    """
    return _BETAINCINV(a, b, y, 0)


@jit_inline
def betainccinv(a, b, y):
    """Inverse of 1 − I_x(a, b) in x (SciPy/Boost ``betainccinv``).

    Parameters
    ----------
    a, b : float64
        Parameters, > 0.
    y : float64
        Upper-tail probability in [0, 1].

    Returns
    -------
    float64
        x with 1 − I_x(a, b) = y.
    """
    return _BETAINCCINV(a, b, y, 0)


@jit_inline
def _shape(mt, O, lt):
    """(a, b) of Beta(m̄ O + 1, (1 − m̄) O + 1), m̄ = clip(m̃ + lt / O)."""
    m = clip01(mt + lt / O)
    return m * O + 1.0, (1.0 - m) * O + 1.0


@jit_inline
def _log_keep(mt, O, L, lt0, lt1, q):
    """log(1 − p) of the window at level q: log P(θ_L(t0) > q) + Σ_a log P(θ_a(t1) ≤ q)."""
    a, b = _shape(mt[L], O[L], lt0)
    s = math.log1p(-betainc(a, b, q))
    for j in range(O.shape[0]):
        if j != L:
            a, b = _shape(mt[j], O[j], lt1)
            s += math.log1p(-betaincc(a, b, q))
    return s


@jit
def _open_window(mt, O, L, lt0, lt1, e, R, order):
    """Choose q and fill e (violation probabilities), R (first-violator tails), order.

    Returns (p, q); p = 1 when no level separates L from the others.
    """
    K = O.shape[0]
    a, b = _shape(mt[L], O[L], lt0)
    hi = a / (a + b)
    lo = 0.0
    for j in range(K):
        if j != L:
            aj, bj = _shape(mt[j], O[j], lt1)
            lo = max(lo, aj / (aj + bj))
    if not lo < hi:
        return 1.0, 0.0
    g = 0.5 * (math.sqrt(5.0) - 1.0)
    u = hi - g * (hi - lo)
    v = lo + g * (hi - lo)
    fu = _log_keep(mt, O, L, lt0, lt1, u)
    fv = _log_keep(mt, O, L, lt0, lt1, v)
    if max(fu, fv) < LOG_HOPELESS:
        return 1.0, 0.0
    for _ in range(Q_STEPS):
        if fu >= fv:
            hi, v, fv = v, u, fu
            u = hi - g * (hi - lo)
            fu = _log_keep(mt, O, L, lt0, lt1, u)
        else:
            lo, u, fu = u, v, fv
            v = lo + g * (hi - lo)
            fv = _log_keep(mt, O, L, lt0, lt1, v)
    q = u if fu >= fv else v
    n = 0
    for j in range(K):
        if j != L:
            aj, bj = _shape(mt[j], O[j], lt1)
            e[j] = betaincc(aj, bj, q)
            order[n] = j
            n += 1
    order[K - 1] = L
    e[L] = betainc(a, b, q)
    tail = 0.0
    for i in range(K - 1, -1, -1):
        k = order[i]
        tail = e[k] + (1.0 - e[k]) * tail
        R[k] = tail
    return R[order[0]], q


@jit_inline
def _plain_round(rng, mt, O, lt):
    """The reference's round: argmax of K Beta draws (lowest index on ties)."""
    J = 0
    best = -1.0
    for j in range(O.shape[0]):
        th = beta_pseudo(rng, clip01(mt[j] + lt / O[j]), O[j])
        if th > best:
            best = th
            J = j
    return J


@jit
def _drawn_round(rng, mt, O, lt, L, q, e, R, order, th, known):
    """The arm pulled at a round whose U lies in C (U drawn given C, θ's exact at lt)."""
    K = O.shape[0]
    first = False
    best = -1.0
    for i in range(K):
        k = order[i]
        a, b = _shape(mt[k], O[k], lt)
        known[k] = True
        if first:  # after the first violator: U_k uniform, θ_k an ordinary draw
            th[k] = beta_pseudo(rng, clip01(mt[k] + lt / O[k]), O[k])
        elif rng.random() * R[k] < e[k]:  # the first violator
            first = True
            w = e[k] * rng.random()
            th[k] = betaincinv(a, b, w) if k == L else betainccinv(a, b, w)
        else:  # inside its side of the box (k ≠ L): θ_k ≤ q, evaluated only if needed
            known[k] = False
        if known[k]:
            best = max(best, th[k])
    if not best > q:
        for k in range(K):
            if not known[k]:
                a, b = _shape(mt[k], O[k], lt)
                th[k] = betaincinv(a, b, (1.0 - e[k]) * rng.random())
                known[k] = True
    J = -1
    best = -1.0
    for k in range(K):
        if known[k] and th[k] > best:
            best = th[k]
            J = k
    return J


@jit_inline
def _leader_pulls(L, n, t, g, pulls, fresh, checkpoints, ci, row):
    """Rounds t + 1 … t + n all pull L; write the checkpoints among them; returns ci."""
    end = t + n
    while ci < checkpoints.shape[0] and checkpoints[ci] <= end:
        pulls[L] += checkpoints[ci] - t
        t = checkpoints[ci]
        row[ci] = _regret(g, pulls)
        ci += 1
    pulls[L] += end - t
    fresh[L] += n
    return ci


@jit_inline
def _leader(mt, O, lt):
    """The arm of largest posterior mean (a / (a + b)); lowest index on ties."""
    L = 0
    best = -1.0
    for j in range(O.shape[0]):
        a, b = _shape(mt[j], O[j], lt)
        if a / (a + b) > best:
            best = a / (a + b)
            L = j
    return L


@jit
def run_lazy_dp_ts_events_shard(rng, shard, c_shift, noise_scale, log_factor, rec):
    """Simulate a shard of runs of Lazy-DP-TS, event-driven (Hu & Hegde 2022, Algorithm 2).

    Equal in law to :func:`kernels.thompson.run_lazy_dp_ts_shard` (module
    docstring: the construction and why it is exact); same arguments, same
    outputs, same reward blocks and releases.

    Parameters
    ----------
    rng : numpy.random.Generator
        Per window: one geometric draw per drawn round; per drawn round: the
        first violator, its uniform, and Beta draws of the other arms; per
        plain round: K Beta draws; per closed chunk: its batch sum and one
        Laplace.
    shard : kernels.shard.Shard
        The runs (gaps, reward model, horizon, checkpoints, output rows).
    c_shift : float64
        c of the optimistic shift υ = c LOG(t) / O (3/ε in the paper).
    noise_scale : float64
        Laplace scale on each chunk's reward sum (1/ε: sensitivity 1).
    log_factor : float64
        LOG(x) = log_factor · ln x (1 = natural log, 1/ln 2 = log₂).
    rec : kernels.record.Recorder or None
        As in :func:`kernels.thompson.run_lazy_dp_ts_shard`: the initial pull
        of an arm is one block and one release (tag −1); a chunk of
        n = 2^(r+1) rewards closing at round t is one block (t0 = t − 1) and
        one release (t, arm, n, ``LAW_LAPLACE`` of ``noise_scale``, tag r).

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
    chunk = np.zeros(K, np.int64)
    active = np.empty(K, np.int64)
    e = np.zeros(K)
    R = np.zeros(K)
    th = np.zeros(K)
    known = np.zeros(K, np.bool_)
    order = np.zeros(K, np.int64)
    c = c_shift * log_factor
    for run in range(n_runs):
        g = gaps[run]
        row = out_regret[run]
        pulls = out_pulls[run]
        start_run(active, pulls, out_elim[run])
        t, ci = first_pulls(rng, rec, run, K, horizon, rcode, rpar[run], noise_scale, mt, O,
                            fresh, need, chunk, pulls, g, checkpoints, row)
        plain_end = t
        stretch = PLAIN_FIRST
        while t < horizon:
            if t < plain_end:  # a plain round, as in the reference engine
                t += 1
                J = _plain_round(rng, mt, O, c * math.log(t))
                pulls[J] += 1
                fresh[J] += 1
                if fresh[J] == need[J]:
                    close_chunk(rng, rec, run, t, J, rcode, rpar[run, J], noise_scale, mt, O, fresh,
                           need, chunk)
                while ci < nc and checkpoints[ci] == t:
                    row[ci] = _regret(g, pulls)
                    ci += 1
                continue
            t0 = t + 1
            lt0 = c * math.log(t0)
            L = _leader(mt, O, lt0)
            t1 = min(horizon, t0 + need[L] - fresh[L] - 1, WINDOW_GROWTH * t0)
            p, q = _open_window(mt, O, L, lt0, c * math.log(t1), e, R, order)
            if p > P_PLAIN:
                plain_end = min(horizon, t + stretch)
                stretch = min(2 * stretch, PLAIN_MAX)
                continue
            stretch = PLAIN_FIRST
            lq = math.log1p(-p)
            while True:
                u = 1.0 - rng.random()  # (0, 1]
                skip = math.log(u) / lq if p > 0.0 else math.inf  # rounds before the drawn one
                if skip >= t1 - t:  # no drawn round left in the window
                    ci = _leader_pulls(L, t1 - t, t, g, pulls, fresh, checkpoints, ci, row)
                    t = t1
                    if fresh[L] == need[L]:
                        close_chunk(rng, rec, run, t, L, rcode, rpar[run, L], noise_scale, mt, O,
                               fresh, need, chunk)
                    break
                n = np.int64(skip)
                ci = _leader_pulls(L, n, t, g, pulls, fresh, checkpoints, ci, row)
                t += n + 1
                J = _drawn_round(rng, mt, O, c * math.log(t), L, q, e, R, order, th, known)
                pulls[J] += 1
                fresh[J] += 1
                closed = fresh[J] == need[J]
                if closed:
                    close_chunk(rng, rec, run, t, J, rcode, rpar[run, J], noise_scale, mt, O, fresh,
                           need, chunk)
                while ci < nc and checkpoints[ci] == t:
                    row[ci] = _regret(g, pulls)
                    ci += 1
                if closed or t >= t1:
                    break
