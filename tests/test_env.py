"""bandsim.env: a batch is one draw and one release, exactly as the engines make them."""
import numba
import numpy as np
import pytest

import bandsim
import bandsim.env
from bandsim import backend as B
from bandsim.instances import make_instance


def test_a_batch_is_the_engines_draw_and_release_bit_for_bit():
    env = bandsim.env.make(means=[0.7, 0.4, 0.2], runs=50, seed=9)
    arms = np.arange(50, dtype=np.int64) % 3
    got = env.pull(arms, 300, mechanism="laplace", epsilon=0.5)
    rng = np.random.default_rng(9)  # the engines' call, one run after the other
    want = [B.batch_estimate(rng, 1, B.BERNOULLI, np.array([[0.7], [0.4], [0.2]][a]), 300,
                             np.array([2.0, 0, 0, 0]), np.zeros(3, np.int64), None, r, 0, a)
            for r, a in enumerate(arms)]
    assert np.array_equal(got, want)


def test_pulls_and_regret_are_exact():
    env = bandsim.env.make(means=[0.9, 0.5, 0.4], runs=4, seed=1)
    env.pull(np.array([0, 1, 2, 1]), 10)
    env.pull(np.array([2, 2, 0, 1]), 5, mechanism="dist-dp", epsilon=1.0)
    assert env.t.tolist() == [15] * 4
    assert env.pulls.tolist() == [[10, 0, 5], [0, 10, 5], [5, 0, 10], [0, 15, 0]]
    assert np.allclose(env.regret, env.pulls @ np.array([0.0, 0.4, 0.5]), rtol=0, atol=1e-12)


def test_exact_sums_follow_the_binomial_law():
    from scipy import stats

    env = bandsim.env.make(means=[0.3, 0.6], runs=20_000, seed=2)
    x = env.pull(np.zeros(20_000, np.int64), 40)
    k = np.bincount(x.astype(int), minlength=41)
    p = stats.binom.pmf(np.arange(41), 40, 0.3)
    keep = p * 20_000 >= 5
    chi2 = ((k[keep] - 20_000 * p[keep]) ** 2 / (20_000 * p[keep])).sum()
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-6
    wrong = stats.binom.pmf(np.arange(41), 40, 0.33)  # a mean 10 % off is told apart
    chi2w = ((k[keep] - 20_000 * wrong[keep]) ** 2 / (20_000 * wrong[keep])).sum()
    assert stats.chi2.sf(chi2w, keep.sum() - 1) < 1e-6


def test_named_and_resolved_instances():
    env = bandsim.env.make("C1", arms=4, runs=3, seed=0)
    assert env.means.shape == (3, 4)
    inst = make_instance(means=[0.2, 0.8], rewards="gaussian", sigma=0.2)
    env = bandsim.env.make(inst, runs=2, seed=0)
    x = env.pull(np.array([1, 1]), 100)
    assert np.all((x >= 0) & (x <= 100))


def test_bad_input_fails_closed():
    env = bandsim.env.make(means=[0.5, 0.4], runs=2, seed=0)
    with pytest.raises(bandsim.ConfigError, match="n"):
        env.pull(np.array([0, 1]), 0)
    with pytest.raises(bandsim.ConfigError, match="arms"):
        env.pull(np.array([0, 1, 1]), 3)
    with pytest.raises(ValueError, match="arm outside"):
        env.pull(np.array([0, 2]), 3)
    with pytest.raises(bandsim.ConfigError):
        env.pull(np.array([0, 1]), 3, mechanism="no-such-mechanism")
    with pytest.raises(bandsim.ConfigError, match="runs"):
        bandsim.env.make(means=[0.5, 0.4], runs=0)


@numba.njit
def _laplace_sum_noise(rng, n, fpar):
    return rng.laplace(0.0, fpar[0])


