# Types of bandsim.backend for type checkers (the module itself re-exports Numba
# dispatchers, which carry no annotations). tests/test_backend.py checks that this
# stub names every export of ``__all__`` with the runtime's parameter names.
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

_Generator = np.random.Generator
_FloatArray = npt.NDArray[np.float64]
_IntArray = npt.NDArray[np.int64]

FUNCTIONS: tuple[str, ...]
CLASSES: tuple[str, ...]
CONSTANTS: tuple[str, ...]
__all__: list[str]

class Recorder(NamedTuple):
    mode: np.int64
    block: np.int64
    y: np.float64
    shift: _FloatArray
    gain: _FloatArray
    rng: _Generator
    counts: _IntArray
    blk: _IntArray
    rel: _IntArray
    val: _FloatArray
    frozen: _FloatArray

class Shard(NamedTuple):
    gaps: _FloatArray
    rcode: np.int64
    rpar: _FloatArray
    horizon: np.int64
    checkpoints: _IntArray
    regret: _FloatArray
    pulls: _IntArray
    elim: _IntArray

# reward sums
def batch_sum(rng: _Generator, code: int, par: _FloatArray, n: int) -> float: ...
def draw(rng: _Generator, code: int, par: _FloatArray) -> float: ...
def encoded_sum(rng: _Generator, code: int, par: _FloatArray, n: int, g: int) -> int: ...
def binary_batch_sum(rng: _Generator, code: int, par: _FloatArray, n: int) -> int: ...
def reward_mean(code: int, par: _FloatArray) -> float: ...

# noise samplers
def laplace_draw(rng: _Generator, scale: float) -> float: ...
def discrete_laplace(rng: _Generator, q: float) -> int: ...
def discrete_laplace_sum(rng: _Generator, n: int, q: float) -> int: ...
def polya(rng: _Generator, r: float, beta: float) -> int: ...
def skellam(rng: _Generator, mu: float) -> int: ...
def discrete_gaussian(rng: _Generator, sigma2: float) -> int: ...
def geometric_failures(rng: _Generator, q: float) -> int: ...

# SecAgg protocol and the one batch dispatch
def secagg_batched_estimate(rng: _Generator, mech: int, rcode: int, rpar: _FloatArray, n: int,
                            fpar: _FloatArray, ipar: _IntArray, rec: Recorder | None, run: int,
                            t0: int, arm: int) -> float: ...
def secagg_per_user_estimate(rng: _Generator, mech: int, rcode: int, rpar: _FloatArray, n: int,
                             fpar: _FloatArray, ipar: _IntArray) -> float: ...
def user_noise(rng: _Generator, mech: int, n: int, fpar: _FloatArray) -> int: ...
def total_noise(rng: _Generator, mech: int, n: int, fpar: _FloatArray) -> int: ...
def analyze(y: int, n: int, g: int, tau: int, m: int) -> float: ...
def batch_estimate(rng: _Generator, mech: int, rcode: int, rpar: _FloatArray, n: int,
                   fpar: _FloatArray, ipar: _IntArray, rec: Recorder | None, run: int, t0: int,
                   arm: int) -> float: ...

# shuffle binary summation
def shuffle_batched_sum(rng: _Generator, x_sum: int, m: int, tau: float) -> float: ...
def shuffle_per_user_sum(rng: _Generator, x: _IntArray, tau: float) -> float: ...
def shuffle_batch_estimate(rng: _Generator, rcode: int, rpar: _FloatArray, n: int, tau: float,
                           rec: Recorder | None, run: int, t0: int, arm: int) -> float: ...

# tree-based mechanism
def tree_insert(alpha: _FloatArray, cum: _FloatArray, n: int, x: float, scale: float,
                rng: _Generator) -> float: ...
def tree_release(alpha: _FloatArray, cum: _FloatArray, n: int, x: float, scale: float,
                 rng: _Generator, rec: Recorder | None, run: int, t: int, arm: int,
                 tag: int) -> float: ...

# sparse vector technique (DP-SE 2 engine) and its runs
def svt_run_shard(rng: _Generator, shard: Shard, query_threshold: _FloatArray,
                  elim_width: _FloatArray, svt_scale: float, hist_scale: float,
                  rec: Recorder | None) -> None: ...
def make_shard(gaps: _FloatArray, rcode: int, rpar: _FloatArray, horizon: int,
               checkpoints: _IntArray, out_regret: _FloatArray, out_pulls: _IntArray,
               out_elim: _IntArray) -> Shard: ...

# regret bookkeeping
def stage_pulls(order: int, j: int, k: int, n: int, u: int) -> int: ...
def stage_regret(order: int, active: _IntArray, k: int, n: int, gaps: _FloatArray,
                 u: int) -> float: ...
def advance(out: _FloatArray, checkpoints: _IntArray, ci: int, t: int, u: int, regret: float,
            order: int, active: _IntArray, k: int, n: int, gaps: _FloatArray,
            pulls: _IntArray) -> tuple[int, float]: ...
def commit(out: _FloatArray, checkpoints: _IntArray, ci: int, t: int, horizon: int,
           regret: float, arm: int, gaps: _FloatArray, pulls: _IntArray) -> int: ...
def fill_checkpoints(out: _FloatArray, checkpoints: _IntArray, ci: int, t0: int, t1: int,
                     regret0: float, order: int, active: _IntArray, k: int, n: int,
                     gaps: _FloatArray) -> int: ...
def fill_linear(out: _FloatArray, checkpoints: _IntArray, ci: int, t0: int, regret0: float,
                gap: float) -> int: ...
def start_run(active: _IntArray, pulls: _IntArray, elim_row: _IntArray) -> None: ...
def eliminate(est: _FloatArray, active: _IntArray, k: int, width: float, t: int,
              elim_row: _IntArray) -> int: ...

# release primitive and recorder
def release(rec: Recorder | None, run: int, t: int, arm: int, n: int, law: int, tag: int,
            true: float, scale: float, value: float) -> float: ...
def recorder(mode: int, capacity: int, block: int = -1, y: float = 0.0, seed: int = 0,
             frozen: _FloatArray | None = None, blocks: int | None = None,
             mirror: bool = False, shift: _FloatArray | None = None,
             gain: _FloatArray | None = None) -> Recorder: ...

BERNOULLI: int
CLIPPED_GAUSSIAN: int
CATEGORICAL: int
GAUSSIAN_EXACT_MAX_N: int
POISSON_MAX: float
Q_MIN: float
SIGMA2_MAX: float
MAX_LEVELS: int
TREE_LEVEL: int
NONE: int
LAPLACE: int
DIST_DP: int
DIST_RDP: int
DIST_CDP: int
CENTRAL: int
LOCAL: int
DIST_DP_SHUFFLE: int
SHUFFLE_BINARY: int
ROUND_ROBIN: int
BLOCKS: int
LAW_EXACT: int
LAW_LAPLACE: int
LAW_SVT_THRESHOLD: int
LAW_SVT_QUERY: int
LAW_BATCH: int
RECORD: int
REPLAY: int

# the vectorized environment's step (bandsim.env)
def env_step(rng: _Generator, rcode: int, rpar: _FloatArray, gaps: _FloatArray, arms: _IntArray,
             n: int, mech: int, fpar: _FloatArray, ipar: _IntArray, hooks: object,
             rec: Recorder | None, t: _IntArray, pulls: _IntArray, regret: _FloatArray,
             out: _FloatArray, checkpoints: _IntArray, ci: _IntArray,
             curve: _FloatArray) -> None: ...
