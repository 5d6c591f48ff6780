"""The algorithm catalogue: canonical name → :class:`Algorithm`."""
from ..errors import ConfigError
from .base import REQUIRED, Algorithm, Plan
from .batched import BATCH_SE
from .central import DP_SE
from .sequential import DP_SE2, DP_SE2_MODIFIED, DP_UCB, SE, UCB1

ALGORITHMS = {a.name: a for a in (DP_SE, BATCH_SE, UCB1, SE, DP_UCB, DP_SE2,
                                  DP_SE2_MODIFIED)}


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


__all__ = ["ALGORITHMS", "Algorithm", "Plan", "REQUIRED", "get"]
