"""One step of a vectorized bandit environment: a batch per run, drawn and released.

``bandsim.env.VecEnv`` steps thousands of independent runs from a user's
loop; each step is this kernel: run r pulls arm ``arms[r]`` for ``n`` users,
the batch is one draw and one release of the mechanism — the very calls
(:func:`kernels.protocols.batch_estimate`, ``plugin_estimate``) the elimination engine makes —
and the pulls and the exact pseudo-regret Σ_a Δ_a N_a(t) are kept.
"""
from ._jit import jit
from .codes import PLUGIN
from .protocols import batch_estimate, plugin_estimate


@jit
def step(rng, rcode, rpar, gaps, arms, n, mech, fpar, ipar, hooks, rec, t, pulls, regret, out,
         checkpoints, ci, curve):
    """Pull ``arms[r]`` for ``n`` users in every run r and release each batch sum.

    Parameters
    ----------
    rng : numpy.random.Generator
        The environment's generator; runs draw from it in order r = 0, 1, ….
    rcode : int
        Reward model code (:mod:`kernels.rewards`).
    rpar : float64 (R, K, P)
        Reward parameters of each run's arms.
    gaps : float64 (R, K)
        Suboptimality gaps Δ_a, reward units.
    arms : int64 (R,)
        The arm each run pulls, in [0, K).
    n : int64
        Users (pulls) in every run's batch, ≥ 1.
    mech : int
        Mechanism code (:mod:`kernels.codes`); ``NONE`` releases the exact sum.
    fpar : float64 (F,)
        The mechanism's real batch parameters for ``n`` users.
    ipar : int64 (I,)
        The mechanism's integer batch parameters for ``n`` users.
    hooks : kernels.hooks.Hooks or None
        A plug-in mechanism's kernels; ``None`` for a built-in code (Numba
        prunes the plug-in branch for a ``None`` argument, as in the engines).
    rec : kernels.record.Recorder or None
        A recorder in the whole-run audit, else ``None``.
    t : int64 (R,)
        Pulls so far of each run, advanced by ``n``.
    pulls : int64 (R, K)
        N_a(t), advanced.
    regret : float64 (R,)
        Pseudo-regret so far, advanced by n Δ_a (reward units).
    out : float64 (R,)
        Output: each run's released batch sum (reward units; encoded units
        rescaled as the mechanism's analyzer does).
    checkpoints : int64 (C,)
        Increasing times at which the pseudo-regret is recorded (C may be 0).
    ci : int64 (R,)
        Each run's next checkpoint, advanced.
    curve : float64 (R, C)
        Output: the exact pseudo-regret at every checkpoint the batch reaches
        (the batch's pulls are consecutive pulls of one arm).

    Raises
    ------
    ValueError
        For an arm outside [0, K), an unknown mechanism code, or a plug-in
        code with ``hooks=None``.
    """
    k = gaps.shape[1]
    nc = checkpoints.shape[0]
    for r in range(arms.shape[0]):
        a = arms[r]
        if a < 0 or a >= k:
            raise ValueError("vecenv.step: an arm outside [0, K)")
        if nc > 0:
            c = ci[r]
            while c < nc and checkpoints[c] <= t[r] + n:
                curve[r, c] = regret[r] + (checkpoints[c] - t[r]) * gaps[r, a]
                c += 1
            ci[r] = c
        if mech >= PLUGIN:  # the hooks never reach the built-in paths
            if hooks is None:  # on the argument itself: pruned at compile time
                raise ValueError("vecenv.step: a plug-in mechanism code without its kernels")
            out[r] = plugin_estimate(rng, mech, rcode, rpar[r, a], n, fpar, ipar, hooks, rec, r,
                                     t[r], a)
        else:
            out[r] = batch_estimate(rng, mech, rcode, rpar[r, a], n, fpar, ipar, rec, r, t[r], a)
        t[r] += n
        pulls[r, a] += n
        regret[r] += n * gaps[r, a]
