"""The confidence of an algorithm: one notion, one name in comparisons.

Every elimination or index algorithm fixes a failure probability: DP-SE's β
(Sajed & Sheffet, ICML 2019, Algorithm 9; default β = 1/T, the thesis'
Chapter 6), the p of Chowdhury & Zhou's Algorithm 1 (ICLR 2023, Lemma 2;
default p = 0.1, their Section 7). The declarations mark that parameter with
the role :data:`bandsim.params.CONFIDENCE` (``Param.role``), and everything
that compares algorithms reads it from there: the ``confidence`` key of
``bandsim run --confidence`` and of a sweep, the ``confidence`` column of the
summary tables and the suite's board, and the warning printed when a
comparison runs its algorithms at different confidences. A lower confidence
(a wider radius) costs regret, so a comparison at mixed confidences measures
the confidences as much as the algorithms (docs/fidelity.md).
"""
from . import registry
from .errors import ConfigError
from .params import CONFIDENCE

#: The key comparisons give every algorithm's confidence parameter.
KEY = CONFIDENCE


def param_of(algorithm):
    """The name of an algorithm's confidence parameter, or None (it declares none).

    Parameters
    ----------
    algorithm : str or bandsim.Algorithm

    Returns
    -------
    str or None
    """
    p = registry.get_algorithm(algorithm).confidence
    return None if p is None else p.name


def apply(algorithm, params, strict=False):
    """``params`` with the ``confidence`` key renamed to the algorithm's own parameter.

    Parameters
    ----------
    algorithm : str or bandsim.Algorithm
    params : dict
        Keyword parameters; ``confidence`` (if present and not None) is moved
        to the algorithm's confidence parameter (e.g. ``beta``), and dropped for
        an algorithm that declares none (a comparison's other algorithms).
    strict : bool
        Refuse ``confidence`` for an algorithm that declares none (one
        algorithm asked for by name).

    Returns
    -------
    dict

    Raises
    ------
    ConfigError
        Both ``confidence`` and the algorithm's own name for it are given, the
        value is outside the parameter's range, or (``strict``) the algorithm
        declares none.
    """
    params = dict(params)
    value = params.pop(KEY, None)
    algo = registry.get_algorithm(algorithm)
    if value is not None and algo.confidence is None and strict:
        raise ConfigError(KEY, value, f"{algo.name} declares no confidence parameter")
    if value is None or algo.confidence is None:
        return params
    name = algo.confidence.name
    try:
        algo.confidence.validate(value)
    except ConfigError as e:
        raise ConfigError(KEY, value, e.allowed) from None
    if params.get(name) is not None:
        raise ConfigError(KEY, value, f"give either confidence or {name} "
                                      f"(its name in {algo.name}), "
                                      "not both")
    params[name] = value
    return params


def of_config(config):
    """(parameter name, value) of a result's confidence, or (None, None).

    Parameters
    ----------
    config : dict
        A result's configuration (``algorithm`` and the resolved ``params``).

    Returns
    -------
    tuple (str or None, float or None)
        None when the algorithm declares no confidence or is not registered
        (a plug-in's stored result read without it).
    """
    try:
        name = param_of(config.get("algorithm"))
    except ConfigError:
        return None, None
    if name is None:
        return None, None
    return name, (config.get("params") or {}).get(name)


def text(name, value):
    """How a table cell shows a confidence, e.g. ``1e-06 (beta)``; ``-`` for none."""
    if name is None or value is None:
        return "-"
    return f"{value:.3g} ({name})"


def mixed(rows):
    """A one-line warning when summary rows compare algorithms at different confidences.

    Parameters
    ----------
    rows : iterable of dict
        Summary rows with ``algorithm``, ``confidence`` and ``confidence_param``.

    Returns
    -------
    str or None
        None when every algorithm that declares a confidence ran at the same
        set of values (one value, or the same swept values), or only one
        algorithm declares one.
    """
    each = differing(rows)
    if each is None:
        return None
    return (f"warning: the algorithms compared run at different confidences ({each}); "
            "a smaller confidence widens the radius and costs regret, so the ranking reflects "
            "the confidences too: give one with --confidence (a sweep's key confidence)")


def differing(rows):
    """``dp-se beta=1e-06, dist-dp-se p=0.1`` when the rows' algorithms ran at different
    confidences (see :func:`mixed`), else None.

    Parameters
    ----------
    rows : iterable of dict

    Returns
    -------
    str or None
    """
    seen = {}
    for r in rows:
        if r.get("confidence") is not None:
            seen.setdefault(r["algorithm"], set()).add(
                (r.get("confidence_param"), float(r["confidence"])))
    if len({frozenset(v for _, v in s) for s in seen.values()}) < 2:
        return None  # one algorithm, or all at the same confidences (a swept one included)
    return ", ".join(f"{a} {n or 'confidence'}={v:.3g}" for a, s in seen.items()
                     for n, v in sorted(s, key=lambda x: x[1]))


__all__ = ["KEY", "apply", "differing", "mixed", "of_config", "param_of", "text"]
