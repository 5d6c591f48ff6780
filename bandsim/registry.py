"""The registry: one declaration per mechanism and per algorithm.

Everything that needs to know which algorithms and mechanisms exist — the
runner, the CLI's flags, ``bandsim list``, sweeps, audits, the accountant,
the privacy every result carries, the suite — asks this module. It is the
only place that looks names up; elsewhere code reads the declarations'
fields.

Built-in declarations live in :mod:`bandsim.algorithms` and
:mod:`bandsim.mechanisms`; plug-ins add theirs with :func:`register`, or
from an installed package through the entry-point group ``bandsim.plugins``
(each entry point names a module, or a callable that is called once with no
arguments, which registers its declarations). See docs/plugins.md.
"""
from dataclasses import dataclass, field
from typing import Callable

from .errors import ConfigError
from .params import resolve

#: Reward models an instance can have (kernels.codes.REWARD_MODELS).
REWARD_MODELS = ("bernoulli", "gaussian", "categorical")


@dataclass(frozen=True)
class Mechanism:
    """What the analyzer learns from one batch: a mechanism's declaration.

    Attributes
    ----------
    name : str
        E.g. ``dist-dp``.
    summary : str
        One line for ``bandsim list``.
    source : str
        Paper, section and theorem.
    trust : str
        Trust model and guarantee, e.g. ``distributed ε-DP (SecAgg)``.
    kind : str
        Privacy kind, what the audit and the accountant do with it:
        ``pure`` (ε-DP of a discrete view), ``laplace`` (ε-DP of a continuous
        Laplace view), ``rdp``, ``zcdp``, ``approx`` ((ε, δ)-DP) or ``none``.
    code : int
        Kernel code (:mod:`bandsim.kernels.codes`); ``codes.PLUGIN`` for a
        mechanism whose samplers are its own kernels (``kernels``).
    batch : callable (n, **params) -> batch object
        The per-batch parameter derivation: the only source of the numbers
        the kernels read (``batch.fpar``, ``batch.ipar``) and the audit
        certifies. ``params`` are the algorithm's resolved parameters that
        the mechanism takes (``takes``).
    takes : tuple of str
        Algorithm parameters the derivation reads (e.g. epsilon, p, scale).
    audit : callable (batch, algorithm: str, fold_max=None) -> AuditReport, optional
        The exact audit of one batch (``fold_max``: largest modulus folded
        exactly; beyond it a window of the integers is audited).
    audit_points : callable (batch, fold_max=None) -> int, optional
        Cost of the exact audit (points evaluated), to keep result audits cheap.
    noise_law : callable (batch) -> pmf law, optional
        Exact law of the audited noise (SecAgg family), built from the
        parameters the *batched* kernels read (e.g. q = ``fpar[0]`` of the
        discrete Laplace family): the law the sampled audit tests their draws
        against.
    user_law : callable (batch) -> pmf law, optional
        Exact law of the per-user path's total noise when its samplers read
        other parameters than the batched ones (``dist-dp``: the Pólya pairs
        read β = ``fpar[1]``). The exact audit then certifies both paths
        (pure-DP mechanisms), so the two parameters cannot drift apart.
    claim : callable (batch) -> dict, optional
        The guarantee of one batch in the paper's terms.
    samplers : tuple of str
        Kernel samplers the mechanism draws with (provenance, docs).
    kernels : dict, optional
        Plug-in kernels by the name of the kernel function they replace in
        the engines (e.g. ``{"total_noise": f, "user_noise": g}`` with
        signature ``(rng, mech, n, fpar) -> int64``).
    family : str
        ``secagg`` (protocol P = (R, S, A) of Chowdhury & Zhou), ``sum``
        (noise on the exact batch sum), ``release`` (a data-dependent release
        from the batch's true count, ``kernels={"release": f}``), ``shuffle``
        or ``none``. Kernel keys a family does not consume are refused
        (:func:`bandsim.engines.check_mechanism`).
    summarize : callable (batches: list) -> dict, optional
        Privacy entries over all the batches a run uses (e.g. the worst
        per-batch ε̂), merged into the result's privacy.
    view : str
        What the exact audit looks at (``ŷ``, the aggregate; or one user's
        message for local mechanisms): its noise is ``noise_law``.
    """

    name: str
    summary: str
    source: str
    trust: str
    kind: str
    code: int
    batch: Callable
    takes: tuple = ("epsilon",)
    audit: Callable = None
    audit_points: Callable = None
    noise_law: Callable = None
    claim: Callable = None
    samplers: tuple = ()
    kernels: dict = None
    family: str = "secagg"
    summarize: Callable = None
    view: str = "ŷ"
    user_law: Callable = None
    # --- added for the one-kernel-path / release family (merge: port onto the
    # family base classes). release_law(n, k, fpar) -> (values float64 (V,),
    # probs float64 (V,)): the exact law of kernels["release"](rng, n, k, fpar).
    release_law: Callable = None

    def derive(self, n, params):
        """The batch object for ``n`` users from an algorithm's resolved parameters."""
        return self.batch(n, **{k: params[k] for k in self.takes if k in params})


