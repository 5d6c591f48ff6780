"""Far replays of check (a): the reference run replayed on datasets that move every true statistic.

Check (a) of the whole-run audit (:mod:`bandsim.wholerun.checks`) replays a
recorded run on other datasets with every release frozen to its recorded
value: an engine whose control flow reads only its releases takes every
decision again. The mirror x → 1 − x alone moves the sums but keeps what a
comparison between arms reads — the gap between two arms' sums of equal
counts is the same up to sign, and |gap|, max − min and the range of the
sums are unchanged — so a decision that branches on a true gap passes it.
:data:`TRANSFORMS` therefore also replays on datasets, made from the same
draws (the random stream stays aligned), whose per-arm map x → shift_a +
gain_a·x (:mod:`kernels.record`) moves every true statistic a decision
could read:

* every reward 0, and every reward 1: every sum at an end, every gap 0;
* alternating arms at 1 and 0 (and 0 and 1): every gap between neighbouring
  arms at its largest, the orderings both ways;
* each arm's rewards the constant of the mirror-image arm (the instance's
  means reversed): arms' orderings swapped;
* the first arm shifted up by ½, the others halved: the gaps moved by about
  n/2 with the draws' variation kept.

A decision reading any true statistic that is not constant over these
datasets (a sum, a mean, a gap, an ordering, a range) takes another branch
on at least one of them, unless its outcome agrees on all seven.

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries" (PETS 2026),
record and replay on neighbouring and far inputs.
"""
from ..kernels import codes


def transforms(means):
    """The far datasets of check (a) for an instance of arm means ``means``.

    Parameters
    ----------
    means : sequence of float (K,)
        The recorded run's arm means, each in [0, 1].

    Returns
    -------
    list of (str, list of float, list of float)
        (description, shift, gain): arm a's rewards x → shift[a % L] +
        gain[a % L]·x, each in [0, 1].
    """
    k = len(means)
    rev = [float(m) for m in reversed(means)]
    return [
        ("the mirrored dataset (every reward x → 1 − x)", [1.0], [-1.0]),
        ("the dataset with every reward 0", [0.0], [0.0]),
        ("the dataset with every reward 1", [1.0], [0.0]),
        ("the dataset with arms alternately at 1 and 0", [1.0, 0.0], [0.0, 0.0]),
        ("the dataset with arms alternately at 0 and 1", [0.0, 1.0], [0.0, 0.0]),
        ("the dataset with the arms' means reversed (arm a's rewards = mean of arm "
         "K − 1 − a)", rev, [0.0] * k),
        ("the dataset with the first arm's rewards shifted x → ½ + x/2 and the others "
         "halved", [0.5] + [0.0] * (k - 1), [0.5] * k),
    ]


def far_replays(audit, ref):
    """Replay ``ref`` (the reference run of ``audit``) on every dataset of
    :func:`transforms`, releases frozen; check (a) on each. How many were replayed."""
    out = 0
    for what, shift, gain in transforms(audit.means):
        rep = audit.play(mode=codes.REPLAY, frozen=ref.values, shift=shift, gain=gain)
        audit.same_decisions(ref, rep, f"on {what}")
        out += 1
    return out


__all__ = ["far_replays", "transforms"]
