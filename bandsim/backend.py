"""The public kernel API: bandsim's Numba kernels for other people's simulators.

Every name below is a ``@numba.njit`` function (a Numba dispatcher), callable
from Python and from a user's own ``@numba.njit`` code, where it compiles in
like any other jitted function (no Python object is created per call). They
are the very kernels bandsim's engines run: a batch drawn here is drawn
exactly as the engines draw it, a release logged here is logged as the
engines log theirs. Arguments are NumPy scalars and C-contiguous arrays;
``rng`` is a ``numpy.random.Generator``, which Numba passes into jitted
code. Each function's docstring (its ``__doc__``, the kernel's) gives dtypes
and shapes, units, errors and the source (paper, section, equation).

Stability
---------
bandsim follows semantic versioning. The names in :data:`__all__`, their
parameters (names, order, meaning, units) and their return values are public:
they change only in a new minor release (major, once 1.0), and only after one
minor release in which the old form still works and emits a
``DeprecationWarning`` naming its replacement. ``tests/test_public_api.py``
compares every public signature (of ``bandsim``, ``bandsim.plugin``,
``bandsim.backend`` and ``bandsim.env``) with a checked-in snapshot
(``tests/data/public_api.json``), so that a change is a decision, recorded in
the snapshot, never an accident. Everything else in ``bandsim.kernels`` is
internal and may change in any release.

What is here
------------
Reward sums (the one reward path)
    Codes :data:`BERNOULLI`, :data:`CLIPPED_GAUSSIAN`, :data:`CATEGORICAL`;
    ``par`` rows as in :mod:`bandsim.kernels.rewards`. :func:`batch_sum`, :func:`draw`, :func:`binary_batch_sum`,
    :func:`categorical_counts`, :func:`clipped_gaussian`, :func:`reward_mean`,
    :func:`encoded_sum`, :func:`encode`.
Noise samplers (Chowdhury & Zhou, ICLR 2023, Section 4 and Appendix C)
    :func:`laplace_draw` (Laplace on a sum, Dwork et al. 2006),
    :func:`discrete_laplace`, :func:`discrete_laplace_sum` (n users' sum),
    :func:`polya`, :func:`skellam`, :func:`discrete_gaussian`,
    :func:`geometric_failures`.
The SecAgg protocol P = (R, S, A) (Chowdhury & Zhou, Algorithm 2)
    batched: :func:`secagg_batched_output`, :func:`secagg_batched_estimate`,
    :func:`secagg_total_noise`; per user: :func:`secagg_per_user_output`,
    :func:`secagg_per_user_estimate`, :func:`secagg_user_noise`; the analyzer
    :func:`secagg_analyze`; any mechanism code: :func:`batch_estimate`.
Shuffle binary summation (Tenenbaum, Kaplan, Mansour & Stemmer, ICML 2021)
    :func:`binary_batched_sum`, :func:`binary_per_user_sum`,
    :func:`binary_batch_estimate`, :func:`binary_noise_ones`,
    :func:`binary_analyzer`.
Tree-based (binary) mechanism (Chan, Shi & Song, TISSEC 2011, Algorithm 5)
    :func:`tree_insert`.
Regret bookkeeping (exact pseudo-regret of a stage of pulls)
    :func:`stage_pulls`, :func:`stage_regret`, :func:`fill_checkpoints`,
    :func:`advance`, :func:`commit`; orders :data:`ROUND_ROBIN`, :data:`BLOCKS`.
The release primitive and its recorder (record and replay; Cebere et al., PETS 2026)
    :func:`release`, :class:`Recorder`, :func:`recorder`; law codes
    :data:`LAW_EXACT`, :data:`LAW_LAPLACE`, :data:`LAW_BATCH`; modes
    :data:`RECORD`, :data:`REPLAY`.
The vectorized environment's step (what :meth:`bandsim.env.VecEnv.pull` runs)
    :func:`env_step`: a user's numba loop steps R runs at once.

The sparse vector technique of bandsim runs inside its SVT engine
(``bandsim.kernels.svt``, the ``dp-se2`` algorithms) and has no standalone
kernel yet: it is not part of this API.

Examples
--------
A user's jitted function, drawing one batch of 1,000 Bernoulli(0.4) rewards
and releasing its sum with Laplace noise of scale 1/ε (ε = 0.5):

>>> import numba, numpy as np
>>> from bandsim import backend as B
>>> @numba.njit
... def noisy_batch(rng, n):
...     s = B.batch_sum(rng, B.BERNOULLI, np.array([0.4]), n)
...     return B.release(None, 0, n, 0, n, B.LAW_LAPLACE, 0, s, 2.0,
...                      s + B.laplace_draw(rng, 2.0))
>>> x = noisy_batch(np.random.default_rng(1), 1000)
>>> abs(x - 400) < 200
True

``docs/backend.md`` simulates DP-SE with these kernels inside one ``@njit``
function and checks it against :func:`bandsim.simulate` in law.
"""
from .kernels.binary_summation import analyzer as binary_analyzer
from .kernels.binary_summation import batch_estimate as binary_batch_estimate
from .kernels.binary_summation import batched_sum as binary_batched_sum
from .kernels.binary_summation import noise_ones as binary_noise_ones
from .kernels.binary_summation import per_user_sum as binary_per_user_sum
from .kernels.codes import (BERNOULLI, BLOCKS, CATEGORICAL, CLIPPED_GAUSSIAN, LAW_BATCH,
                            LAW_EXACT, LAW_LAPLACE, RECORD, REPLAY, ROUND_ROBIN)
