"""What one participation of a user releases: the list every algorithm declares.

An algorithm's ``participation`` declaration (:class:`bandsim.Algorithm`) is a
callable ``(params, horizon) -> list of Release``: every noisy release the
reward of one participation (one pull, one user of a batch) enters, with its
noise law, scale, sensitivity and count, as the paper's privacy proof states
it. The returning-user accountant (:mod:`bandsim.privacy.accountant`)
composes exactly this list, B times; the ``per_user`` text of every result's
``config["privacy"]`` is generated from it (:func:`per_user_text`).

Releases with a ``case`` label are alternatives: the reward enters the
releases of one case (e.g. DP-TS's epoch r) plus every release without a
label. The accountant composes each case and reports the worst, naming it.

Laws
----
``laplace``
    Continuous Laplace of scale ``scale`` on a statistic of sensitivity
    ``sensitivity``: ε = sensitivity/scale per release.
``svt``
    One above-threshold sparse-vector instance: threshold noise
    Lap(``scale``), query noise Lap(``query_scale``), queries of sensitivity
    ``sensitivity``: ε = Δ/scale + 2Δ/query_scale (Lyu, Su & Li, "Understanding
    the Sparse Vector Technique for Differential Privacy", VLDB 2017, Alg. 1;
    Sajed (2019), Theorem A.1.1).
``batch``
    One batch of the algorithm's registered mechanism (the SecAgg, central,
    local and shuffle protocols): composed as that mechanism's per-batch
    guarantee (:class:`bandsim.privacy.accountant.Composition`).

References
----------
Hu & Hegde (UAI 2022), Theorem 1; Sajed (MSc thesis 2019), Algorithms 5, 6,
9, 10; Chowdhury & Zhou (ICLR 2023), Appendix H; dp-accounting (Google).
"""
from typing import Callable

import math
from dataclasses import dataclass

#: Laws a Release may have.
LAWS = ("laplace", "svt", "batch")

#: One line when dp-accounting is missing (instead of a traceback).
NEEDS_DP_ACCOUNTING = ("needs the dp-accounting package, a dependency of bandsim: pip install "
                       "dp-accounting (or reinstall bandsim with its privacy extra)")


@dataclass(frozen=True)
class Release:
    """One kind of noisy release a participation's reward enters.

    Attributes
    ----------
    law : str
        One of :data:`LAWS`.
    what : str
        The released statistic, e.g. ``"the epoch's reward sum"``.
    scale : float
        Laplace scale b (``svt``: of the threshold), in reward-sum units.
    sensitivity : float
        Largest change of the statistic when the reward changes within [0, 1].
    count : int
        Releases of this kind the reward enters.
    case : str
        Label of the alternative this release belongs to ("" = every case).
    query_scale : float
        ``svt``: Laplace scale of every query's noise.
    positions : tuple of (int, int)
        Where the engine's recorder logs releases of this kind: (tag, n) — its
        tag (tree level, epoch, SVT instance) and the number of rewards its
        statistic covers (:mod:`kernels.record`). Empty: at any position. The
        whole-run audit's check (c) compares every recorded scale with the
        scales declared for its own position (:mod:`bandsim.wholerun.replay`).
    """

    law: str
    what: str
    scale: float = math.nan
    sensitivity: float = 1.0
    count: int = 1
    case: str = ""
    query_scale: float = math.nan
    positions: tuple = ()

    def at(self, tag: int, n: int) -> bool:
        """Releases of this kind may be recorded with ``tag`` and ``n`` (:attr:`positions`)."""
        return not self.positions or (int(tag), int(n)) in self.positions

    @property
    def epsilon(self):
        """Pure ε of all ``count`` releases by basic composition (nan for ``batch``)."""
        if self.law == "laplace":
            return self.count * self.sensitivity / self.scale
        if self.law == "svt":
            return self.count * (self.sensitivity / self.scale
                                 + 2 * self.sensitivity / self.query_scale)
        return math.nan

    def describe(self) -> str:
        """One phrase, e.g. ``2 × Lap(8) on the nodes (sensitivity 1)``."""
        if self.law == "batch":
            return f"{self.what} (one batch of its mechanism)"
        times = f"{self.count} × " if self.count != 1 else ""
        if self.law == "svt":
            return (f"{times}SVT (threshold Lap({self.scale:.6g}), queries "
                    f"Lap({self.query_scale:.6g})) on {self.what} (sensitivity "
                    f"{self.sensitivity:g}; ε = {self.epsilon:.6g})")
        return (f"{times}Lap({self.scale:.6g}) on {self.what} (sensitivity {self.sensitivity:g}; "
                f"ε = {self.epsilon:.6g})")


