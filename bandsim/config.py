"""The resolved configuration of a simulation: typed, frozen, lossless to and from JSON.

``Result.config`` is a :class:`RunConfig`: a read-only ``dict`` (so
``json.dumps(res.config)`` and ``config["privacy"]`` work as they always
did) whose fields every run has are typed attributes. The notes an engine
or an instance adds (the approximations they make, the instance's
provenance, the samplers) are the remaining keys, :attr:`RunConfig.notes`.
"""

#: The fields every run has, with their types.
FIELDS = {"algorithm": str, "instance": str, "arms": int, "rewards": str, "horizon": int,
          "runs": int, "seed": int, "shard_runs": int, "params": dict, "trust": str,
          "reference": str, "stages": list, "privacy": dict}


class RunConfig(dict):
    """Everything that determined a simulation (and nothing that did not).

    Attributes
    ----------
    algorithm : str
        Registered name.
    instance : str
        Instance name (``C2``, ``easy``, ``means``, an instance file's name).
    arms : int
        K.
    rewards : str
        ``bernoulli``, ``gaussian`` or ``categorical``.
    horizon : int
        T.
    runs : int
        Independent runs.
    seed : int
        Root seed of the ``numpy.random.SeedSequence``.
    shard_runs : int
        Runs per shard (one Generator each); results depend on it, never on
        the number of threads.
    params : dict
        The algorithm's resolved parameters.
    trust : str
        Trust model and guarantee.
    reference : str
        The paper, section and algorithm.
    stages : list of dict
        Per-stage parameters for reports.
    privacy : dict
        The claimed guarantee and the exact audit of the largest batch.
    notes : dict
        Every other key: what the engine, the mechanism or the instance
        records (arm locations, categorical laws, σ, approximations and their
        bounds, the instance file's provenance, sampler provenance, …).

    Raises
    ------
    TypeError
        On any attempt to modify it (it is frozen), or a field of the wrong type.
    KeyError
        When a field is missing (:meth:`from_dict`).
    """

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        for name, typ in FIELDS.items():
            if name not in self:
                raise KeyError(f"RunConfig needs the field {name!r}")
            if not isinstance(self[name], typ) or (typ is int and isinstance(self[name], bool)):
                raise TypeError(f"RunConfig.{name} must be {typ.__name__}, "
                                f"not {type(self[name]).__name__}")

    @classmethod
    def from_dict(cls, d):
        """A RunConfig from a plain dict (e.g. ``json.loads`` of a stored one)."""
        return cls(d)

    def to_dict(self):
        """A plain (mutable) dict copy, as written to Parquet."""
        return dict(self)

    @property
    def notes(self):
        """The keys that are not fields (dict copy)."""
        return {k: v for k, v in self.items() if k not in FIELDS}

    def __getattr__(self, name):
        if name in FIELDS:
            return self[name]
        raise AttributeError(name)

    def _frozen(self, *args, **kw):
        raise TypeError("RunConfig is frozen: copy it with dict(config) to change it")

    __setitem__ = __delitem__ = __setattr__ = __delattr__ = _frozen
    clear = pop = popitem = setdefault = update = __ior__ = _frozen

    def __reduce__(self):
        return (type(self), (dict(self),))


__all__ = ["FIELDS", "RunConfig"]
