"""Checks (g) and (h) of the whole-run audit, run together on one many-run sample.

:func:`many_run` records many runs (:func:`bandsim.wholerun.laws.record_many`),
tests every release class's law (:func:`bandsim.wholerun.laws.law_tests`) and
every pair class's independence (:func:`bandsim.wholerun.pairs.independence`),
all p-values judged together at 10⁻⁶ (Bonferroni), and names the declared
structures no recorded run reached. Classes thin at the audited T get more
runs at shorter horizons (:func:`bandsim.wholerun.budget.top_up`) and every
class's draws are counted (:func:`bandsim.wholerun.budget.floors`).
"""
from .budget import floors, top_up
from .laws import WORK, law_tests, record_many
from .pairs import THRESHOLDS, independence


def many_run(audit, instances, work=WORK):
    """Checks (g) and (h) of the whole-run audit: record many runs, test every class's law
    and every pair class's independence.

    Parameters
    ----------
    audit : bandsim.wholerun.replay._Audit
    instances : sequence of tuple of float
        Arm means of the instances recorded.
    work : float
        Budget per instance (:data:`WORK`).

    Returns
    -------
    tests : Tests
        Judge with :meth:`Tests.failures`; :func:`power` says what it could detect.
    missing : list of str
        Declared structures no recorded run reached (a second SVT instance).
    runs : int
        Runs recorded.
    """
    sample = record_many(audit, instances, work)
    audit.scales(sample)  # check (c) on every class the many runs reached
    sample = top_up(audit, sample, tuple(instances[0]), work)  # thin classes, shorter T
    tests, u = law_tests(sample, audit.algo, audit.params, audit.spec, audit.seed)
    tests.floors = floors(sample.rel, sample.val)
    names = independence(tests, sample, u)
    missing = []
    if audit.declared.svt and THRESHOLDS not in names:
        missing.append("a second SVT instance (no recorded run opened one: the threshold's "
                       "redraw was not checked)")
    return tests, missing, sample.runs


__all__ = ["many_run"]
