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
import contextlib
import sys
from dataclasses import dataclass
from typing import Any, Callable

from . import hookcache, provenance, validation
from .errors import ConfigError
from .guarantees import Guarantee
from .params import CONFIDENCE, resolve

#: Reward models an instance can have (kernels.codes.REWARD_MODELS).
REWARD_MODELS = ("bernoulli", "gaussian", "categorical")

#: Kernel keys a plug-in mechanism of each family gives (``Mechanism.kernels``):
#: what the engines consume (as first-class hooks, :mod:`bandsim.kernels.hooks`),
#: with the family's kernel code ``kernels.codes.PLUGIN_CODES[family]``. Any other
#: key is refused at registration, as is a missing one.
KERNEL_KEYS = {"secagg": ("total_noise", "user_noise"), "sum": ("sum_noise",),
               "release": ("release",)}

#: Cost models of a simulation (``Algorithm.cost``): ``horizon`` — O(T) work per run (a decision
#: every pull); ``episodes`` — O(batches) per run (a batch's rewards drawn at once).
COSTS = ("horizon", "episodes")


@dataclass(frozen=True, kw_only=True)
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
    kind : Guarantee or str
        The guarantee, which says what the audit and the accountant do with
        it (:class:`bandsim.guarantees.Guarantee`): ``pure`` (ε-DP of a
        discrete view), ``laplace`` (ε-DP of a continuous Laplace view),
        ``rdp``, ``zcdp``, ``approx`` ((ε, δ)-DP) or ``none``. Also available
        as ``guarantee``.
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
        The exact audit of one batch, when the family's own
        (:meth:`default_audit`) does not apply (``fold_max``: largest modulus folded
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
        signature ``(rng, mech, n, fpar) -> int64``). Exactly the keys of
        :data:`KERNEL_KEYS` for its family; required with ``codes.PLUGIN``.
    family : str
        ``secagg`` (protocol P = (R, S, A) of Chowdhury & Zhou), ``sum``
        (noise on the exact batch sum), ``release`` (a data-dependent release
        from the batch's true count: :class:`bandsim.mechanisms.families.DataDependent`),
        ``shuffle`` or ``none``. Kernel keys a family does not consume are
        refused (:mod:`bandsim.validation`).
    summarize : callable (batches: list) -> dict, optional
        Privacy entries over all the batches a run uses (e.g. the worst
        per-batch ε̂), merged into the result's privacy.
    view : str
        What the exact audit looks at (``ŷ``, the aggregate; or one user's
        message for local mechanisms): its noise is ``noise_law``.
    float_safe : bool or None
        True: the mechanism releases integers (exact arithmetic, the audited
        law is what the program computes); False: it adds float64 Laplace
        noise to a sum, whose low-order bits can reveal the sum (Mironov,
        "On significance of the least significant bits for differential
        privacy", CCS 2012): ε-DP as mathematics, not as an implementation.
        None: not declared (shown as such in ``bandsim list``).
    """

    name: str
    summary: str
    source: str
    trust: str
    kind: Guarantee
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
    float_safe: bool = None

    #: Numba hooks of a mechanism family (``DataDependent.release``): field → (argument types
    #: or None, text); compiled against them when a plug-in registers
    #: (:mod:`bandsim.validation`); the engines bind them like ``kernels``. A mechanism
    #: with a plug-in code (``codes.PLUGIN_CODES``) gives ``kernels`` or its family's hooks.
    hooks = {}

    def __post_init__(self):
        try:
            object.__setattr__(self, "kind", Guarantee(self.kind))
        except ValueError:
            raise ConfigError(f"mechanism {self.name!r} kind", self.kind,
                              f"must be one of {', '.join(g.value for g in Guarantee)}") from None

    def default_audit(self) -> str | None:
        """Which exact audit :mod:`bandsim.privacy.audit` supplies when ``audit`` is not given.

        ``secagg`` (the analyzer's view of the protocol, from ``noise_law``),
        ``laplace-sum`` (Lap(fpar[0]) on a sum, drawn by bandsim's own kernel),
        ``shuffle`` (the binary summation's count), ``release`` (a release
        family's declared ``release_logpmf`` or ``release_law``) or None.
        """
        if self.family == "secagg" and self.noise_law is not None:
            return "secagg"
        if self.family == "sum" and self.kind is Guarantee.LAPLACE and not self.kernels:
            return "laplace-sum"
        if self.family == "shuffle" and self.kind is Guarantee.APPROX and not self.kernels:
            return "shuffle"
        if self.family == "release" and validation.release_laws(self):
            return "release"
        return None

    @property
    def auditable(self):
        """It has an exact audit (its own ``audit`` or its family's)."""
        return self.audit is not None or self.default_audit() is not None

    @property
    def guarantee(self):
        """The :class:`~bandsim.guarantees.Guarantee` (same as ``kind``)."""
        return self.kind

    def derive(self, n: int, params: dict) -> Any:
        """The batch object for ``n`` users from an algorithm's resolved parameters."""
        return self.batch(n, **{k: params[k] for k in self.takes if k in params})


@dataclass(frozen=True, kw_only=True)
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
    cost : str
        Cost model of a simulation (:data:`COSTS`): ``horizon`` (O(T) work
        per run: a decision every pull) or ``episodes`` (O(batches) per run).
    run_cost : bandsim.costs.RunCost or callable (params: dict) -> RunCost, optional
        Measured ns per unit of work of one run (:mod:`bandsim.costs`); the suite's cost.
    participation : callable (params: dict, horizon: int) -> list of Release, optional
        Every noisy release one participation's reward enters (law, scale,
        sensitivity, count; :class:`bandsim.privacy.participation.Release`), as
        the paper's privacy proof states it: what the returning-user
        accountant composes and ``config["privacy"]["per_user"]`` states.
        None: one batch of ``mechanism``.
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
    cost: str = "episodes"
    run_cost: Any = None
    participation: Callable = None

    #: Numba hooks of an engine family: field → (argument types, return type,
    #: text); compiled against it when a plug-in registers (:mod:`bandsim.validation`).
    hooks = {}
    #: ``regret`` or ``identification`` (fixed confidence, :func:`bandsim.simulate_bai`).
    task = "regret"

    def resolve(self, given: dict, horizon: int) -> dict:
        """Validated parameter values (see :func:`bandsim.params.resolve`)."""
        return resolve(self.params, given, horizon, self.name)

    def param(self, name: str) -> Any:
        """The :class:`~bandsim.params.Param` called ``name``, or None."""
        return next((p for p in self.params if p.name == name), None)

    @property
    def confidence(self):
        """The parameter with the confidence role (DP-SE's β, Chowdhury & Zhou's p), or None."""
        return next((p for p in self.params if p.role == CONFIDENCE), None)

    def check_rewards(self, rewards: str) -> None:
        """ConfigError unless this algorithm supports the reward model."""
        if rewards not in self.rewards:
            raise ConfigError("rewards", rewards,
                              f"{self.name} supports {', '.join(self.rewards)} rewards")

    @property
    def private(self):
        return self.mechanism is not None and get_mechanism(self.mechanism).kind.private


#: Where a declaration comes from: ``bandsim`` (built-in), a distribution, or run time.
BUILTIN = "bandsim (built-in)"

_ALGORITHMS = {}
_MECHANISMS = {}
#: (table, name) → provenance dict of the declaration (see :func:`origin`).
_ORIGINS = {}
#: Called after a mechanism is replaced or removed (compiled engines rebound to it).
_ON_CHANGE = []
#: builtins: 0 not yet, 1 registering, 2 sealed; plugins: entry points loaded.
_state = {"builtins": 0, "plugins": False}
#: The plug-in whose entry point is loading: its declarations are staged here and
#: committed together when it returns (all or none).
_staging = []
#: Loads the installed plug-ins (bandsim.loading registers it; the registry imports nothing
#: above it).
_LOADER = []


class _Stage:
    def __init__(self, source):
        self.source = source  # provenance dict: distribution, version, entry_point, module
        self.mechanisms = {}
        self.algorithms = {}


def _tables():
    """(mechanisms, algorithms) visible now: committed plus the loading plug-in's."""
    if _staging:
        st = _staging[-1]
        return {**_MECHANISMS, **st.mechanisms}, {**_ALGORITHMS, **st.algorithms}
    return _MECHANISMS, _ALGORITHMS


def _owner(table, name):
    o = _ORIGINS.get((table, name))
    if o is None:
        return "an unknown source"
    if o["distribution"] == BUILTIN:
        return BUILTIN
    return f"{o['distribution']} {o.get('version') or ''}".strip()


def on_change(callback):
    """Call ``callback()`` whenever a mechanism is replaced or removed (engine caches)."""
    _ON_CHANGE.append(callback)


def _changed():
    for cb in _ON_CHANGE:
        cb()


def register(*declarations: "Algorithm | Mechanism", replace: bool = False) -> None:
    """Register algorithms and mechanisms (built-in or plug-in).

    All the declarations of one call are validated first and then registered
    together (none if one is refused). Inside a plug-in's entry point they are
    staged and committed when the entry point returns, so a plug-in package
    is registered whole or not at all.

    Parameters
    ----------
    *declarations : Algorithm or Mechanism
    replace : bool
        Allow replacing a plug-in declaration of the same name (default: an
        error). Built-ins are never replaced.

    Returns
    -------
    The last declaration (so ``register`` can be used as an expression).

    Raises
    ------
    ConfigError
        A name is taken (naming who holds it), a field is invalid (one line
        naming the declaration and the field: :mod:`bandsim.validation`), an
        algorithm names an unknown mechanism or reward model, or an object is
        neither an Algorithm nor a Mechanism.
    """
    mechs, algos = _tables()
    mechs, algos = dict(mechs), dict(algos)
    builtin = _state["builtins"] == 1
    new = []
    for d in declarations:
        if isinstance(d, Mechanism):
            table, kind = mechs, "mechanism"
        elif isinstance(d, Algorithm):
            table, kind = algos, "algorithm"
        else:
            raise ConfigError("declaration", type(d).__name__,
                              "must be a bandsim.Algorithm or bandsim.Mechanism")
        validation.check(d, mechs, kernel_keys=KERNEL_KEYS, reward_models=REWARD_MODELS,
                         costs=COSTS, compile_hooks=not builtin)
        old = table.get(d.name)
        if old is not None and old is not d:
            owner = _owner(kind, d.name)
            staged_here = _staging and d.name in getattr(_staging[-1], kind + "s")
            if owner == BUILTIN and not builtin:
                raise ConfigError("name", d.name, f"{kind} {d.name!r} is registered already "
                                                  f"by {BUILTIN}: built-ins cannot be "
                                                  "replaced, choose another name")
            if not replace and not staged_here:
                raise ConfigError("name", d.name, f"is registered already by {owner} "
                                                  "(pass replace=True to replace it)")
        table[d.name] = d
        new.append((kind, d))
    if _staging:
        st = _staging[-1]
        for kind, d in new:
            getattr(st, kind + "s")[d.name] = d
    else:
        source = _runtime_source(declarations) if not builtin else dict(distribution=BUILTIN)
        _commit(new, source)
    return new[-1][1] if new else None


def _commit(new, source):
    replaced = False
    for kind, d in new:
        table = _MECHANISMS if kind == "mechanism" else _ALGORITHMS
        replaced |= kind == "mechanism" and table.get(d.name) not in (None, d)
        table[d.name] = d
        _ORIGINS[(kind, d.name)] = hookcache.with_reach(source, d, BUILTIN)
    if replaced:
        _changed()


def _runtime_source(declarations):
    """Provenance of declarations registered at run time: the modules that define them."""
    return provenance.of_declarations(declarations)


def unregister(*names: str) -> None:
    """Remove plug-in declarations by name (algorithms and mechanisms alike).

    Compiled engines rebound to a removed mechanism's kernels are dropped too.
    Unknown names and built-ins are ignored.
    """
    for name in names:
        for kind, table in (("algorithm", _ALGORITHMS), ("mechanism", _MECHANISMS)):
            if name in table and _owner(kind, name) != BUILTIN:
                table.pop(name)
                _ORIGINS.pop((kind, name), None)
    _changed()


def seal_builtins():
    """Mark the built-ins complete (``bandsim/__init__``); plug-ins load after, when looked up."""
    _state["builtins"] = 2


def begin_builtins():
    """Declarations registered from now until :func:`seal_builtins` are built-ins."""
    if _state["builtins"] == 0:
        _state["builtins"] = 1


def _load(missing=False):  # plugins: False, True (loaded or disabled), "deferred" (for a name)
    if _state["builtins"] == 2 and not _staging and _state["plugins"] in (False, missing and "deferred"):
        _state["plugins"] = True
        load_plugins()


def plugins_loaded(loaded=True):
    """Mark plug-ins loaded, not loading them (``plugin check``, ``--no-plugins``), or
    ``"deferred"`` (loaded only by a look-up of a name not registered); returns the old mark."""
    was, _state["plugins"] = _state["plugins"], loaded
    return was


def load_plugins():
    """Load every installed plug-in (:func:`bandsim.loading.load_plugins`)."""
    if _LOADER:
        _LOADER[0]()


def set_loader(loader):
    """The function that loads installed plug-ins (set by :mod:`bandsim.loading`)."""
    _LOADER[:] = [loader]


@contextlib.contextmanager
def staged(source):
    """Stage every :func:`register` call inside the block (yields the stage).

    The declarations are validated when registered but only visible to
    look-ups inside the block; :func:`commit` registers them together.
    stdout goes to stderr meanwhile (a plug-in's prints cannot corrupt
    ``--json`` output).
    """
    stage = _Stage(source)
    _staging.append(stage)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield stage
    finally:
        _staging.pop()


def commit(stage):
    """Register a stage's declarations together, or none if a name is taken (ConfigError)."""
    _commit_stage(stage)


def declarations(stage):
    """The staged declarations (mechanisms first) of a stage."""
    return list(stage.mechanisms.values()) + list(stage.algorithms.values())


def _commit_stage(stage):
    """Register a loaded plug-in's declarations, or none if a name is taken (ConfigError)."""
    for kind, table in (("mechanism", _MECHANISMS), ("algorithm", _ALGORITHMS)):
        for name in getattr(stage, kind + "s"):
            if name in table:
                raise ConfigError(
                    "name", name, f"its {kind} {name!r} is registered already by "
                                  f"{_owner(kind, name)}; the newcomer is skipped")
    _commit([("mechanism", d) for d in stage.mechanisms.values()]
            + [("algorithm", d) for d in stage.algorithms.values()], stage.source)


def origin(name, kind="algorithm"):
    """Provenance of a registered declaration (dict).

    Keys: ``distribution`` (``bandsim (built-in)`` for built-ins), ``version``,
    ``entry_point`` (plug-ins loaded from one), ``modules``, ``sha256`` (of their
    sources) and ``reach`` (plug-ins: :func:`bandsim.hookcache.declaration_reach`).
    """
    _load()
    return dict(_ORIGINS.get((kind, name), dict(distribution="unknown")))


def is_builtin(name, kind="algorithm"):
    """True for bandsim's own declarations."""
    return _ORIGINS.get((kind, name), {}).get("distribution") == BUILTIN


def plugin_provenance(algo):
    """Provenance of the plug-in code behind an algorithm (list of dicts; [] for built-ins).

    The algorithm's own origin, and its mechanism's when that is a plug-in's:
    recorded in every result's configuration (``config["plugins"]``), so the
    store key changes when the plug-in's code does.
    """
    out = []
    for kind, name in (("algorithm", algo.name), ("mechanism", algo.mechanism)):
        if name is None or is_builtin(name, kind):
            continue
        o = origin(name, kind)
        if o not in out:
            out.append(dict(o, declares=f"{kind} {name}"))
    return out


def algorithms(task="regret"):
    """name → Algorithm of ``task`` (``regret`` or ``identification``), built-ins first, then
    plug-ins (registration order)."""
    _load()
    return {n: a for n, a in _tables()[1].items() if a.task == task}


def mechanisms():
    """name → Mechanism."""
    _load()
    return dict(_tables()[0])


def get_algorithm(name: "str | Algorithm") -> "Algorithm":
    """The declaration of algorithm ``name`` (a name, or a registered declaration).

    Raises
    ------
    ConfigError
        If ``name`` is not registered (an unregistered :class:`Algorithm` object
        included: results name their algorithm, and the name must lead back to it).
    """
    algos = _tables()[1] if not isinstance(name, str) or name in _tables()[1] else _load(True) or _tables()[1]
    if isinstance(name, Algorithm):  # a declaration: only the registered one of its name
        if algos.get(name.name) is not name:
            raise ConfigError("algorithm", name.name,
                              "this Algorithm object is not the registered declaration of its name: "
                              "register it first (bandsim.register(algo)) and pass its name")
        return name
    if (task := getattr(algos.get(name), "task", None) if isinstance(name, str) else None) != "regret":
        raise ConfigError("algorithm", name, f"must be one of {', '.join(algorithms())}" if task != "identification"
                          else f"is a best-arm identification algorithm: bandsim.simulate_bai or `bandsim run {name} --delta D`")
    return algos[name]


def get_mechanism(name: "str | Mechanism") -> "Mechanism":
    """The declaration of mechanism ``name`` (ConfigError if unknown)."""
    if isinstance(name, Mechanism):
        return name
    mechs = _tables()[0] if name in _tables()[0] else _load(True) or _tables()[0]
    if name not in mechs:
        raise ConfigError("mechanism", name, f"must be one of {', '.join(mechs)}")
    return mechs[name]


def loading_plugin():
    """True while a plug-in's entry point runs (simulations then use one thread)."""
    return bool(_staging)


def auditable():
    """Names of the algorithms whose mechanism has an exact audit."""
    return [a.name for a in algorithms().values()
            if a.mechanism and get_mechanism(a.mechanism).auditable]


def all_params():
    """Every parameter declared by a registered algorithm: name → Param (first declaration).

    Built-ins come first, so a plug-in's parameter of the same name never
    changes a built-in flag's help or range.
    """
    out = {}
    for a in algorithms().values():
        for p in a.params:
            out.setdefault(p.name, p)
    return out


__all__ = ["Algorithm", "BUILTIN", "KERNEL_KEYS", "Mechanism", "REWARD_MODELS", "algorithms",
           "all_params", "auditable", "get_algorithm", "get_mechanism", "is_builtin", "load_plugins",
           "mechanisms", "origin", "plugin_provenance", "register", "unregister"]
