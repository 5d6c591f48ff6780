"""Exact laws in log space: randomized response passes the exact audit at every batch size,
and an ε = inf verdict from underflow is impossible (n = 10⁵)."""
import dataclasses
import math

import numpy as np
import pytest
from scipy import special, stats

import bandsim
from bandsim.cli import main
from bandsim.privacy.logconv import log_convolve
from bandsim.privacy.pmf import _log_conv
from bandsim.privacy.release import log_law_of, pair_log_ratio
from bandsim.registry import get_mechanism, unregister
from tests.conftest import doc_example

NAMES = ("rr", "rr-se", "rr-weak", "rr-weak-se", "rr-probs", "rr-probs-se", "rr-leaky",
         "rr-leaky-se")


def rr_probs(n, k, fpar):
    """The law as plain probabilities (the old API, as example (e) had it): tails underflow."""
    p = fpar[0]
    return ((np.arange(n + 1) - p * n) / (1.0 - 2.0 * p),
            np.convolve(stats.binom.pmf(np.arange(k + 1), k, 1 - p),
                        stats.binom.pmf(np.arange(n - k + 1), n - k, p)))


@pytest.fixture(scope="module")
def rr():
    """Example (e) of docs/plugins.md as written, plus twins declaring other laws."""
    ns = doc_example("def rr_logpmf", "docs_rr_example")
    twin(ns, "rr-probs", release_law=rr_probs, release_logpmf=None, report_probs=None)
    twin(ns, "rr-leaky", release_logpmf=leaky(ns["rr_logpmf"]))
    yield ns
    unregister(*NAMES)


def twin(ns, name, **fields):
    """Register mechanism ``name`` (example (e)'s rr with ``fields`` replaced) and
    ``name-se``, batched SE over it."""
    spec, algo = get_mechanism("rr"), bandsim.registry.get_algorithm("rr-se")
    bandsim.register(dataclasses.replace(spec, name=name, batch=ns["rr_batch"](name), **fields),
                     replace=True)
    bandsim.register(dataclasses.replace(
        algo, name=f"{name}-se", mechanism=name,
        plan=lambda prm, arms, horizon: ns["plan_protocol"](name, prm, arms, horizon)),
        replace=True)


def leaky(logpmf):
    """A law wrong only in a tail far below any float: at k = n, "everyone reports a zero"
    (truly p^n = e^{-1345} at n = 1024) is declared e^{-600} times rarer. Plain
    probabilities see 0 against 0 there; log-probabilities see a log-ratio of ~600."""
    def law(n, k, fpar):
        values, lp = logpmf(n, k, fpar)
        if k == n:
            lp = lp.copy()
            lp[0] -= 600.0
        return values, lp
    return law


def _batch(name, n, epsilon=1.0):
    return get_mechanism(name).derive(n, {"epsilon": epsilon})


def test_log_convolve_is_exact_in_every_tail():
    p = 1 / (1 + math.e)
    for n, k in ((40, 0), (40, 17), (700, 350), (1024, 1)):
        a = stats.binom.logpmf(np.arange(k + 1), k, 1 - p)
        b = stats.binom.logpmf(np.arange(n - k + 1), n - k, p)
        got, ref = log_convolve(a, b), _log_conv(a, b, 0, 0, 0, n + 1)  # exact log sums
        assert np.all(np.abs(got - ref) <= 1e-12 * np.maximum(1.0, np.abs(ref)))
        assert abs(special.logsumexp(got)) < 1e-12
    # k = 1: all n report a one w.p. (1 − p) p^{n−1} = e^{-1344}, far below 1e-308
    assert got[-1] == pytest.approx(math.log(1 - p) + (n - 1) * math.log(p), rel=1e-13)
    # zeros inside and at the ends stay exact zeros (−inf)
    out = log_convolve([0.0, -np.inf, -1.0], [-np.inf, -2.0])
    assert out[0] == -np.inf and out[2] == -np.inf and out[1] == -2.0 and out[3] == -3.0
    with pytest.raises(ValueError):
        log_convolve([np.nan], [0.0])


@pytest.mark.parametrize("n", [16, 550, 1024])
def test_randomized_response_passes_the_exact_audit_at_every_batch_size(rr, n):
    from bandsim.privacy.audit import audit

    rep = audit("rr-se", 1.0, n)
    row = rep.rows[rep.headline]
    assert rep.passed and not row.lower_bound, rep.verdict()
    # RR's exact ε is ε itself: log((1 − p)/p) with p = 1/(1 + e^ε)
    assert row.exact == pytest.approx(1.0, abs=1e-9)


def test_the_cli_audit_of_rr_passes_at_its_default_batch_size(rr, capsys):
    assert main(["audit", "rr-se", "--epsilon", "1"]) == 0  # n = 1024 by default
    assert "PASS" in capsys.readouterr().out