def per_batch(what: str = "its batch sum") -> Callable[[dict, int], list]:
    """The participation of algorithms whose only release is one batch of their mechanism."""
    def participation(params: dict, horizon: int) -> list:
        return [Release("batch", what)]

    participation.__doc__ = f"One batch of the mechanism: {what}."
    participation.batch_only = True  # composed as the mechanism's batch (its exact audit)
    return participation


def declares_releases(algo):
    """``algo`` declares releases of its own (not only one batch of its mechanism)."""
    fn = getattr(algo, "participation", None)
    return fn is not None and not getattr(fn, "batch_only", False)


def laplace_participation(what: str) -> Callable[[dict, int], list]:
    """The participation of algorithms whose reward enters one disjoint sum released
    + Lap(1/ε) (sensitivity 1), e.g. an episode's reward sum."""
    def participation(params: dict, horizon: int) -> list:
        return [Release("laplace", what, 1 / params["epsilon"])]

    participation.__doc__ = f"One Lap(1/ε) release of {what}."
    return participation


def cases(releases):
    """label → releases of that case (common releases included); {"": all} if no case."""
    common = [r for r in releases if not r.case]
    labels = list(dict.fromkeys(r.case for r in releases if r.case))
    if not labels:
        return {"": common}
    return {lab: common + [r for r in releases if r.case == lab] for lab in labels}


def releases_of(algo, params, horizon):
    """The declared list of ``algo`` (a per-batch release when it declares none)."""
    fn = getattr(algo, "participation", None)
    out = list(fn(params, horizon)) if fn is not None else [Release("batch", "its batch sum")]
    for r in out:
        if r.law not in LAWS:
            raise ValueError(f"{algo.name}: participation release law {r.law!r} is not one of "
                             f"{LAWS}")
    return out


def per_user_text(releases, algorithm, epsilon=None, horizon=None):
    """``config["privacy"]["per_user"]``: what one participation releases, from the list."""
    eps = f" --epsilon {epsilon:g}" if isinstance(epsilon, (int, float)) else ""
    hor = f" --horizon {horizon}" if horizon else ""
    cmd = f"`bandsim audit {algorithm}{eps}{hor} --returning B --target-delta D`"
    if all(r.law == "batch" for r in releases):
        return ("each user contributes to one batch (parallel composition); for users "
                f"returning in B batches see {cmd}")
    by_case = cases(releases)
    common = [r.describe() for r in releases if not r.case]
    text = "each reward enters " + "; ".join(common) if common else "each reward enters"
    if len(by_case) > 1 or next(iter(by_case)):
        eps = {lab: sum(r.epsilon for r in rs) for lab, rs in by_case.items()}
        worst = max(eps, key=eps.get)
        one = [r for r in releases if r.case == worst]
        labels = list(by_case)
        span = ", ".join(labels) if len(labels) <= 3 else f"{labels[0]} … {labels[-1]}"
        text += (f"; and, in one of {len(labels)} cases ({span}), the releases of that case, "
                 f"e.g. {worst}: " + "; ".join(r.describe() for r in one))
    total = max(sum(r.epsilon for r in rs) for rs in by_case.values())
    return (f"{text}. One participation is {total:.6g}-DP by basic composition of these "
            f"releases (and no others: parallel composition across rewards); for users "
            f"returning B times see {cmd}")


def pld(releases, interval):
    """The privacy-loss distribution of one participation (one case), by dp-accounting.

    Parameters
    ----------
    releases : list of Release
        ``laplace`` and ``svt`` releases (``svt`` as a pure ε-DP block).
    interval : float
        Value discretization interval of the PLD.

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
    """
    from dp_accounting import dp_event  # noqa: F401  (dp-accounting present)
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as PLD

    out = None
    for r in releases:
        if r.law == "laplace":
            one = PLD.from_laplace_mechanism(r.scale, sensitivity=r.sensitivity,
                                             value_discretization_interval=interval)
        elif r.law == "svt":
            one = PLD.from_privacy_parameters(
                common.DifferentialPrivacyParameters(r.epsilon / r.count, 0.0),
                value_discretization_interval=interval)
        else:
            raise ValueError(f"no PLD for a {r.law!r} release")
        one = one.self_compose(r.count) if r.count > 1 else one
        out = one if out is None else out.compose(one)
    return out


__all__ = ["LAWS", "NEEDS_DP_ACCOUNTING", "Release", "cases", "declares_releases",
           "laplace_participation", "per_batch", "per_user_text", "pld", "releases_of"]
