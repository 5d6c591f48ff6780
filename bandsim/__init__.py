"""bandsim: a fast, exact simulator of differentially private multi-armed bandits.

>>> import bandsim
>>> res = bandsim.simulate("dp-se", instance="C2", arms=5, epsilon=0.25,
...                        horizon=50_000_000, runs=1000, seed=1)  # doctest: +SKIP
>>> res.summary()["regret_mean"]  # doctest: +SKIP

Plug-ins declare an :class:`Algorithm` or a :class:`Mechanism` and
:func:`register` it; :mod:`bandsim.plugin` holds everything a plug-in needs
(docs/plugins.md).
"""
from ._version import __version__
from . import loading as _loading  # noqa: F401  (installs the plug-in loader)
from . import registry as _registry
from .errors import ConfigError
from .params import Derived, Param
from .registry import Algorithm, Mechanism, register
from .results import Result
from .runner import simulate

# Built-ins register first and completely (mechanisms, then algorithms);
# installed plug-ins load after them, on the first look-up (bandsim.registry).
_registry.begin_builtins()
from . import mechanisms as _mechanisms  # noqa: E402,F401
from . import algorithms as _algorithms  # noqa: E402,F401

_registry.seal_builtins()


def __getattr__(name):
    if name == "plugin":  # the plug-in author's module (bandsim.plugin), loaded when asked for
        import importlib

        return importlib.import_module(".plugin", __name__)
    raise AttributeError(f"module 'bandsim' has no attribute {name!r}")

__all__ = ["Algorithm", "ConfigError", "Derived", "Mechanism", "Param", "Result", "register",
           "simulate", "__version__"]
