"""Fixed-confidence best-arm identification by top-two sampling, release-batched (one kernel).

Every arm's rewards are cut into **episodes**; the rewards of an episode
enter the algorithm only through one release of their sum, drawn when the
episode closes as one draw (:func:`kernels.protocols.batch_estimate`: one
Binomial for Bernoulli rewards, plus the mechanism's noise through the
release primitive :func:`kernels.record.release`, so the whole-run audit
records it). Between two releases the released means μ̃, the episode sizes
Ñ and hence the leader are constant, so the pull sequence is a
deterministic function of the counts: it is stepped pull by pull **without
drawing** (β-tracking between the leader and the challenger, the challenger
recomputed from the current counts at each of its pulls), and the stopping
rule is evaluated only right after a release.

Episode rules (``tables.every``):

``every = 0`` (AdaP-TT, doubling with forgetting)
    Arm a's episode closes when N_a ≥ 2 N0_a (N0_a: its pulls when the
    episode opened); its size Ñ_a = N_a − N0_a is a power of two, its
    released mean μ̃_a = (S + noise)/Ñ_a replaces the previous one.
``every = 1`` (the non-private top-two reference)
    Every pull is a release of one reward; μ̃_a is the running mean of all
    of arm a's rewards and Ñ_a = N_a.

Rules (``tables.kinds`` = leader, challenger, stop; built-in codes are
inlined, ``HOOK`` calls the plug-in's first-class function):

leader, once after every release
    :func:`ucb_leader`: argmax μ̃_a + sqrt(g/Ñ_a) + g·c[0]/Ñ_a with
    g = ln Σ_a N0_a (pulls in closed episodes), c[0] = 1/ε (0: non-private).
challenger, at each pull the β-tracking gives it
    :func:`tc_challenger`: argmin_{a≠B} of the signed transportation cost
    Δ·min(c[0], |Δ|)/(1/N_B + 1/N_a), Δ = μ̃_B − μ̃_a, on the current
    counts (c[0] = ∞: the signed ratio Δ/sqrt(1/N_B + 1/N_a), squared with
    its sign — the same argmin). The weights Δ·min(c[0], |Δ|) are computed
    once per release, the argmin at each challenger pull without division.
stop, once after every release
    :func:`glr_stop` (episode sizes powers of two, thresholds tabulated per
    pair of exponents) or :func:`gauss_stop` (any counts, the non-private
    threshold); recommend â = argmax μ̃ when every b ≠ â passes.

A run that reaches the budget T_max without stopping is censored (τ
reported as T_max, recommendation −1).

References
----------
Azize, Jourdan, Al Marjani & Basu, "On the Complexity of Differentially
Private Best-Arm Identification with Fixed Confidence" (NeurIPS 2023),
Algorithm 1 (AdaP-TT); Azize, PhD thesis (Univ. Lille, 2024), §5.4,
Algorithm 10, Eqs. (5.9)–(5.14), Remark 5.24 (the pull sequence between
episode ends is computable without the observations); Jourdan & Degenne,
"Non-Asymptotic Analysis of a UCB-based Top Two Algorithm" (NeurIPS 2023),
TTUCB (the non-private reference).
"""
from typing import NamedTuple

import numpy as np

from ._jit import jit, jit_inline
from .protocols import batch_estimate

#: Rule kinds (``TopTwoTables.kinds[i]``): a built-in rule, or the plug-in's hook.
UCB, HOOK = 0, 9
TC = 0
GLR_TABLE, GAUSS = 0, 1
#: Slots of ``TopTwoTables.kinds``.
K_LEADER, K_CHALLENGER, K_STOP = 0, 1, 2


