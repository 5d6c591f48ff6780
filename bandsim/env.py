"""A vectorized bandit environment: thousands of runs stepped together from your own loop.

:func:`make` builds a :class:`VecEnv` from any instance bandsim knows (a named
instance, explicit means, an :class:`~bandsim.instances.Instance` from data)
and a seed. ``env.pull(arms, n)`` makes every run r pull ``arms[r]`` for ``n``
users at once and returns each batch's released sum: a batch is one draw and
one release of the mechanism, through the very kernel call the engines make
(:func:`bandsim.kernels.protocols.estimate`, drawn with
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

from typing import Any, Sequence

import numpy as np

from . import registry
from .engines import hooks_for
from .errors import ConfigError
from .instances import Instance, make_instance
from .kernels import codes
from .kernels.vecenv import step

__all__ = ["VecEnv", "make"]


class VecEnv:
    """``runs`` independent runs of one bandit instance, stepped together.

    Attributes
    ----------
    runs, arms : int
        R and K.
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
        The whole-run audit's recorder (None outside an audit).
    """

    def __init__(self, instance: Instance, runs: int, seed: int, rec: Any = None) -> None:
        self.instance = instance
        self.runs = int(runs)
        self.arms = int(instance.arms)
        self.means, self.gaps, self.rcode, self.rpar = instance.per_run(self.runs)
        self.rpar = np.ascontiguousarray(self.rpar)
        self.gaps = np.ascontiguousarray(self.gaps)
        self.rng = np.random.default_rng(seed)
        self.rec = rec
        self.t = np.zeros(self.runs, np.int64)
        self.pulls = np.zeros((self.runs, self.arms), np.int64)
        self.regret = np.zeros(self.runs)
        self._batches: dict = {}

    def _batch(self, mechanism: str | None, n: int, params: dict) -> tuple:
        key = (mechanism, n, tuple(sorted(params.items())))
        got = self._batches.get(key)
        if got is None:
            if mechanism is None:
                got = (codes.NONE, np.zeros(4), np.zeros(3, np.int64), hooks_for("none"))
            else:
                mech = registry.get_mechanism(mechanism)
                b = mech.derive(n, params)
                fpar = np.zeros(max(4, len(b.fpar)))
                fpar[:len(b.fpar)] = b.fpar
                ipar = np.zeros(max(3, len(b.ipar)), np.int64)
                ipar[:len(b.ipar)] = b.ipar
                got = (int(b.code), fpar, ipar, hooks_for(mechanism))
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
            A registered mechanism (``bandsim list``), built-in or plug-in; its
            parameters as keywords (e.g. ``epsilon=0.5``). Default: the exact sum.

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
             hooks, self.rec, self.t, self.pulls, self.regret, out)
        return out


def make(instance: str | Instance | None = None, *, arms: int | None = None,
         means: Sequence[float] | None = None, runs: int = 1000, seed: int = 0,
         rewards: str = "bernoulli", sigma: float = 0.1) -> VecEnv:
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
    if isinstance(instance, Instance):
        inst = instance
    else:
        inst = make_instance(instance, arms=arms, runs=runs, rewards=rewards, sigma=sigma,
                             means=None if means is None else list(means),
                             rng=np.random.default_rng(seed))
    return VecEnv(inst, runs, seed)