def test_a_probability_law_that_underflows_is_a_lower_bound_never_inf(rr):
    from bandsim.privacy.audit import audit

    rep = audit("rr-probs-se", 1.0, 1024)
    row = rep.rows[rep.headline]
    assert math.isfinite(row.exact) and row.lower_bound and row.status == "?"
    assert rep.verdict().startswith("INCONCLUSIVE") and "release_logpmf" in rep.notes[0]
    assert audit("rr-probs-se", 1.0, 64).passed  # no underflow: the same exact audit


def test_a_violation_far_below_any_float_is_seen_in_log_space(rr):
    """Negative control: a law wrong by e^{600} at a probability of e^{-1345} FAILs."""
    from bandsim.privacy.audit import audit

    rep = audit("rr-leaky-se", 1.0, 1024)
    assert not rep.passed and rep.rows[rep.headline].exact == pytest.approx(601, abs=1)


def test_no_underflow_inf_at_n_1e5(rr):
    """At n = 10⁵ every released value's probability lies between e^{-131326} and 1: the
    log law is finite everywhere, so every ratio is finite and equals ε (the pairs whose
    tails are deepest: k = 0, 1 and n − 1, n)."""
    n = 100_000
    b = _batch("rr", n)
    for k in (0, n - 1):
        law0, law1 = log_law_of(get_mechanism("rr"), b, k), \
            log_law_of(get_mechanism("rr"), b, k + 1)
        assert np.isfinite(law0[1]).all() and law0[1].min() < -100_000
        eps, lower = pair_log_ratio(law0, law1)
        assert eps == pytest.approx(1.0, abs=1e-9) and not lower
        # the same pair as plain probabilities: a lower bound, never inf
        p0 = log_law_of(get_mechanism("rr-probs"), b, k)
        p1 = log_law_of(get_mechanism("rr-probs"), b, k + 1)
        eps, lower = pair_log_ratio(p0, p1)
        assert math.isfinite(eps) and eps <= 1.0 + 1e-9 and lower


def test_a_structural_zero_is_still_inf():
    """ε = inf stays for a law that gives a value probability exactly 0 at one count and not
    at its neighbour (declared -inf): that is no underflow."""
    v = np.array([0.0, 1.0])
    eps, lower = pair_log_ratio((v, np.array([0.0, -np.inf]), False),
                                (v, np.log([0.5, 0.5]), False))
    assert eps == math.inf and not lower
    eps, lower = pair_log_ratio((v, np.array([0.0, -np.inf]), True),  # a probability law's 0
                                (v, np.log([0.5, 0.5]), True))        # facing 0.5: no underflow
    assert eps == math.inf and not lower


def test_the_suite_never_calls_an_inconclusive_audit_a_fail():
    from bandsim.studies.suite import audit_columns

    a = dict(batch_size=1024, command="bandsim audit x --batch-size 1024", passed=False,
             verdict="INCONCLUSIVE: x at n = 1,024: only lower bounds below the claims could "
                     "be computed", quantity="ε", claimed=1.0, exact=1.0)
    cols = audit_columns({"audit": a}, True)
    assert cols["verdict"] == "not audited" and cols["audit_note"].startswith("INCONCLUSIVE")
    cols = audit_columns({"audit": {**a, "verdict": "FAIL: x", "exact": 2.0}}, True)
    assert cols["verdict"] == "FAIL"