class TopTwoTables(NamedTuple):
    """Everything the top-two engine reads besides the instance.

    Attributes
    ----------
    mech : int64
        Mechanism code of an episode's release (``LAPLACE``, ``NONE``).
    fpar : float64 (F,)
        Its parameters (``LAPLACE``: [scale on the episode sum, 1/ε]).
    ipar : int64 (I,)
    every : int64
        0: doubling episodes with forgetting (AdaP-TT); 1: every pull is a
        release, cumulative means (non-private top two).
    beta : float64
        β of the β-tracking, in (0, 1).
    kinds : int64 (3,)
        Leader, challenger and stop rule codes (module docstring).
    cl, cc, cs : float64 (P,)
        Constants of the leader, the challenger and the stopping rule.
    """

    mech: np.int64
    fpar: np.ndarray
    ipar: np.ndarray
    every: np.int64
    beta: np.float64
    kinds: np.ndarray
    cl: np.ndarray
    cc: np.ndarray
    cs: np.ndarray


@jit
def ucb_leader(mt, nt, cnt, t, c):
    """UCB leader: argmax_a μ̃_a + sqrt(g/Ñ_a) + g·c[0]/Ñ_a, g = ln t (int64, lowest index on ties).

    Parameters
    ----------
    mt : float64 (K,)
        Released means μ̃.
    nt : int64 (K,)
        Rewards each released mean covers (Ñ).
    cnt : int64 (K,)
        Pulls so far per arm (N; unused here).
    t : int64
        Pulls in closed episodes, Σ_a N0_a (the engine's argument).
    c : float64 (1,)
        c[0] = 1/ε (0 for the non-private rule).

    References
    ----------
    Thesis Algorithm 10 line 16 with the bonus index g = ln(Σ_a N0_a) of
    the authors' released code (the printed k_a can starve an arm).
    """
    g = np.log(max(t, 1))
    best, arg = -np.inf, 0
    for a in range(mt.shape[0]):
        u = mt[a] + np.sqrt(g / nt[a]) + g * c[0] / nt[a]
        if u > best:
            best, arg = u, a
    return np.int64(arg)


@jit_inline
def tc_weights(b, mt, c, w):
    """Fill ``w`` with Δ_a·min(c[0], |Δ_a|), Δ_a = μ̃_b − μ̃_a (w[b] unused), in place."""
    for a in range(mt.shape[0]):
        d = mt[b] - mt[a]
        w[a] = d * min(c[0], abs(d))


@jit_inline
def tc_argmin(b, w, cnt):
    """argmin_{a≠b} w_a·N_a/(N_b + N_a) by cross-multiplication, no division (int64,
    lowest index on ties)."""
    nb = float(cnt[b])
    arg = np.int64(-1)
    wn, nn = 0.0, 0.0
    for a in range(w.shape[0]):
        if a == b:
            continue
        na = float(cnt[a])
        if arg < 0 or w[a] * na * (nb + nn) < wn * (nb + na):
            arg, wn, nn = np.int64(a), w[a] * na, na
    return arg


@jit
def tc_challenger(b, mt, cnt, c):
    """Transportation-cost challenger: argmin_{a≠b} Δ·min(c[0], |Δ|)/(1/N_b + 1/N_a) (int64).

    Parameters
    ----------
    b : int64
        The leader.
    mt : float64 (K,)
        Released means; Δ = μ̃_b − μ̃_a (signed).
    cnt : int64 (K,)
        Current pulls per arm.
    c : float64 (1,)
        c[0] the cap (∞: Δ|Δ|/(1/N_b + 1/N_a), the square of the signed ratio
        Δ/sqrt(1/N_b + 1/N_a) of the NeurIPS 2023 poster with its sign, same
        argmin; 3ε: AdaP-TT*'s cost, thesis Eq. 5.12). Lowest index on ties.
    """
    w = np.empty(mt.shape[0])
    tc_weights(b, mt, c, w)
    return tc_argmin(b, w, cnt)


@jit
def pow2_exponent(n):
    """j with 2^j = n for a positive power of two n (int64)."""
    j = 0
    while (np.int64(1) << (j + 1)) <= n:
        j += 1
    return np.int64(j)


