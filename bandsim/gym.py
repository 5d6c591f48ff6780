"""Gymnasium's vector-environment conventions over :class:`bandsim.env.VecEnv` (optional).

An adapter, not a dependency: ``pip install 'bandsim[gym]'`` (or ``pip install
gymnasium``) and :func:`make_vec` returns a ``gymnasium.vector.VectorEnv`` whose
``num_envs`` sub-environments are the runs of one :class:`~bandsim.env.VecEnv`:

* ``single_action_space`` is ``Discrete(K)`` (``action_space`` its batch,
  ``MultiDiscrete([K] * num_envs)``): the arm each run pulls;
* a bandit has no state: ``single_observation_space`` is ``Discrete(1)`` and
  every observation 0;
* ``step(actions)`` makes every run pull its arm for ``batch`` users (the last
  batch cut at the horizon), one draw and one release of ``mechanism`` (the
  engines' release primitive, :meth:`bandsim.env.VecEnv.pull`); the reward is
  the released batch sum (reward units);
* all runs reach the horizon T together: ``truncations`` is then all True
  (``terminations`` never is). Autoreset is Gymnasium's ``NEXT_STEP`` mode:
  the ``step`` after the horizon starts a new episode (a fresh ``VecEnv``)
  and returns zero rewards;
* ``infos`` holds ``regret`` (float64 (num_envs,): the pseudo-regret
  Σ_a Δ_a N_a(t), exact) and ``t`` (int64: pulls so far), with Gymnasium's
  ``_regret``/``_t`` masks.

Episode e's environment is seeded from ``SeedSequence([seed, e])``;
``reset(seed=s)`` restarts the count from root s.

References
----------
Towers et al., "Gymnasium: A Standard Interface for Reinforcement Learning
Environments" (2024), the vector-environment API (``gymnasium.vector.VectorEnv``).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import env as _env
from .errors import ConfigError

#: What the adapter says when Gymnasium is missing.
INSTALL = ("the Gymnasium adapter needs gymnasium, which is not installed: "
           "pip install 'bandsim[gym]' (or pip install gymnasium)")

_CLASS: list = []


def _gymnasium() -> Any:
    """The gymnasium module, or ImportError with :data:`INSTALL`."""
    try:
        import gymnasium
        import gymnasium.vector  # noqa: F401
    except ImportError as e:
        raise ImportError(INSTALL) from e
    return gymnasium


def make_vec(instance: Any = None, *, arms: int | None = None,
             means: Sequence[float] | None = None, num_envs: int = 1000, seed: int = 0,
             rewards: str = "bernoulli", sigma: float = 0.1, horizon: int, batch: int = 1,
             mechanism: str | None = None, **params: Any) -> Any:
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` runs of a bandit instance.

    Parameters
    ----------
    instance, arms, means, rewards, sigma
        As :func:`bandsim.env.make`.
    num_envs : int
        Runs R ≥ 1 (Gymnasium's sub-environments).
    seed : int
        Root seed (episode e uses ``SeedSequence([seed, e])``).
    horizon : int
        T ≥ 1 pulls per run and episode.
    batch : int
        Users per step (n ≥ 1; the last step is cut at T).
    mechanism : str, optional
        A registered mechanism (built-in or plug-in) each batch is released
        through; default the exact sum.
    **params
        The mechanism's parameters (e.g. ``epsilon=0.5``).

    Returns
    -------
    gymnasium.vector.VectorEnv

    Raises
    ------
    ImportError
        Gymnasium is not installed (the message says how to install it).
    bandsim.ConfigError
        For a horizon or batch < 1, and as :func:`bandsim.env.make`.
    """
    if int(horizon) < 1:
        raise ConfigError("horizon", horizon, "pulls per episode, an integer ≥ 1")
    if int(batch) < 1:
        raise ConfigError("batch", batch, "users per step, an integer ≥ 1")
    cls = _vector_class()
    make_kw = dict(instance=instance, arms=arms, means=means, runs=int(num_envs),
                   rewards=rewards, sigma=sigma, horizon=int(horizon))
    return cls(make_kw, int(seed), int(batch), mechanism, params)


def _episode_seed(root: int, episode: int) -> int:
    return int(np.random.SeedSequence([root, episode]).generate_state(1, np.uint64)[0])


def _vector_class() -> Any:
    """The adapter class, built once Gymnasium is imported."""
    if _CLASS:
        return _CLASS[0]
    gym = _gymnasium()
    spaces, vector = gym.spaces, gym.vector

    class BanditVectorEnv(vector.VectorEnv):  # type: ignore[misc, name-defined]
        """``num_envs`` runs of a :class:`bandsim.env.VecEnv` behind Gymnasium's vector API."""

        metadata = {"autoreset_mode": vector.AutoresetMode.NEXT_STEP}

        def __init__(self, make_kw: dict, seed: int, batch: int, mechanism: str | None,
                     params: dict) -> None:
            self._make_kw, self._root, self._episode = make_kw, seed, 0
            self._batch, self._mechanism, self._params = batch, mechanism, params
            self.env = _env.make(**make_kw, seed=_episode_seed(seed, 0))
            self.horizon = int(make_kw["horizon"])
            self.num_envs = self.env.runs
            self.single_observation_space = spaces.Discrete(1)
            self.single_action_space = spaces.Discrete(self.env.arms)
            self.observation_space = vector.utils.batch_space(self.single_observation_space,
                                                              self.num_envs)
            self.action_space = vector.utils.batch_space(self.single_action_space,
                                                         self.num_envs)
            self._done = False
            self._started = False  # the first reset() plays episode 0

        def _obs_info(self) -> tuple:
            every = np.ones(self.num_envs, bool)
            info = {"regret": self.env.regret.copy(), "_regret": every,
                    "t": self.env.t.copy(), "_t": every.copy()}
            return np.zeros(self.num_envs, np.int64), info

        def reset(self, *, seed: int | None = None,
                  options: dict | None = None) -> tuple:
            if seed is not None:
                self._root, self._episode = int(seed), 0
            elif self._started:
                self._episode += 1
            self._started = True
            self.env = _env.make(**self._make_kw, seed=_episode_seed(self._root,
                                                                     self._episode))
            self._done = False
            return self._obs_info()

        def step(self, actions: Any) -> tuple:
            false = np.zeros(self.num_envs, bool)
            if self._done:  # NEXT_STEP autoreset: this step starts the next episode
                obs, info = self.reset()
                return obs, np.zeros(self.num_envs), false, false.copy(), info
            n = min(self._batch, self.horizon - int(self.env.t[0]))
            x = self.env.pull(np.asarray(actions, np.int64), n, mechanism=self._mechanism,
                              **self._params)
            self._done = int(self.env.t[0]) >= self.horizon
            obs, info = self._obs_info()
            return obs, x, false, np.full(self.num_envs, self._done), info

    _CLASS.append(BanditVectorEnv)
    return BanditVectorEnv


__all__ = ["INSTALL", "make_vec"]