def test_a_plugin_mechanism_releases_through_its_own_kernel():
    from bandsim.plugin import NoiseOnSum, SumBatch, codes

    def batch(n, epsilon):
        return SumBatch(name="env-lap", n=int(n), fpar=(1.0 / epsilon,), ipar=(),
                        code=codes.PLUGIN_SUM, privacy=dict(guarantee="central ε-DP",
                                                            epsilon=epsilon), theorem="Laplace")

    bandsim.register(NoiseOnSum(name="env-lap", summary="Laplace on the sum (test)",
                                source="Dwork et al. (TCC 2006)", trust="central ε-DP",
                                batch=batch, kernels={"sum_noise": _laplace_sum_noise}),
                     replace=True)
    try:
        arms = np.array([0, 1, 1, 0])
        mine = bandsim.env.make(means=[0.6, 0.3], runs=4, seed=5)
        got = mine.pull(arms, 200, mechanism="env-lap", epsilon=0.5)
        ref = bandsim.env.make(means=[0.6, 0.3], runs=4, seed=5)
        want = ref.pull(arms, 200, mechanism="laplace", epsilon=0.5)
        assert np.array_equal(got, want)  # the same draws: sum, then Lap(2) from the stream
        bad = bandsim.env.make(means=[0.6, 0.3], runs=4, seed=5)
        assert not np.array_equal(bad.pull(arms, 200, mechanism="laplace", epsilon=0.7), want)
    finally:
        bandsim.plugin.unregister("env-lap")


# ------------------------------------------------------- the Gymnasium adapter (optional)

def test_the_gymnasium_adapter_says_how_to_install_it_when_missing(monkeypatch):
    import sys

    import bandsim.gym as G

    monkeypatch.setitem(sys.modules, "gymnasium", None)  # import gymnasium raises ImportError
    monkeypatch.setattr(G, "_CLASS", [])
    with pytest.raises(ImportError, match=r"pip install 'bandsim\[gym\]'"):
        G.make_vec(means=[0.9, 0.1], num_envs=2, horizon=10)


def test_the_gymnasium_adapter_follows_the_vector_env_api():
    """Spaces, one batch per step released like env.pull's, truncation at T for every run,
    NEXT_STEP autoreset, exact regret in infos, and reproducible episodes."""
    gym = pytest.importorskip("gymnasium")
    from bandsim.gym import make_vec

    R, T = 64, 25
    venv = make_vec(means=[0.9, 0.1], num_envs=R, horizon=T, batch=10, seed=3,
                    mechanism="laplace", epsilon=1.0)
    assert isinstance(venv, gym.vector.VectorEnv) and venv.num_envs == R
    assert venv.single_action_space == gym.spaces.Discrete(2)
    obs, info = venv.reset()
    assert venv.observation_space.contains(obs) and (info["t"] == 0).all()
    twin = bandsim.env.make(means=[0.9, 0.1], runs=R, horizon=T,
                            seed=np.random.SeedSequence([3, 0]).generate_state(1, np.uint64)[0])
    actions = np.arange(R) % 2
    rewards = []
    for size in (10, 10, 5):  # the last batch is cut at T
        obs, rew, term, trunc, info = venv.step(actions)
        rewards.append(rew)
        # the same draws and releases as env.pull (Laplace noise: every value differs)
        assert np.array_equal(rew, twin.pull(actions, size, mechanism="laplace", epsilon=1.0))
        assert not term.any() and trunc.all() == (size == 5) and trunc.any() == (size == 5)
    assert (info["t"] == T).all() and np.allclose(info["regret"], 0.8 * T * actions)
    obs, rew, term, trunc, info = venv.step(actions)  # autoreset: a new episode
    assert not rew.any() and not trunc.any() and (info["t"] == 0).all()
    assert not np.array_equal(venv.step(actions)[1], rewards[0])  # episode 1: new draws
    venv.reset(seed=3)  # episode 0 again
    assert np.array_equal(venv.step(actions)[1], rewards[0])
    with pytest.raises(ValueError):
        venv.step(np.full(R, 2))  # an arm outside [0, K)