@jit_inline
def empirical_best(mt):
    """argmax_a μ̃_a, lowest index on ties (int64): the recommendation and the stop's arm."""
    h = np.int64(0)
    for a in range(1, mt.shape[0]):
        if mt[a] > mt[h]:
            h = np.int64(a)
    return h


@jit
def glr_stop(mt, nt, c):
    """GLR stopping on tabulated thresholds (int64): â = argmax μ̃, or −1 to go on.

    Stop when for every b ≠ â, with Δ = μ̃_â − μ̃_b > 0,
    Δ·min(c[0], Δ) / (2σ²(1/Ñ_â + 1/Ñ_b)) ≥ T[j_â, j_b], σ = 1/2, where
    Ñ = 2^j and T is the table of Δ < c[0] (c[2:2+J²]) or of Δ ≥ c[0]
    (c[2+J²:2+2J²]), J = c[1].

    Parameters
    ----------
    mt : float64 (K,)
    nt : int64 (K,)
        Episode sizes, powers of two.
    c : float64 (2 + 2J²,)

    References
    ----------
    Thesis Eqs. (5.9), (5.11) (c[0] = ∞) and (5.12), (5.14) (c[0] = 3ε).
    """
    cap = c[0]
    J = np.int64(c[1])
    h = empirical_best(mt)
    jh = pow2_exponent(nt[h])
    for b in range(mt.shape[0]):
        if b == h:
            continue
        d = mt[h] - mt[b]
        if not d > 0.0:
            return np.int64(-1)
        jb = pow2_exponent(nt[b])
        w = d * min(cap, d) / (0.5 * (1.0 / nt[h] + 1.0 / nt[b]))
        off = 2 + jh * J + jb if d < cap else 2 + J * J + jh * J + jb
        if w < c[off]:
            return np.int64(-1)
    return np.int64(h)


@jit
def gauss_stop(mt, nt, c):
    """Non-private GLR stopping (int64): â = argmax μ̃ or −1.

    Stop when every b ≠ â has Δ²/(2σ²(1/N_â + 1/N_b)) ≥ c[0] + 2 ln(4 + ln N_â)
    + 2 ln(4 + ln N_b), σ = 1/2, c[0] = 2 C_G(ln((K − 1)/δ)/2) (thesis Eq. 5.10).

    Parameters
    ----------
    mt : float64 (K,)
    nt : int64 (K,)
        Pulls per arm.
    c : float64 (1,)
    """
    h = empirical_best(mt)
    lh = 2.0 * np.log(4.0 + np.log(nt[h]))
    for b in range(mt.shape[0]):
        if b == h:
            continue
        d = mt[h] - mt[b]
        if not d > 0.0:
            return np.int64(-1)
        if d * d / (0.5 * (1.0 / nt[h] + 1.0 / nt[b])) < c[0] + lh + 2.0 * np.log(
                4.0 + np.log(nt[b])):
            return np.int64(-1)
    return np.int64(h)


@jit
def _leader(kind, hook, mt, nt, cnt, t, c):
    if kind == UCB:
        return ucb_leader(mt, nt, cnt, t, c)
    if kind == HOOK:
        return hook(mt, nt, cnt, t, c)
    raise ValueError("toptwo engine: unknown leader code")


@jit
def _stop(kind, hook, mt, nt, c):
    if kind == GLR_TABLE:
        return glr_stop(mt, nt, c)
    if kind == GAUSS:
        return gauss_stop(mt, nt, c)
    if kind == HOOK:
        return hook(mt, nt, c)
    raise ValueError("toptwo engine: unknown stopping code")


