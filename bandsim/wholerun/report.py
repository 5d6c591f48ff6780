"""The verdict of the whole-run audit (:func:`bandsim.wholerun.audit`) and what it could detect.

Verdicts: ``PASS``; ``FAIL`` (a check failed: one line per failure, naming
the release or the release class and the check); ``incomplete`` (every
check passed, but a declared release no neighbour entered, a release class
— law, tag, scale: a tree level, an epoch — the audited runs made and no
neighbour's reward entered (:mod:`bandsim.wholerun.coverage`), or a declared
structure no recorded run reached — e.g. a second SVT instance: nothing was
checked of it); ``inconclusive`` (every check passed, but the budget was too
small to detect even a halved noise scale in its best-sampled release
class, or some release class's law was tested from fewer than 1,000 draws
even pooled with the other positions of its law and scale:
:func:`bandsim.wholerun.budget.floors`); ``not auditable``; ``not
private``. Every verdict states its power
(:func:`bandsim.wholerun.laws.power_text`; short:
:func:`bandsim.wholerun.cache.power_cell`): the noise-scale deficit
detected with probability 0.99 in the best-sampled class and in every law,
the correlation detected in every pair class, and the fewest draws a law
was tested from — all computed from the realised counts.
"""
import math
from dataclasses import dataclass, field


@dataclass
class WholeRunReport:
    """Verdict of the whole-run audit of one algorithm at one setting.

    Attributes
    ----------
    algorithm : str
    params : dict
        Resolved parameters audited.
    horizon : int
        T of the audited runs.
    verdict : str
        ``PASS``, ``FAIL``, ``incomplete``, ``inconclusive``, ``not private`` or
        ``not auditable``.
    failures : list of str
        One line per failed check, naming the release (class) and the check.
    neighbours : int
        Neighbouring pairs replayed.
    releases : int
        Releases of the reference run.
    epsilon : float
        Largest composed ε (basic) over the neighbours; nan if none entered.
    claimed : float
        The claimed ε (nan for batch-only declarations).
    seconds : float
        Wall time of the audit.
    reason : str
        Why it is not auditable, incomplete or inconclusive (or empty).
    sampled_sizes : list of int
        Batch sizes at which an untrusted (plug-in) sampler was sampled.
    unsampled_sizes : list of int
        Its recorded batch sizes too large to sample (above
        :data:`bandsim.wholerun.samplers.MAX_N`).
    unexercised : list of str
        Declared releases or structures no neighbour or recorded run entered.
    runs : int
        Runs recorded for checks (g) and (h).
    power : dict
        What the budget could detect (:func:`bandsim.wholerun.laws.power`).
    detects : str
        The same in one line.
    """

    algorithm: str
    params: dict
    horizon: int
    verdict: str
    failures: list = field(default_factory=list)
    neighbours: int = 0
    releases: int = 0
    epsilon: float = math.nan
    claimed: float = math.nan
    seconds: float = 0.0
    reason: str = ""
    sampled_sizes: list = field(default_factory=list)
    unsampled_sizes: list = field(default_factory=list)
    unexercised: list = field(default_factory=list)
    runs: int = 0
    power: dict = field(default_factory=dict)
    detects: str = ""

    def to_dict(self):
        """JSON-ready summary (for ``config["privacy"]`` and ``--json``)."""
        out = dict(verdict=self.verdict, horizon=self.horizon, neighbours=self.neighbours,
                   releases=self.releases, seconds=round(self.seconds, 3))
        if self.failures:
            out["failures"] = self.failures[:20]
        if self.reason:
            out["reason"] = self.reason
        if self.sampled_sizes:
            out["sampled_batch_sizes"] = self.sampled_sizes
        if self.unsampled_sizes:
            out["unsampled_batch_sizes"] = self.unsampled_sizes
        if self.unexercised:
            out["unexercised"] = self.unexercised
        if self.runs:
            out["runs"] = self.runs
        if self.power:
            out["power"] = self.power
        if self.detects:
            out["detects"] = self.detects
        for key in ("epsilon", "claimed"):
            v = float(getattr(self, key))
            if math.isfinite(v):
                out[key] = v
        return out


__all__ = ["WholeRunReport"]