from .kernels.protocols import batch_estimate
from .kernels.record import Recorder, recorder, release
from .kernels.regret import advance, commit, fill_checkpoints, stage_pulls, stage_regret
from .kernels.rewards import (batch_sum, binary_batch_sum, categorical_counts, clipped_gaussian,
                              draw, encode, encoded_sum, reward_mean)
from .kernels.samplers import (discrete_gaussian, discrete_laplace, discrete_laplace_sum,
                               geometric_failures, laplace_draw, polya, skellam)
from .kernels.secagg import analyze as secagg_analyze
from .kernels.secagg import batched_estimate as secagg_batched_estimate
from .kernels.secagg import batched_output as secagg_batched_output
from .kernels.secagg import per_user_estimate as secagg_per_user_estimate
from .kernels.secagg import per_user_output as secagg_per_user_output
from .kernels.secagg import total_noise as secagg_total_noise
from .kernels.secagg import user_noise as secagg_user_noise
from .kernels.sequential import tree_insert
from .kernels.vecenv import step as env_step

__all__ = [
    # reward sums
    "batch_sum", "draw", "binary_batch_sum", "categorical_counts", "clipped_gaussian",
    "reward_mean", "encoded_sum", "encode", "BERNOULLI", "CLIPPED_GAUSSIAN", "CATEGORICAL",
    # noise samplers
    "laplace_draw", "discrete_laplace", "discrete_laplace_sum", "polya", "skellam",
    "discrete_gaussian", "geometric_failures",
    # SecAgg P = (R, S, A)
    "secagg_analyze", "secagg_batched_output", "secagg_batched_estimate", "secagg_total_noise",
    "secagg_per_user_output", "secagg_per_user_estimate", "secagg_user_noise", "batch_estimate",
    # shuffle binary summation
    "binary_batched_sum", "binary_per_user_sum", "binary_batch_estimate", "binary_noise_ones",
    "binary_analyzer",
    # tree-based mechanism
    "tree_insert",
    # regret bookkeeping
    "stage_pulls", "stage_regret", "fill_checkpoints", "advance", "commit", "ROUND_ROBIN",
    "BLOCKS",
    # release primitive and recorder
    "release", "Recorder", "recorder", "LAW_EXACT", "LAW_LAPLACE", "LAW_BATCH", "RECORD",
    "REPLAY",
    # the vectorized environment's step (bandsim.env.VecEnv.pull), for numba loops
    "env_step",
]
