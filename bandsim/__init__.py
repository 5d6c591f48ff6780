"""bandsim: a fast, exact simulator of differentially private multi-armed bandits.

>>> import bandsim
>>> res = bandsim.simulate("dp-se", instance="C2", arms=5, epsilon=0.25,
...                        horizon=50_000_000, runs=1000, seed=1)  # doctest: +SKIP
>>> res.summary()["regret_mean"]  # doctest: +SKIP

Plug-ins declare an :class:`Algorithm` or a :class:`Mechanism` and
:func:`register` it (docs/plugins.md).
"""
from ._version import __version__
from .errors import ConfigError
from .params import Derived, Param
from .registry import Algorithm, Mechanism, register
from .results import Result
from .runner import simulate


def sweep(grid, out, **kwargs):
    """Run a grid of simulations into a study directory (see :func:`bandsim.studies.sweep.sweep`)."""
    from .studies.sweep import sweep as run

    return run(grid, out, **kwargs)


def load(directory, **kwargs):
    """A study directory as one tidy table (see :func:`bandsim.studies.tables.load`)."""
    from .studies.tables import load as read

    return read(directory, **kwargs)


__all__ = ["Algorithm", "ConfigError", "Derived", "Mechanism", "Param", "Result", "load",
           "register", "simulate", "sweep", "__version__"]
