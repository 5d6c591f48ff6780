"""A vectorized bandit environment: thousands of runs stepped together from your own loop.

:func:`make` builds a :class:`VecEnv` from any instance bandsim knows (a named
instance, explicit means, an :class:`~bandsim.instances.Instance` from data)
and a seed. ``env.pull(arms, n)`` makes every run r pull ``arms[r]`` for ``n``
users at once and returns each batch's released sum: a batch is one draw and
one release of the mechanism, through the very kernel call the engines make
(:func:`bandsim.kernels.protocols.batch_estimate`, drawn with
:mod:`bandsim.kernels.rewards` and released with
:func:`bandsim.kernels.record.release`). Any registered mechanism — built-in or
plug-in — is named with ``mechanism=`` and its parameters (``epsilon=`` …);
without one, the exact sum is released. Pulls N_a(t) and the pseudo-regret
Σ_a Δ_a N_a(t) are kept exactly.

Stability: as :mod:`bandsim.backend` (semantic versioning, one minor release
of deprecation warnings; the signatures are in ``tests/data/public_api.json``).

Examples
--------
>>> import numpy as np, bandsim.env
>>> env = bandsim.env.make(means=[0.9, 0.5], runs=4, seed=1)
>>> x = env.pull(np.zeros(4, np.int64), 100, mechanism="laplace", epsilon=1.0)
>>> x.shape, int(env.pulls[0, 0]), float(env.regret[0])
((4,), 100, 0.0)
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from . import registry
from .algorithms.families import BatchedElimination
from .engines import hooks_for
from .errors import ConfigError
from .instances import Instance, make_instance
from .params import Param
from .registry import Algorithm, register
from .wholerun import audit as wholerun_audit
from .kernels import codes
from .kernels.rewards import reward_mean
from .kernels.vecenv import step

__all__ = ["VecEnv", "audit", "loop_algorithm", "make"]


class VecEnv:
    """``runs`` independent runs of one bandit instance, stepped together.

    Build one with :func:`make`. Every batch a run pulls is one draw of its
    arm's reward model and one release of the mechanism, exactly as the engines
    draw and release them.

    Attributes
    ----------
    runs, arms : int
        R and K.
    horizon : int or None
        T, if one was given (the loop's business: :meth:`pull` does not stop at it).
    means : float64 (R, K)
        Each run's arm means (reward units).
    t : int64 (R,)
        Pulls so far of each run.
    pulls : int64 (R, K)
        N_a(t).
    regret : float64 (R,)
        Pseudo-regret Σ_a Δ_a N_a(t), reward units.
    rng : numpy.random.Generator
        The generator of every draw (rewards and noise).
    rec : Recorder or None
        The whole-run audit's recorder (:func:`audit`; None otherwise).
    """

    def __init__(self, gaps: np.ndarray, rcode: int, rpar: np.ndarray,
                 rng: np.random.Generator, *, horizon: int | None = None, rec: Any = None,
                 checkpoints: np.ndarray | None = None, curve: np.ndarray | None = None) -> None:
        self.gaps = np.ascontiguousarray(gaps, np.float64)
        self.rcode = int(rcode)
        self.rpar = np.ascontiguousarray(rpar, np.float64)
        self.runs, self.arms = self.gaps.shape
        self.means = np.array([[reward_mean(self.rcode, self.rpar[r, a]) for a in
                                range(self.arms)] for r in range(self.runs)]).reshape(
                                    self.runs, self.arms)
        self.horizon = None if horizon is None else int(horizon)
        self.rng = rng
        self.rec = rec
        self.t = np.zeros(self.runs, np.int64)
        self.pulls = np.zeros((self.runs, self.arms), np.int64)
        self.regret = np.zeros(self.runs)
        self._cps = np.zeros(0, np.int64) if checkpoints is None else checkpoints
        self._ci = np.zeros(self.runs, np.int64)
        self._curve = np.zeros((self.runs, 0)) if curve is None else curve
        self._batches: dict = {}

    def _batch(self, mechanism: str | None, n: int, params: dict) -> tuple:
        key = (mechanism, n, tuple(sorted(params.items())))
        got = self._batches.get(key)
        if got is None:
            if mechanism is None:
                got = (codes.NONE, np.zeros(4), np.zeros(3, np.int64), None)
            else:
                mech = registry.get_mechanism(mechanism)
                b = mech.derive(n, params)
                fpar = np.zeros(max(4, len(b.fpar)))
                fpar[:len(b.fpar)] = b.fpar
                ipar = np.zeros(max(3, len(b.ipar)), np.int64)
                ipar[:len(b.ipar)] = b.ipar
                plugin = int(b.code) >= codes.PLUGIN  # built-ins pass no hooks (pruned)
                got = (int(b.code), fpar, ipar, hooks_for(mechanism) if plugin else None)
            self._batches[key] = got
        return got

    def pull(self, arms: Sequence[int] | np.ndarray, n: int, *, mechanism: str | None = None,
             **params: Any) -> np.ndarray:
        """Every run r pulls ``arms[r]`` for ``n`` users; the released batch sums.

        Parameters
        ----------
        arms : int64 (R,)
            One arm per run, in [0, K).
        n : int
            Users in each run's batch, ≥ 1.
        mechanism : str, optional
            A registered mechanism (``bandsim list``), built-in or plug-in.
            Default: the exact sum.
        **params
            The mechanism's parameters (e.g. ``epsilon=0.5``).

        Returns
        -------
        float64 (R,)
            Each run's released batch sum, reward units.

        Raises
        ------
        bandsim.ConfigError
            For ``n`` < 1, a wrong shape of ``arms``, or an unknown mechanism
            or invalid parameters.
        ValueError
            For an arm outside [0, K).
        """
        if int(n) < 1:
            raise ConfigError("n", n, "users per batch, an integer ≥ 1")
        a = np.ascontiguousarray(arms, np.int64)
        if a.shape != (self.runs,):
            raise ConfigError("arms", a.shape, f"one arm per run: shape ({self.runs},)")
        mech, fpar, ipar, hooks = self._batch(mechanism, int(n), params)
        out = np.empty(self.runs)
        step(self.rng, self.rcode, self.rpar, self.gaps, a, np.int64(n), mech, fpar, ipar,
             hooks, self.rec, self.t, self.pulls, self.regret, out, self._cps, self._ci,
             self._curve)
        return out


def make(instance: str | Instance | None = None, *, arms: int | None = None,
         means: Sequence[float] | None = None, runs: int = 1000, seed: int = 0,
         rewards: str = "bernoulli", sigma: float = 0.1, horizon: int | None = None) -> VecEnv:
    """A :class:`VecEnv` of ``runs`` runs of an instance bandsim knows.

    Parameters
    ----------
    instance : str or Instance, optional
        ``C1``–``C4``, ``easy``, ``hard`` (with ``arms``) or an
        :class:`~bandsim.instances.Instance` (e.g.
        :func:`bandsim.datasets.load_instance`); or give ``means``.
    arms : int, optional
        K ≥ 2 for a named instance.
    means : sequence of float, optional
        Arm means in [0, 1].
    runs : int
        Independent runs R ≥ 1.
    seed : int
        Seed of the environment's generator (random instances, rewards, noise).
    rewards : {"bernoulli", "gaussian", "categorical"}
    sigma : float
        σ of the clipped Gaussian.
    horizon : int, optional
        T, kept as ``env.horizon`` for the loop.

    Returns
    -------
    VecEnv

    Raises
    ------
    bandsim.ConfigError
        For an unknown instance, K < 2, means outside [0, 1], runs < 1.
    """
    if int(runs) < 1:
        raise ConfigError("runs", runs, "an integer ≥ 1")
    rng = np.random.default_rng(seed)  # random instances first, then every draw
    if isinstance(instance, Instance):
        inst = instance
    else:
        inst = make_instance(instance, arms=arms, runs=runs, rewards=rewards, sigma=sigma,
                             means=None if means is None else list(means), rng=rng)
    _, gaps, rcode, rpar = inst.per_run(int(runs))
    return VecEnv(gaps, rcode, rpar, rng, horizon=horizon)


class _LoopPlan:
    """The plan of a user's loop: ``run_shard(rng, shard, rec)`` runs it on a :class:`VecEnv`
    over the shard's runs — the recording engine the whole-run audit drives."""

    stages: list = []

    def __init__(self, loop: Callable[[VecEnv], Any], horizon: int) -> None:
        self.loop, self.horizon = loop, horizon

    def run_shard(self, rng: np.random.Generator, shard: Any, rec: Any = None) -> None:
        env = VecEnv(shard.gaps, shard.rcode, shard.rpar, rng, horizon=int(shard.horizon),
                     rec=rec, checkpoints=shard.checkpoints, curve=shard.regret)
        self.loop(env)
        shard.pulls[:] = env.pulls
        shard.elim[:] = -1
        for r in range(env.runs):  # checkpoints past the loop's last pull: its final regret
            shard.regret[r, env._ci[r]:] = env.regret[r]


def loop_algorithm(loop: Callable[[VecEnv], Any], *, name: str, mechanism: str,
                   params: Sequence[Param], summary: str = "a user's loop over bandsim.env",
                   trust: str = "as its mechanism", source: str = "the user's own loop",
                   ) -> Algorithm:
    """Declare a user's loop over a :class:`VecEnv` as an algorithm (register it to use it).

    The loop is ``loop(env, **params)``: it pulls with ``env.pull(arms, n,
    mechanism=mechanism, **params)`` until ``env.horizon``, reading nothing of the
    rewards but the released sums. Declared as a batched-elimination family
    member: every user's reward enters one batch of ``mechanism`` (the
    participation the whole-run audit checks the loop against).

    Parameters
    ----------
    loop : callable
        ``loop(env, **params)``, returning nothing.
    name : str
        The algorithm's name (as for any plug-in).
    mechanism : str
        The registered mechanism every batch is released through.
    params : sequence of Param
        The loop's parameters (e.g. ``(bandsim.plugin.EPSILON,)``).
    summary, trust, source : str
        The declaration's one-line summary, trust model and source (as for any
        plug-in: ``bandsim list`` shows them).

    Returns
    -------
    Algorithm
        A declaration for :func:`bandsim.register`; ``bandsim.simulate(name, …)`` and
        ``bandsim audit --whole-run`` then run the loop.
    """
    def plan(resolved: dict, arms: int, horizon: int) -> _LoopPlan:
        kw = {p.name: resolved[p.name] for p in params}
        return _LoopPlan(lambda env: loop(env, **kw), horizon)

    return BatchedElimination(name=name, summary=summary, trust=trust, source=source,
                              params=tuple(params), plan=plan, mechanism=mechanism)


def audit(loop: Callable[[VecEnv], Any], *, mechanism: str, params: Sequence[Param],
          values: dict | None = None, horizon: int = 100_000,
          means: Sequence[float] | None = None, seed: int = 0, name: str = "env-loop",
          **kw: Any) -> Any:
    """The whole-run record–replay audit of a user's loop over :class:`VecEnv`.

    The loop is declared with :func:`loop_algorithm`, registered for the
    audit and run by :func:`bandsim.wholerun.audit` in record mode and replayed
    on neighbouring datasets with the releases frozen — the very checks of
    ``bandsim audit --whole-run`` (decisions read only releases, scales and
    sensitivities as declared, composition of one user's releases).

    Parameters
    ----------
    loop, mechanism, params
        As :func:`loop_algorithm`.
    values : dict, optional
        The audited parameter values (e.g. ``{"epsilon": 0.5}``).
    horizon : int
        T of the audited runs.
    means : sequence of float, optional
        Arm means (default: the audit's).
    seed : int
        Seed of every recorded run.
    name : str
        The name the loop is registered under during the audit.
    **kw
        Passed to :func:`bandsim.wholerun.audit` (e.g. ``work``).

    Returns
    -------
    bandsim.wholerun.WholeRunReport
        ``verdict`` PASS or FAIL (``failures``), or why not.

    Raises
    ------
    bandsim.ConfigError
        As :func:`bandsim.wholerun.audit`, or a name already registered.
    """
    register(loop_algorithm(loop, name=name, mechanism=mechanism, params=params))
    try:
        return wholerun_audit(name, values, horizon=horizon, means=means, seed=seed, **kw)
    finally:
        registry.unregister(name)
