"""The resolved configuration of a simulation: typed, frozen, lossless to and from JSON.

``Result.config`` is a :class:`RunConfig`. It reads like the plain dict it
serializes to (``config["privacy"]``, ``config.get("sigma")``), so results
written by earlier versions load unchanged; the fields every run has are
typed attributes, and the notes an engine or an instance adds (the
approximations they make, the instance's provenance) live in ``notes``.
"""
from collections.abc import Mapping
from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class RunConfig(Mapping):
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
        Reward model: ``bernoulli``, ``gaussian`` or ``categorical``.
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
        Everything else the engine, the mechanism or the instance records
        (arm locations, categorical laws, σ, approximations and their bounds,
        the instance file's provenance, sampler provenance, …).
    """

    algorithm: str
    instance: str
    arms: int
    rewards: str
    horizon: int
    runs: int
    seed: int
    shard_runs: int
    params: dict
    trust: str
    reference: str
    stages: list = field(default_factory=list)
    privacy: dict = field(default_factory=dict)
    notes: dict = field(default_factory=dict)

    def to_dict(self):
        """The plain, JSON-ready dict (notes flattened in), as written to Parquet."""
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "notes"}
        d.update(self.notes)
        return d

    @classmethod
    def from_dict(cls, d):
        """Inverse of :meth:`to_dict` (keys that are not fields go to ``notes``)."""
        names = {f.name for f in fields(cls)} - {"notes"}
        return cls(**{k: v for k, v in d.items() if k in names},
                   notes={k: v for k, v in d.items() if k not in names})

    def __getitem__(self, key):
        if key in self.notes:
            return self.notes[key]
        if key == "notes" or key not in {f.name for f in fields(self)}:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self):
        return iter(self.to_dict())

    def __len__(self):
        return len(self.to_dict())


__all__ = ["RunConfig"]
