"""bandsim: a fast, exact simulator of differentially private multi-armed bandits.

>>> import bandsim
>>> res = bandsim.simulate("dp-se", instance="C2", arms=5, epsilon=0.25,
...                        horizon=50_000_000, runs=1000, seed=1)  # doctest: +SKIP
>>> res.summary()["regret_mean"]  # doctest: +SKIP
"""
from ._version import __version__

from .errors import ConfigError
from .results import Result
from .runner import simulate

__all__ = ["ConfigError", "Result", "simulate", "__version__"]
