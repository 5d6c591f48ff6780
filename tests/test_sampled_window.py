"""The sampled audit tests SecAgg outputs in the analyzer's output space, not mod m.

An analyzer that decodes ŷ to the representative nearest the *true* encoded sum
(a decoding window computed from the data) outputs z and z ± m/g where the declared
window [−τ, n g + τ] gives one of them: which one reveals the sum. Binned as
rint(z·g) mod m the two are one cell and the audit PASSes; in the output space
(bandsim.privacy.sampled_checks._window) the moved outputs are impossible under the
declared law and it FAILs.
"""
import numba
import numpy as np

from bandsim import registry
from bandsim.engines import secagg_kernel
from bandsim.kernels import secagg
from bandsim.kernels._jit import rebind
from bandsim.kernels.secagg import central_noise, relaxed, total_noise
from bandsim.privacy.sampled import sampled

N, DRAWS = 4, 50_000


@numba.njit
def _window_from_the_true_sum(rng, mech, xhat_sum, n, fpar, ipar):
    """Algorithm 3's analyzer with its window centred on Σ x̂ instead of [−τ, n g + τ]."""
    g, m = ipar[0], ipar[2]
    y = (xhat_sum + total_noise(rng, mech, n, fpar)) % m
    y = relaxed(rng, mech, y, m, fpar)
    y = (y + central_noise(rng, mech, fpar, m)) % m
    lo = xhat_sum - (m - 1) // 2
    return (lo + (y - lo) % m) / g


def _report():
    return sampled("dist-dp-se", 0.5, N, draws=DRAWS, seed=1)


def test_a_decoding_window_computed_from_the_true_sum_fails_the_sampled_audit(monkeypatch):
    honest = _report()
    assert honest.code == 0, honest.verdict()
    kernel = secagg.draw_batched_given
    bad = rebind(kernel, {"batched_output": _window_from_the_true_sum})
    algo = registry.get_algorithm("dist-dp-se")
    batch = registry.get_mechanism(algo.mechanism).derive(N, algo.resolve({"epsilon": 0.5},
                                                                           10**5))
    g, _, m = (int(v) for v in batch.ipar)
    fpar, ipar = batch._arrays()
    xs = np.full(DRAWS, g, np.int64)
    z_ok = secagg_kernel(algo.mechanism, "draw_batched_given")(
        np.random.default_rng(5), batch.code, xs, N, fpar, ipar)
    monkeypatch.setattr(secagg, "draw_batched_given", bad)
    z_bad = secagg_kernel(algo.mechanism, "draw_batched_given")(
        np.random.default_rng(5), batch.code, xs, N, fpar, ipar)
    assert not np.array_equal(z_ok, z_bad)  # other outputs …
    assert np.array_equal(np.rint(z_ok * g) % m, np.rint(z_bad * g) % m)  # … one cell mod m
    rep = _report()
    assert rep.code == 1, rep.verdict()
    assert any(c.path == "batched" and c.p_value < 1e-6 for c in rep.checks), rep.checks


def test_the_same_analyzer_fails_the_whole_run_law_check(monkeypatch):
    """Check (g) recomputes (g, τ, m) from the declaration and reads each recorded output
    in the declared window given the recorded Σ x̂: a moved output is impossible."""
    from bandsim.kernels import elimination
    from bandsim.plancache import make_plan
    from bandsim.wholerun import checks as C
    from bandsim.wholerun.many import many_run

    monkeypatch.setattr(elimination, "run_shard", rebind(
        elimination.run_shard, {"batched_output": _window_from_the_true_sum}))
    algo = registry.get_algorithm("dist-dp-se")
    params = algo.resolve(C.audit_params(algo), 10**5)
    a = C._Audit(algo, params, 10**5, C.MEANS, 0, make_plan(algo, params, 3, 10**5))
    tests, _, _ = many_run(a, [C.MEANS], work=30_000)
    assert any(f.startswith("(g) law") and "impossible" in f for f in tests.failures()), \
        tests.failures()