@jit_inline
def tc_segment(b, w, cnt, lim, u, nf, lb, nlb, beta, t, budget):
    """Step the pulls of the built-in TC challenger up to the next episode end, no draw.

    The engine's inner loop for ``kinds[1] == TC`` with doubling episodes:
    the same decisions, in the same floating-point arithmetic, as β-tracking
    round by round with :func:`tc_argmin` at each challenger round, but the
    leader's rounds are a tight loop of their own and each arm's
    w_a·N_a and N_a (as float) are kept in ``u``, ``nf`` and updated only
    for the pulled arm (bit-identical to recomputing them).

    Parameters
    ----------
    b : int64
        The leader.
    w : float64 (K,)
        Challenger weights of :func:`tc_weights` (w[b] unused).
    cnt : int64 (K,)
        Pulls per arm, updated in place.
    lim : int64 (K,)
        Pulls at which each arm's episode closes (2·N0_a).
    u, nf : float64 (K,)
        w_a·N_a and N_a as float on entry, updated in place.
    lb, nlb : int64
        Rounds with b as leader and pulls of b in them (β-tracking).
    beta : float64
    t, budget : int64
        Pulls so far and T_max.

    Returns
    -------
    (int64, int64, int64, int64)
        The arm whose episode closed (−1: the budget is spent), lb, nlb, t.
    """
    K = cnt.shape[0]
    a0 = np.int64(1) if b == 0 else np.int64(0)
    limb = lim[b]
    while True:
        while t < budget and nlb <= beta * (lb + 1):  # leader rounds
            lb += 1
            nlb += 1
            cnt[b] += 1
            t += 1
            if cnt[b] >= limb:
                return b, lb, nlb, t
        if t >= budget:
            return np.int64(-1), lb, nlb, t
        lb += 1  # a challenger round: tc_argmin(b, w, cnt), running minimum, lowest index
        nb = float(cnt[b])
        arg = a0
        nn = nf[a0]
        wn = u[a0]
        for a in range(K):
            if a == b:
                continue
            na = nf[a]
            wa = u[a]
            if wa * (nb + nn) < wn * (nb + na):
                arg, wn, nn = a, wa, na
        cnt[arg] += 1
        nf[arg] = float(cnt[arg])
        u[arg] = w[arg] * nf[arg]
        t += 1
        if cnt[arg] >= lim[arg]:
            return arg, lb, nlb, t