def test_a_batch_too_large_for_its_laws_is_refused_without_report_probs(rr, capsys):
    """Without report_probs the n + 1 laws are the audit: refused in one line above ~5,800."""
    from bandsim.privacy.audit import audit
    from bandsim.privacy.pmf import PmfTooLarge

    with pytest.raises(PmfTooLarge):
        audit("rr-probs-se", 1.0, 10**5)
    assert main(["audit", "rr-probs-se", "--epsilon", "1", "--batch-size", "67108864"]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert "cannot audit: rr-probs-se at ε = 1, n = 67,108,864: the exact law is too large" in out


@pytest.mark.parametrize("q0,q1", [(0.2, 0.6), (0.5, 0.9), (0.3, 0.3), (0.0, 0.4), (0.0, 1.0),
                                   (0.5, 1.0), (1 / (1 + math.e), math.e / (1 + math.e))])
def test_the_closed_form_is_the_max_over_every_count_and_output(q0, q1):
    """report_epsilon against the brute-force max log-ratio of the count laws (every k, y;
    0 against 0 left out), asymmetric and degenerate reports included."""
    from bandsim.privacy.release import count_log_law, report_epsilon

    for n in (1, 2, 5, 12):
        laws = [count_log_law(n, k, q0, q1) for k in range(n + 1)]
        brute = 0.0
        for a, b in zip(laws, laws[1:]):
            live = (a > -np.inf) | (b > -np.inf)
            d = np.abs(a[live] - b[live])  # inf where one is 0 and the other is not
            brute = max(brute, float(d.max()))
        assert report_epsilon(q0, q1) == pytest.approx(brute, rel=1e-12, abs=1e-12), (n, brute)


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_randomized_response_passes_at_the_suites_largest_batches(rr, epsilon, capsys):
    """2²⁰ users (the suite's largest batch at T = 10⁶): ε in closed form, release_logpmf
    matched at counts 0, 1, n − 1, n; 2²⁶ (T = 10⁸): closed form, and the note says
    release_logpmf itself was matched only at small n."""
    from bandsim.privacy.audit import audit

    rep = audit("rr-se", epsilon, 1 << 20)
    row = rep.rows[rep.headline]
    assert rep.passed and not rep.notes and "n − 1, n at n = 1,048,576" in rep.view
    assert not row.lower_bound and row.exact == pytest.approx(epsilon, abs=1e-12)
    rep = audit("rr-se", epsilon, 1 << 26)
    row = rep.rows[rep.headline]
    assert rep.passed and not row.lower_bound and row.exact == pytest.approx(epsilon, abs=1e-12)
    assert "release_logpmf not evaluated at n = 67,108,864" in rep.notes[0]
    assert main(["audit", "rr-se", "--epsilon", str(epsilon), "--batch-size", "67108864"]) == 0
    assert "PASS" in capsys.readouterr().out


def test_a_simulation_at_t_1e8_audits_its_largest_batch(rr):
    """What the suite's board reads: a run at T = 10⁸ audits its batch of 2²⁶ users at
    simulation time (PASS, not "not audited")."""
    from bandsim.studies.suite import audit_columns

    res = bandsim.simulate("rr-se", instance="C2", arms=3, epsilon=1.0, horizon=10**8, runs=2,
                           seed=1)
    cols = audit_columns(res.config["privacy"], True)
    assert cols["verdict"] == "PASS" and cols["audit_batch_size"] == 1 << 26
    assert cols["audit_exact"] == pytest.approx(1.0, abs=1e-12)


def test_report_probs_that_claim_too_much_fail_and_one_that_lies_is_one_line(rr, capsys):
    """Negative controls. (a) A release honest about weaker flips (q0 = 0.8 p: ε = 1.36 > 1)
    FAILs at 2²⁶ with its exact ε. (b) report_probs claiming honest flips while the law
    (and sampler) flip 0.8 p: at n ≤ 5,800 the n + 1 laws are audited instead (FAIL), above
    it one line naming the mechanism, exit 2."""
    from bandsim.privacy.audit import audit

    def weak_law(n, k, fpar):
        return rr["rr_logpmf"](n, k, np.array([0.8 * fpar[0]]))

    twin(rr, "rr-few", report_probs=lambda f: (0.8 * f[0], 1 - 0.8 * f[0]),
         release_logpmf=weak_law)
    twin(rr, "rr-lies", release_logpmf=weak_law)
    try:
        p = 1 / (1 + math.e)
        want = math.log((1 - 0.8 * p) / (0.8 * p))
        rep = audit("rr-few-se", 1.0, 1 << 26)
        assert not rep.passed and rep.rows[0].exact == pytest.approx(want, rel=1e-12)
        rep = audit("rr-lies-se", 1.0, 64)
        assert not rep.passed and rep.rows[0].exact == pytest.approx(want, rel=1e-9)
        assert "disagrees with its report_probs" in rep.notes[0]
        assert main(["audit", "rr-lies-se", "--epsilon", "1", "--batch-size", "67108864"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: mechanism 'rr-lies' release_logpmf='n=1, k=0' is invalid: "
                              "disagrees with its report_probs") and "\n" not in err, err
    finally:
        unregister("rr-few", "rr-few-se", "rr-lies", "rr-lies-se")

@pytest.mark.parametrize("field", ["release_logpmf", "report_probs"])
def test_a_plugin_law_that_raises_is_one_line_naming_it(rr, field, capsys):
    """The exact audit calls the plug-in's law and report_probs: what they raise is one
    line naming the mechanism and the function, exit 2, never a traceback."""
    def broken(*args):
        raise IndexError("oops")

    twin(rr, "rr-broken", **{field: broken})
    try:
        assert main(["audit", "rr-broken-se", "--epsilon", "1", "--batch-size", "16"]) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"error: plug-in mechanism 'rr-broken' {field}() raised IndexError: oops"
    finally:
        unregister("rr-broken", "rr-broken-se")