@dataclass(frozen=True)
class Algorithm:
    """A bandit algorithm's declaration.

    Attributes
    ----------
    name : str
        Canonical name, e.g. ``dp-se``.
    summary : str
        One line for ``bandsim list``.
    trust : str
        Trust model and guarantee, e.g. ``central ε-DP``.
    source : str
        Paper, section and algorithm (cited, never a file path).
    params : tuple of bandsim.params.Param
    plan : callable (params: dict, arms: int, horizon: int) -> plan
        The plan has ``run_shard(rng, shard)`` (``shard`` a
        :class:`bandsim.kernels.shard.Shard` whose output rows it fills), a
        ``stages`` list of dicts, and
        optionally ``shard_runs``, ``notes`` (dict, merged into the result's
        configuration: approximations the engine makes) and ``privacy``.
    engine : str
        ``elimination``, ``per-step``, ``svt``, ``episodic`` or a plug-in's own.
    mechanism : str or None
        Name of the registered mechanism its batches go through.
    rewards : tuple of str
        Reward models it supports; others are refused before any work.
    binary_rewards : bool
        [0, 1] rewards are binarized (one Bernoulli(x) bit per user).
    provisional : bool
        Its specification is only partly pinned (shown in ``bandsim list``).
    family : str
        Non-private counterpart's name for privacy-cost columns (optional).
    decide : numba dispatcher, optional
        The decision rule of an algorithm on the batched decision-rule engine
        (``engine="decision"``; :mod:`bandsim.kernels.decisions`), compiled
        against its signature at registration.
    """

    name: str
    summary: str
    trust: str
    source: str
    params: tuple
    plan: Callable
    engine: str = "elimination"
    mechanism: str = None
    rewards: tuple = REWARD_MODELS
    binary_rewards: bool = False
    provisional: bool = False
    family: str = None
    # --- added for the batched decision-rule engine (merge: port onto the
    # decision-rule family base class): the numba hook called between batches.
    decide: Callable = None

    def resolve(self, given, horizon):
        """Validated parameter values (see :func:`bandsim.params.resolve`)."""
        return resolve(self.params, given, horizon, self.name)

    def param(self, name):
        """The :class:`~bandsim.params.Param` called ``name``, or None."""
        return next((p for p in self.params if p.name == name), None)

    def check_rewards(self, rewards):
        """ConfigError unless this algorithm supports the reward model."""
        if rewards not in self.rewards:
            raise ConfigError("rewards", rewards,
                              f"{self.name} supports {', '.join(self.rewards)} rewards")

    @property
    def private(self):
        return self.mechanism is not None and get_mechanism(self.mechanism).kind != "none"


_ALGORITHMS = {}
_MECHANISMS = {}
_state = {"builtins": False, "plugins": False}