@jit
def run_shard(rng, rcode, rpar, budget, tables, leader, challenger, stop, out_tau, out_rec,
              out_stopped, rec):
    """Simulate a shard of independent top-two identification runs (module docstring).

    Parameters
    ----------
    rng : numpy.random.Generator
        The shard's generator; runs use it one after the other.
    rcode : int64
        Reward model code (:mod:`kernels.codes`).
    rpar : float64 (R, K, P)
        Reward parameters of each run's arms.
    budget : int64
        T_max: a run not stopped after T_max pulls is censored.
    tables : TopTwoTables
    leader : first-class function (mt, nt, cnt, t, c) -> int64
        Called when ``kinds[0]`` is ``HOOK`` (otherwise unbound).
    challenger : first-class function (b, mt, cnt, c) -> int64
        Called when ``kinds[1]`` is ``HOOK``.
    stop : first-class function (mt, nt, c) -> int64
        Called when ``kinds[2]`` is ``HOOK``.
    out_tau : int64 (R,)
        Output: stopping time τ (pulls), T_max for a censored run.
    out_rec : int64 (R,)
        Output: recommended arm (0-based), −1 for a censored run.
    out_stopped : bool (R,)
        Output: the run stopped within the budget.
    rec : kernels.record.Recorder or None
        ``None`` in a simulation; a recorder in the whole-run privacy audit.

    Raises
    ------
    ValueError
        An unknown rule code, or a rule returning an arm out of range.
    """
    n_runs, K = rpar.shape[0], rpar.shape[1]
    mech, fpar, ipar = tables.mech, tables.fpar, tables.ipar
    every = tables.every == 1
    beta = tables.beta
    kl, kc, ks = tables.kinds[K_LEADER], tables.kinds[K_CHALLENGER], tables.kinds[K_STOP]
    cl, cc, cs = tables.cl, tables.cc, tables.cs
    cnt = np.zeros(K, np.int64)
    n0 = np.zeros(K, np.int64)
    nt = np.zeros(K, np.int64)
    lead = np.zeros(K, np.int64)
    nlead = np.zeros(K, np.int64)
    mt = np.zeros(K)
    tot = np.zeros(K)
    w = np.zeros(K)
    lim = np.zeros(K, np.int64)
    u = np.zeros(K)
    nf = np.zeros(K)
    fast = kc == TC and not every
    for r in range(n_runs):
        t = np.int64(0)
        for a in range(K):  # one pull of each arm, released alone
            x = batch_estimate(rng, mech, rcode, rpar[r, a], np.int64(1), fpar, ipar, rec, r,
                               t, a)
            t += 1
            tot[a] = x
            mt[a] = x
            cnt[a] = 1
            n0[a] = 1
            nt[a] = 1
            lead[a] = 0
            nlead[a] = 0
            lim[a] = 2
        found = _stop(ks, stop, mt, nt, cs)
        b = np.int64(0)
        fresh = True
        while found < 0 and t < budget:
            if fresh:
                b = _leader(kl, leader, mt, nt, cnt, n0.sum(), cl)
                if b < 0 or b >= K:
                    raise ValueError("toptwo engine: leader out of range")
                tc_weights(b, mt, cc, w)
                fresh = False
            a = np.int64(-1)
            lb, nlb = lead[b], nlead[b]
            if fast:
                for i in range(K):
                    nf[i] = float(cnt[i])
                    u[i] = w[i] * nf[i]
                a, lb, nlb, t = tc_segment(b, w, cnt, lim, u, nf, lb, nlb, beta, t, budget)
            while not fast and t < budget:  # the deterministic pulls up to the next release
                lb += 1
                if nlb <= beta * lb:
                    a = b
                    nlb += 1
                elif kc == TC:
                    a = tc_argmin(b, w, cnt)  # = tc_challenger(b, mt, cnt, cc)
                elif kc == HOOK:
                    a = challenger(b, mt, cnt, cc)
                    if a < 0 or a >= K or a == b:
                        raise ValueError("toptwo engine: challenger out of range")
                else:
                    raise ValueError("toptwo engine: unknown challenger code")
                cnt[a] += 1
                t += 1
                if every or cnt[a] >= 2 * n0[a]:
                    break
                a = -1
            lead[b], nlead[b] = lb, nlb
            if a < 0:
                break  # the budget is spent: censored
            if every:
                x = batch_estimate(rng, mech, rcode, rpar[r, a], np.int64(1), fpar, ipar, rec,
                                   r, t - 1, a)
                tot[a] += x
                mt[a] = tot[a] / cnt[a]
                nt[a] = cnt[a]
                n0[a] = cnt[a]
            else:
                m = cnt[a] - n0[a]
                mt[a] = batch_estimate(rng, mech, rcode, rpar[r, a], m, fpar, ipar, rec, r,
                                       t - m, a) / m
                nt[a] = m
                n0[a] = cnt[a]
                lim[a] = 2 * cnt[a]
            fresh = True
            found = _stop(ks, stop, mt, nt, cs)
        out_stopped[r] = found >= 0
        out_tau[r] = t if found >= 0 else budget
        out_rec[r] = found if found >= 0 else -1


@jit
def no_leader(mt, nt, cnt, t, c):
    """The unbound leader hook: raises ``ValueError`` if called."""
    if c is not None:  # always: typed so the return below is reachable
        raise ValueError("toptwo engine: no leader hook bound")
    return np.int64(0)


@jit
def no_challenger(b, mt, cnt, c):
    """The unbound challenger hook: raises ``ValueError`` if called."""
    if c is not None:  # always: typed so the return below is reachable
        raise ValueError("toptwo engine: no challenger hook bound")
    return np.int64(0)


@jit
def no_stop(mt, nt, c):
    """The unbound stopping hook: raises ``ValueError`` if called."""
    if c is not None:  # always: typed so the return below is reachable
        raise ValueError("toptwo engine: no stopping hook bound")
    return np.int64(0)
