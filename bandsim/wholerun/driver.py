"""Recorded runs of the real engines (:mod:`kernels.record`), the raw material of the audit.

A :class:`Run` is one run of an algorithm's engine — the very kernel a
simulation runs, in its recording specialisation — with everything it
logged: its blocks (the reward draws: run, t0, arm, n), its releases (run,
t, arm, n, law, tag, blocks before; true statistic, scale, value) and its
outputs. :func:`play` runs one; the neighbouring pair of the audit is two
calls that differ only in ``y``, the reward of the user in ``block``, the
second a ``REPLAY`` whose releases are frozen to the first's values.
"""
from dataclasses import dataclass

import numpy as np

from .. import registry
from ..instances import make_instance
from ..kernels import codes
from ..kernels import record as R
from ..kernels.shard import make_shard
from ..plancache import make_plan

#: Releases (and blocks) a recorder holds at first; a run that logs more is replayed
#: once with room for exactly what it logged.
CAPACITY = 1 << 14


@dataclass
class Run:
    """What one recorded run logged (see :class:`kernels.record.Recorder`).

    Attributes
    ----------
    blocks : int64 (B, 4)
        Per block: run, t0, arm, n.
    rel : int64 (N, 9)
        Per release: run, t, arm, n, law, tag, blocks drawn before it; τ, m of a
        SecAgg batch (0 otherwise).
    val : float64 (N, 3)
        Per release: true statistic, scale, released value.
    pulls, elim : int64 (K,)
        N_a(T) and elimination times (−1: never).
    regret : float64 (C,)
        Pseudo-regret at the checkpoints.
    """

    blocks: np.ndarray
    rel: np.ndarray
    val: np.ndarray
    pulls: np.ndarray
    elim: np.ndarray
    regret: np.ndarray

    @property
    def values(self):
        """The released values, float64 (N,)."""
        return self.val[:, R.VAL_VALUE]


def _setup(algo, params, means, horizon, rewards, sigma, runs, plan, checkpoints):
    """Instance arrays, resolved plan and checkpoints shared by :func:`play` and
    :func:`outputs`."""
    inst = make_instance(means=list(means), rewards=rewards, sigma=sigma)
    if plan is None:
        plan = make_plan(algo, algo.resolve(dict(params), horizon), inst.arms, horizon)
    _, gaps, rcode, rpar = inst.per_run(runs)
    cps = np.unique(np.linspace(1, horizon, checkpoints).astype(np.int64))
    return inst.arms, plan, gaps, rcode, rpar, cps


def outputs(algorithm, params, means, horizon, *, seed=0, runs=1, rec=None,
            rewards="bernoulli", sigma=0.3, checkpoints=64, plan=None):
    """``runs`` runs of ``algorithm``'s engine in one shard, set up exactly as :func:`play`
    sets up a recorded run (same instance, seed, T and checkpoints), with ``rec`` None
    (the production specialisation: what a simulation runs) or a recorder.

    Returns
    -------
    pulls, elim : int64 (runs, K)
    regret : float64 (runs, C)
    """
    algo = registry.get_algorithm(algorithm) if isinstance(algorithm, str) else algorithm
    arms, plan, gaps, rcode, rpar, cps = _setup(algo, params, means, horizon, rewards, sigma,
                                                runs, plan, checkpoints)
    regret = np.zeros((runs, cps.size))
    pulls = np.zeros((runs, arms), np.int64)
    elim = np.zeros((runs, arms), np.int64)
    plan.run_shard(np.random.default_rng(seed),
                   make_shard(gaps, rcode, rpar, horizon, cps, regret, pulls, elim), rec)
    return pulls, elim, regret


def play(algorithm, params, means, horizon, *, rewards="bernoulli", sigma=0.3, seed=0,
         mode=codes.RECORD, block=-1, y=0.0, frozen=None, mirror=False, checkpoints=64,
         rng=None, plan=None, capacity=None, runs=1, shift=None, gain=None):
    """One run of ``algorithm``'s engine in its recording specialisation.

    Parameters
    ----------
    algorithm : str or Algorithm
    params : dict
        The algorithm's parameters (resolved by the declaration).
    means : sequence of float (K,)
        Arm means (location of the clipped Gaussian for ``rewards="gaussian"``).
    horizon : int
        T.
    rewards : {"bernoulli", "gaussian", "categorical"}
    sigma : float
        σ of the clipped Gaussian.
    seed : int
        Seed of the run's generator (environment and noise) and of the
        release hooks' own generator: the same seed gives the same stream.
    mode : int
        ``codes.RECORD`` or ``codes.REPLAY``.
    block : int
        The block whose one user has reward ``y`` (−1: none).
    frozen : float64 (N,), optional
        ``REPLAY``: the values to release (those of the recorded run).
    mirror : bool
        Mirror every other reward, x → 1 − x (the far replay of check (a)).
    shift, gain : sequence of float, optional
        Map every other reward of arm a, x → shift[a % L] + gain[a % L]·x (the
        transformed replays of :mod:`bandsim.wholerun.transforms`; default the
        mirror or the identity).
    checkpoints : int
        Checkpoints of the pseudo-regret (spread over [1, T]).
    rng : numpy.random.Generator, optional
        The run's generator (default ``default_rng(seed)``): a simulation's shard
        generator reproduces that shard's run (a re-run for more capacity restarts
        from the state it had at the call).
    plan : optional
        The algorithm's plan for these parameters, ``len(means)`` arms and T
        (default: built here).
    capacity : int, optional
        Releases and blocks the recorder holds at first (default :data:`CAPACITY`).
    runs : int
        Independent runs in the one recorded shard (their releases carry their
        run index; outputs are the first run's). The many-run law and
        independence checks (:mod:`bandsim.wholerun.laws`) record many.

    Returns
    -------
    Run

    Raises
    ------
    TypeError
        If the algorithm's engine has no recording mode (a plug-in's own engine).
    """
    algo = registry.get_algorithm(algorithm) if isinstance(algorithm, str) else algorithm
    arms, plan, gaps, rcode, rpar, cps = _setup(algo, params, means, horizon, rewards, sigma,
                                                runs, plan, checkpoints)
    capacity = CAPACITY if capacity is None else int(capacity)
    gen = np.random.default_rng(seed) if rng is None else rng
    state = gen.bit_generator.state
    while True:
        gen.bit_generator.state = state
        regret = np.zeros((runs, cps.size))
        pulls = np.zeros((runs, arms), np.int64)
        elim = np.zeros((runs, arms), np.int64)
        rec = R.recorder(mode, capacity, block=block, y=y, seed=seed, frozen=frozen,
                         mirror=mirror, shift=shift, gain=gain)
        plan.run_shard(gen, make_shard(gaps, rcode, rpar, horizon, cps, regret, pulls, elim),
                       rec)
        nb, nr = int(rec.counts[R.N_BLOCKS]), int(rec.counts[R.N_RELEASES])
        if nb <= capacity and nr <= capacity:
            break
        capacity = max(nb, nr)
    return Run(rec.blk[:nb].copy(), rec.rel[:nr].copy(), rec.val[:nr].copy(), pulls[0],
               elim[0], regret[0])