def register(*declarations, replace=False):
    """Register algorithms and mechanisms (built-in or plug-in).

    Parameters
    ----------
    *declarations : Algorithm or Mechanism
    replace : bool
        Allow replacing a declaration of the same name (default: an error).

    Returns
    -------
    The last declaration (so ``register`` can be used as an expression).

    Raises
    ------
    ConfigError
        A name is taken, an algorithm names an unknown mechanism or reward
        model, or an object is neither an Algorithm nor a Mechanism.
    """
    last = None
    for d in declarations:
        if isinstance(d, Mechanism):
            table = _MECHANISMS
        elif isinstance(d, Algorithm):
            table = _ALGORITHMS
            if d.mechanism is not None and d.mechanism not in _MECHANISMS:
                raise ConfigError("mechanism", d.mechanism,
                                  f"algorithm {d.name} needs a registered mechanism "
                                  f"(known: {', '.join(_MECHANISMS)})")
            bad = [r for r in d.rewards if r not in REWARD_MODELS]
            if bad:
                raise ConfigError("rewards", bad[0], f"must be among {', '.join(REWARD_MODELS)}")
        else:
            raise ConfigError("declaration", type(d).__name__,
                              "must be a bandsim.Algorithm or bandsim.Mechanism")
        if d.name in table and not replace and table[d.name] is not d:
            raise ConfigError("name", d.name, "is registered already (pass replace=True)")
        from . import engines  # kernels compiled against their signatures, keys checked

        (engines.check_mechanism if table is _MECHANISMS else engines.check_algorithm)(d)
        if d.name in table and table[d.name] is not d and isinstance(d, Mechanism):
            from .engines import clear

            clear()  # engines rebound to the replaced mechanism's kernels
        table[d.name] = d
        last = d
    return last


def unregister(*names):
    """Remove plug-in declarations by name (algorithms and mechanisms alike).

    Compiled engines rebound to a removed mechanism's kernels are dropped too.
    Unknown names are ignored.
    """
    for name in names:
        _ALGORITHMS.pop(name, None)
        _MECHANISMS.pop(name, None)
    from .engines import clear

    clear()


def _load():
    if not _state["builtins"]:
        _state["builtins"] = True
        from . import mechanisms  # noqa: F401  (they register themselves,
        from . import algorithms  # noqa: F401   mechanisms first)
    if not _state["plugins"]:
        _state["plugins"] = True
        load_plugins()


def load_plugins():
    """Import every installed plug-in (entry-point group ``bandsim.plugins``).

    A plug-in that fails to load is reported as a warning and skipped.
    """
    import importlib
    import warnings
    from importlib.metadata import entry_points

    for ep in entry_points(group="bandsim.plugins"):
        try:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, type(importlib)):
                obj()
        except Exception as e:  # a broken plug-in must not break bandsim
            warnings.warn(f"bandsim plug-in {ep.name!r} ({ep.value}) failed to load: {e}")


def algorithms():
    """name → Algorithm, built-ins first, then plug-ins (registration order)."""
    _load()
    return dict(_ALGORITHMS)


def mechanisms():
    """name → Mechanism."""
    _load()
    return dict(_MECHANISMS)


def get_algorithm(name):
    """The declaration of algorithm ``name`` (a name, or a registered declaration).

    Raises
    ------
    ConfigError
        If ``name`` is not registered (an unregistered :class:`Algorithm` object
        included: results name their algorithm, and the name must lead back to it).
    """
    _load()
    if isinstance(name, Algorithm):  # a declaration: only the registered one of its name
        if _ALGORITHMS.get(name.name) is not name:
            raise ConfigError("algorithm", name.name,
                              "this Algorithm object is not the registered declaration of its "
                              "name: register it first (bandsim.register(algo)) and pass its "
                              "name")
        return name
    if not isinstance(name, str) or name not in _ALGORITHMS:
        raise ConfigError("algorithm", name, f"must be one of {', '.join(_ALGORITHMS)}")
    return _ALGORITHMS[name]


def get_mechanism(name):
    """The declaration of mechanism ``name`` (ConfigError if unknown)."""
    if isinstance(name, Mechanism):
        return name
    _load()
    if name not in _MECHANISMS:
        raise ConfigError("mechanism", name, f"must be one of {', '.join(_MECHANISMS)}")
    return _MECHANISMS[name]


def auditable():
    """Names of the algorithms whose mechanism has an exact audit."""
    return [a.name for a in algorithms().values()
            if a.mechanism and get_mechanism(a.mechanism).audit is not None]


def all_params():
    """Every parameter declared by a registered algorithm: name → Param (first declaration)."""
    out = {}
    for a in algorithms().values():
        for p in a.params:
            out.setdefault(p.name, p)
    return out


__all__ = ["Algorithm", "Mechanism", "REWARD_MODELS", "algorithms", "all_params", "auditable",
           "get_algorithm", "get_mechanism", "load_plugins", "mechanisms", "register",
           "unregister"]
