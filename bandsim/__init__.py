"""bandsim: a fast, exact simulator of differentially private multi-armed bandits.

>>> import bandsim
>>> res = bandsim.simulate("dp-se", instance="C2", arms=5, epsilon=0.25,
...                        horizon=50_000_000, runs=1000, seed=1)  # doctest: +SKIP
>>> res.summary()["regret_mean"]  # doctest: +SKIP

Plug-ins declare an :class:`Algorithm` or a :class:`Mechanism` and
:func:`register` it; :mod:`bandsim.plugin` holds everything a plug-in needs
(docs/plugins.md).
"""
import os
from typing import Any

from . import errors as _errors
from ._version import __version__

_errors.import_numba()  # an invalid NUMBA_NUM_THREADS is refused by bandsim, in one line
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
from .bai import BAIResult, simulate_bai  # noqa: E402  (fixed-confidence best-arm identification)
_registry.seal_builtins()

from .studies.sweep import sweep as _sweep  # noqa: E402
from .studies import bai_study as _bai_study  # noqa: E402
from .studies.tables import load as _load  # noqa: E402


def __getattr__(name: str) -> Any:
    if name == "plugin":  # the plug-in author's module (bandsim.plugin), loaded when asked for
        import importlib

        return importlib.import_module(".plugin", __name__)
    raise AttributeError(f"module 'bandsim' has no attribute {name!r}")


def sweep(grid: Any, out: str | os.PathLike, *, study: str | None = None,
          name: str | None = None, seeds: str = "shared", replicates: int = 1,
          console: Any = None, backend: str = "local", scheduler: str | None = None,
          overwrite: bool = False, verbose: bool = False, verify: bool = False) -> list:
    """Run a grid of simulations into a study directory; return one summary row per job.

    The parameters, return value and errors are those of
    :func:`bandsim.studies.sweep.sweep` (same store, resume and seeds as
    ``bandsim sweep``).
    """
    return _sweep(grid, out, study=study, name=name, seeds=seeds, replicates=replicates,
                  console=console, backend=backend, scheduler=scheduler, overwrite=overwrite,
                  verbose=verbose, verify=verify)


def load(directory: str | os.PathLike, *, level: str = "job",
         allow_missing: bool = False) -> Any:
    """A study directory as one tidy pyarrow Table (``.to_pandas()``, ``polars.from_arrow``).

    The parameters, return value and errors are those of
    :func:`bandsim.studies.tables.load`; a directory of best-arm identification
    results is read by :func:`bandsim.studies.bai_study.load` (stopping times).
    """
    if _bai_study.holds_bai(directory):
        return _bai_study.load(directory, level=level, allow_missing=allow_missing)
    return _load(directory, level=level, allow_missing=allow_missing)


__all__ = ["Algorithm", "BAIResult", "ConfigError", "Derived", "Mechanism", "Param", "Result",
           "load", "register", "simulate", "simulate_bai", "sweep", "__version__"]
