"""The algorithm catalogue: canonical name → :class:`Algorithm`."""
from ..errors import ConfigError
from .base import REQUIRED, Algorithm, Derived, Plan
from .batched import BATCH_SE
from .central import DP_SE
from .distributed import ALGORITHMS as _DISTRIBUTED
from .sequential import DP_SE2, DP_SE2_MODIFIED, DP_UCB, SE, UCB1
from .shuffle import SDP_AE, VB_SDP_AE

ALGORITHMS = {a.name: a for a in (UCB1, SE, BATCH_SE, DP_UCB, DP_SE, DP_SE2, DP_SE2_MODIFIED,
                                  SDP_AE, VB_SDP_AE, *_DISTRIBUTED)}


def get(name):
    """The catalogue entry for ``name``.

    Raises
    ------
    ConfigError
        If ``name`` is not a known algorithm.
    """
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise ConfigError("algorithm", name,
                          f"must be one of {', '.join(ALGORITHMS)}") from None


__all__ = ["ALGORITHMS", "Algorithm", "Derived", "Plan", "REQUIRED", "get"]
