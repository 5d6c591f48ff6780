# Types of bandsim.backend for type checkers (the module itself re-exports Numba
# dispatchers, which carry no annotations). tests/test_backend.py checks that this
# stub names every export of ``__all__`` with the runtime's parameter names.
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

Generator = np.random.Generator
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

FUNCTIONS: tuple[str, ...]
CLASSES: tuple[str, ...]
CONSTANTS: tuple[str, ...]
__all__: list[str]

class Recorder(NamedTuple):
    mode: np.int64
    block: np.int64
    y: np.float64
    mirror: bool
    rng: Generator
    counts: IntArray
    blk: IntArray
    rel: IntArray
    val: FloatArray
    frozen: FloatArray

class Shard(NamedTuple):
    gaps: FloatArray
    rcode: np.int64
    rpar: FloatArray
    horizon: np.int64
    checkpoints: IntArray
    regret: FloatArray
    pulls: IntArray
    elim: IntArray

# reward sums
def batch_sum(rng: Generator, code: int, par: FloatArray, n: int) -> float: ...
def draw(rng: Generator, code: int, par: FloatArray) -> float: ...
def encoded_sum(rng: Generator, code: int, par: FloatArray, n: int, g: int) -> int: ...
def binary_batch_sum(rng: Generator, code: int, par: FloatArray, n: int) -> int: ...
def reward_mean(code: int, par: FloatArray) -> float: ...

# noise samplers
def laplace_draw(rng: Generator, scale: float) -> float: ...
def discrete_laplace(rng: Generator, q: float) -> int: ...
def discrete_laplace_sum(rng: Generator, n: int, q: float) -> int: ...
def polya(rng: Generator, r: float, beta: float) -> int: ...
def skellam(rng: Generator, mu: float) -> int: ...
def discrete_gaussian(rng: Generator, sigma2: float) -> int: ...
def geometric_failures(rng: Generator, q: float) -> int: ...

# SecAgg protocol and the one batch dispatch
def secagg_batched_estimate(rng: Generator, mech: int, rcode: int, rpar: FloatArray, n: int,
                            fpar: FloatArray, ipar: IntArray, rec: Recorder | None, run: int,
                            t0: int, arm: int) -> float: ...
def secagg_per_user_estimate(rng: Generator, mech: int, rcode: int, rpar: FloatArray, n: int,
                             fpar: FloatArray, ipar: IntArray) -> float: ...
def user_noise(rng: Generator, mech: int, n: int, fpar: FloatArray) -> int: ...
def total_noise(rng: Generator, mech: int, n: int, fpar: FloatArray) -> int: ...
def analyze(y: int, n: int, g: int, tau: int, m: int) -> float: ...
def batch_estimate(rng: Generator, mech: int, rcode: int, rpar: FloatArray, n: int,
                   fpar: FloatArray, ipar: IntArray, rec: Recorder | None, run: int, t0: int,
                   arm: int) -> float: ...

# shuffle binary summation
def shuffle_batched_sum(rng: Generator, x_sum: int, m: int, tau: float) -> float: ...
def shuffle_per_user_sum(rng: Generator, x: IntArray, tau: float) -> float: ...
def shuffle_batch_estimate(rng: Generator, rcode: int, rpar: FloatArray, n: int, tau: float,
                           rec: Recorder | None, run: int, t0: int, arm: int) -> float: ...

# tree-based mechanism
def tree_insert(alpha: FloatArray, cum: FloatArray, n: int, x: float, scale: float,
                rng: Generator) -> float: ...
def tree_release(alpha: FloatArray, cum: FloatArray, n: int, x: float, scale: float,
                 rng: Generator, rec: Recorder | None, run: int, t: int, arm: int) -> float: ...

# sparse vector technique (DP-SE 2 engine) and its runs
def svt_run_shard(rng: Generator, shard: Shard, query_threshold: FloatArray,
                  elim_width: FloatArray, svt_scale: float, hist_scale: float,
                  rec: Recorder | None) -> None: ...
def make_shard(gaps: FloatArray, rcode: int, rpar: FloatArray, horizon: int,
               checkpoints: IntArray, out_regret: FloatArray, out_pulls: IntArray,
               out_elim: IntArray) -> Shard: ...

# regret bookkeeping
def stage_pulls(order: int, j: int, k: int, n: int, u: int) -> int: ...
def stage_regret(order: int, active: IntArray, k: int, n: int, gaps: FloatArray,
                 u: int) -> float: ...
def advance(out: FloatArray, checkpoints: IntArray, ci: int, t: int, u: int, regret: float,
            order: int, active: IntArray, k: int, n: int, gaps: FloatArray,
            pulls: IntArray) -> tuple[int, float]: ...
def commit(out: FloatArray, checkpoints: IntArray, ci: int, t: int, horizon: int,
           regret: float, arm: int, gaps: FloatArray, pulls: IntArray) -> int: ...
def fill_checkpoints(out: FloatArray, checkpoints: IntArray, ci: int, t0: int, t1: int,
                     regret0: float, order: int, active: IntArray, k: int, n: int,
                     gaps: FloatArray) -> int: ...
def fill_linear(out: FloatArray, checkpoints: IntArray, ci: int, t0: int, regret0: float,
                gap: float) -> int: ...
def start_run(active: IntArray, pulls: IntArray, elim_row: IntArray) -> None: ...
def eliminate(est: FloatArray, active: IntArray, k: int, width: float, t: int,
              elim_row: IntArray) -> int: ...

# release primitive and recorder
def release(rec: Recorder | None, run: int, t: int, arm: int, n: int, law: int, tag: int,
            true: float, scale: float, value: float) -> float: ...
def recorder(mode: int, capacity: int, block: int = -1, y: float = 0.0, seed: int = 0,
             frozen: FloatArray | None = None, blocks: int | None = None,
             mirror: bool = False) -> Recorder: ...

BERNOULLI: int
CLIPPED_GAUSSIAN: int
CATEGORICAL: int
GAUSSIAN_EXACT_MAX_N: int
POISSON_MAX: float
Q_MIN: float
SIGMA2_MAX: float
MAX_LEVELS: int
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
