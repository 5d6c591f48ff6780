"""Recording mode of the engines: every release logged, one user's reward set, a replay frozen.

Every engine takes a last argument ``rec``. In a simulation it is ``None``:
each primitive below starts with ``if rec is None`` on its own argument,
which Numba resolves while compiling (a ``None`` argument has its own type),
so the production specialisation is the plain draw — the same machine code
and the same random stream as without this module. The primitives are
inlined (``inline="always"``) into the engines, so for ``None`` nothing is
left of them but the draw or the value; :func:`rsum`, :func:`rencoded`,
:func:`rbits` (whose draw is a call that takes the generator) and
:func:`rbernoulli_window` (a loop kept out of line) are resolved
by the type of ``rec`` while typing (:func:`_by_rec`) to that bare call. These are the only branches on
``rec``: the engines call the primitives unconditionally, so production
and recording run one code path (``tests/test_one_code_path.py``). The
whole-run privacy audit (:mod:`bandsim.privacy.wholerun`) passes a
:class:`Recorder` instead, which compiles a second specialisation of the
same engine source that

* logs every **block** — one call that draws the rewards of ``n`` consecutive
  pulls ``t0 + 1 … t0 + n`` of one arm (a batch, an episode, one step);
* sets the reward of **one user**: in block ``rec.block`` one of the ``n``
  rewards is ``rec.y`` and the other ``n − 1`` are drawn as usual (the
  neighbouring datasets D and D' differ only in ``rec.y``);
* maps every other reward of arm a by x → ``rec.shift[a] + rec.gain[a]·x``
  (entries cycling over the arms; identity 0, 1), after the same draws, so
  the random stream stays aligned: the mirror x → 1 − x (1, −1), an arm's
  rewards set to a constant c (c, 0), arms' orderings and gaps reversed or
  flattened. A replay on such a far dataset with frozen releases must still
  take every decision of the recorded run — control flow that reads
  anything but releases shows up there;
* logs every **release** — the statistic before noise, the law and scale the
  kernel used, the released value — and, in a ``REPLAY``, returns the value
  recorded in the ``RECORD`` run instead of the fresh one (the releases are
  frozen; the noise is still drawn, so the random stream stays aligned).

Data-dependent release hooks (plug-in randomized response and the like)
draw from ``rec.rng``, a generator of their own, so that a different true
count cannot shift the environment's stream.

Units of a statistic: reward units for sums of rewards, encoded units
(precision g, tag) for SecAgg batches, ones for binary summation.

References
----------
Cebere, Erb, Desfontaines, Bellet & Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries" (PETS 2026):
record the releases of a run, replay it on a neighbouring input with the
releases frozen.
"""
import math
from typing import NamedTuple

import numpy as np
from numba.core import config, types, utils
from numba.extending import intrinsic

from ._jit import jit, jit_inline
from .codes import LAW_EXACT, REPLAY
from .rewards import batch_sum, binary_batch_sum, draw, encode, encoded_sum

#: Columns of ``Recorder.blk`` (int64).
BLK_RUN, BLK_T0, BLK_ARM, BLK_N = 0, 1, 2, 3
#: Columns of ``Recorder.rel`` (int64).
REL_RUN, REL_T, REL_ARM, REL_N, REL_LAW, REL_TAG, REL_BLOCKS = 0, 1, 2, 3, 4, 5, 6
#: Columns of ``Recorder.rel`` a SecAgg batch fills (:func:`rwindow`; 0 otherwise):
#: the accuracy τ and modulus m its analyzer decoded with (window [−τ, n g + τ]).
REL_TAU, REL_MOD = 7, 8
#: Columns of ``Recorder.rel``.
REL_COLS = 9
#: Columns of ``Recorder.val`` (float64).
VAL_TRUE, VAL_SCALE, VAL_VALUE = 0, 1, 2
#: Entries of ``Recorder.counts`` (int64): blocks and releases seen (also past capacity).
N_BLOCKS, N_RELEASES = 0, 1


class Recorder(NamedTuple):
    """What a recording engine logs, and what a replay returns.

    Attributes
    ----------
    mode : int64
        ``RECORD`` or ``REPLAY`` (:mod:`kernels.codes`).
    block : int64
        Index of the block holding the changed user (−1: no user is set).
    y : float64
        That user's reward in this run, in [0, 1].
    shift, gain : float64 (L,)
        Every other reward of arm a is mapped x → shift[a % L] + gain[a % L]·x
        (sums of m rewards: m·shift + gain·Σx; encoded: rounded).
    rng : numpy.random.Generator
        The generator of data-dependent release hooks.
    counts : int64 (2,)
        Blocks and releases seen so far (they keep counting past capacity).
    blk : int64 (B, 4)
        Per block: run, t0 (pulls before it), arm, n.
    rel : int64 (R, 9)
        Per release: run, t (pulls so far), arm (−1: not one arm's), n (rewards
        the statistic covers), law code, tag, blocks drawn before it; for a
        SecAgg batch the τ and m it was decoded with (:func:`rwindow`).
    val : float64 (R, 3)
        Per release: the true statistic, the scale, the released value.
    frozen : float64 (F,)
        ``REPLAY``: release i returns ``frozen[i]`` (i < F).
    """

    mode: np.int64
    block: np.int64
    y: np.float64
    shift: np.ndarray
    gain: np.ndarray
    rng: object
    counts: np.ndarray
    blk: np.ndarray
    rel: np.ndarray
    val: np.ndarray
    frozen: np.ndarray


@jit
def _block(rec, run, t0, arm, n):
    """Log a block; true if it holds the changed user."""
    b = rec.counts[0]
    rec.counts[0] = b + 1
    if b < rec.blk.shape[0]:
        rec.blk[b, 0] = run
        rec.blk[b, 1] = t0
        rec.blk[b, 2] = arm
        rec.blk[b, 3] = n
    return b == rec.block and n >= 1


def _by_rec(python, production, picks, recording, apart=False):
    """The record primitive ``python(rng, rec, …)`` as Numba compiles it: a direct call.

    With ``rec`` None (type ``none``, or an omitted ``None``), a call of the
    primitive compiles to a call of ``production`` on the arguments at
    positions ``picks`` — the very call the engine made before the recording
    mode, argument values handed on as they are; otherwise to a call of
    ``recording`` on all the arguments. An inlined primitive (``inline =
    "always"``) would copy ``rng`` into a variable of its own, and Numba
    guards such a copy with a reference-count increment and decrement
    around any call that can raise: two atomic operations per batch, which
    cost the SVT engine 5 to 13 %. The choice is made once, while typing,
    from the type of ``rec``: the one branch on it, as in the inlined
    primitives. With ``NUMBA_DISABLE_JIT=1`` it is ``python`` itself.

    Parameters
    ----------
    python : function
        The primitive in Python (docstring and the pure-Python mode): ``if
        rec is None: return production(…)`` else ``return recording(…)``.
    production, recording : numba dispatcher
    picks : tuple of int
        Positions of ``production``'s arguments among the primitive's.
    apart : bool
        Keep the call of ``production`` a call (LLVM ``noinline`` at the call
        site): a hot loop in it gets registers of its own instead of the
        engine's leftovers.

    Returns
    -------
    numba intrinsic, or ``python``
        Its ``rebound(f)`` is the same primitive over ``f(production)`` and
        ``f(recording)`` (:func:`kernels._jit.rebind` reaches through it).
    """
    if config.DISABLE_JIT:
        return python

    def typer(typingctx, *argtys):
        rec = argtys[1]
        none = isinstance(rec, types.NoneType) or (isinstance(rec, types.Omitted)
                                                   and rec.value is None)
        disp, pos = (production, picks) if none else (recording, tuple(range(len(argtys))))
        fty = types.Dispatcher(disp)
        tys = tuple(argtys[i] for i in pos)
        sig = fty.get_call_type(typingctx, tys, {})

        def codegen(context, builder, signature, args):
            vals = [context.cast(builder, args[i], argtys[i], to)
                    for i, to in zip(pos, sig.args)]
            out = context.get_function(fty, sig)(builder, vals)
            if apart and none:
                name = disp.overloads[sig.args].fndesc.mangled_name
                for block in builder.function.blocks:
                    for ins in block.instructions:
                        if getattr(getattr(ins, "callee", None), "name", None) == name:
                            ins.attributes.add("noinline")
            return out

        return sig.return_type(*argtys), codegen

    typer.__name__ = python.__name__
    typer.__doc__ = python.__doc__
    sig = utils.pysignature(python)  # the call folds its arguments by typer's signature
    params = list(sig.parameters.values())
    typer.__signature__ = sig.replace(parameters=[params[0].replace(name="typingctx")] + params)
    prim = intrinsic(prefer_literal=True)(typer)  # a constant n stays literal, as in a direct call
    prim.__wrapped__ = python
    prim.rebound = lambda f: _by_rec(python, f(production), picks, f(recording), apart)
    return prim


@jit
def _rsum_record(rng, rec, run, t0, arm, rcode, rpar, n):
    mine = _block(rec, run, t0, arm, n)
    m = n - 1 if mine else n
    s = batch_sum(rng, rcode, rpar, m)
    j = arm % rec.gain.shape[0]
    s = m * rec.shift[j] + rec.gain[j] * s
    return s + rec.y if mine else s


def _rsum(rng, rec, run, t0, arm, rcode, rpar, n):
    """:func:`kernels.rewards.batch_sum` of the pulls t0 + 1 … t0 + n of ``arm`` (float64).

    With a recorder: the block is logged, and if it is the changed user's
    block, n − 1 rewards are drawn and ``rec.y`` is added. With ``rec`` None
    it compiles to the bare call ``batch_sum(rng, rcode, rpar, n)``
    (:func:`_by_rec`).
    """
    if rec is None:
        return batch_sum(rng, rcode, rpar, n)
    return _rsum_record(rng, rec, run, t0, arm, rcode, rpar, n)


rsum = _by_rec(_rsum, batch_sum, (0, 5, 6, 7), _rsum_record)


@jit_inline
def rdraw(rng, rec, run, t0, arm, rcode, rpar):
    """One reward (:func:`kernels.rewards.draw`) of pull t0 + 1 of ``arm`` (float64)."""
    if rec is None:
        return draw(rng, rcode, rpar)
    if _block(rec, run, t0, arm, 1):
        return rec.y
    x = draw(rng, rcode, rpar)
    j = arm % rec.gain.shape[0]
    return rec.shift[j] + rec.gain[j] * x


@jit_inline
def rbernoulli(rng, rec, run, t0, arm, mu):
    """:func:`rdraw` of a Bernoulli(``mu``) arm (float64 0 or 1): one uniform, ``u < mu``.

    The per-pull loops of the engines call it for Bernoulli rewards instead
    of dispatching on the reward code at every pull; it is inlined, so with
    ``rec`` None it is the bare comparison.
    """
    if rec is None:
        return 1.0 if rng.random() < mu else 0.0
    if _block(rec, run, t0, arm, 1):
        return rec.y
    x = 1.0 if rng.random() < mu else 0.0
    j = arm % rec.gain.shape[0]
    return rec.shift[j] + rec.gain[j] * x


@jit_inline
def rbernoulli_add(rng, rec, run, t0, arm, mu, acc):
    """``acc`` plus the reward of pull t0 + 1 of a Bernoulli(``mu``) arm, read as it is
    (float64): ``acc + reveal(rec, run, t0 + 1, arm, rbernoulli(rng, rec, run, t0, arm, mu))``.

    A non-private engine's running reward sum in its per-pull loop. With ``rec``
    None it is ``acc + 1.0 if u < mu else acc``: one uniform u, and the sum
    with a zero reward not added, the code of the loop before the recording
    mode (a select after the add, not an add of a selected 0 or 1, which kept
    ucb1 3 % slower). The value is the same as adding 0.0, for any ``acc``
    but −0.0 (a running sum of rewards in [0, 1] from +0.0 is never −0.0).
    """
    if rec is None:
        if rng.random() < mu:
            return acc + 1.0
        return acc
    return acc + reveal(rec, run, t0 + 1, arm, rbernoulli(rng, rec, run, t0, arm, mu))


@jit
def _bernoulli_window(rng, t, t_end, mu, acc, nf, gamma, V):
    if acc == math.floor(acc) and abs(acc) < 2.0 ** 52:
        s = 0  # successes and pulls counted in integer registers, no float carried
        t0 = t  # through memory across the generator's call; acc + s is exact
        while t < t_end and (acc + s) + gamma > (nf + (t - t0)) * V:
            if rng.random() < mu:
                s += 1
            t += 1
        return t, acc + s
    while t < t_end and acc + gamma > nf * V:
        if rng.random() < mu:
            acc += 1.0
        nf += 1.0
        t += 1
    return t, acc


@jit
def _bernoulli_window_record(rng, rec, run, t, t_end, arm, mu, acc, nf, gamma, V):
    while t < t_end and acc + gamma > nf * V:
        acc = rbernoulli_add(rng, rec, run, t, arm, mu, acc)
        nf += 1.0
        t += 1
    return t, acc


def _rbernoulli_window(rng, rec, run, t, t_end, arm, mu, acc, nf, gamma, V):
    """A non-private engine's pulls of a Bernoulli(``mu``) arm in a leader window.

    Pull t + 1, t + 2, … while ``t < t_end`` and ``acc + gamma > nf·V``, each
    ``acc = rbernoulli_add(rng, rec, run, t, arm, mu, acc)``, ``nf += 1``,
    ``t += 1`` (every pull its own block and ``LAW_EXACT`` release).

    Parameters
    ----------
    rng : numpy.random.Generator
        One uniform per pull.
    rec : Recorder or None
        As in :func:`rbernoulli_add`.
    run, t, t_end, arm : int64
        Run, pulls so far, the window's last pull and the arm.
    mu : float64
        The arm's mean.
    acc, nf : float64
        The arm's reward sum and its pulls so far (a float).
    gamma, V : float64
        The test ``acc + gamma > nf·V`` that keeps the arm pulling.

    Returns
    -------
    (int64, float64)
        t and acc after the window.

    Notes
    -----
    With ``rec`` None the loop is a call of its own (:func:`_by_rec`,
    ``apart``): inlined into UCB1's engine it ran 2–4 % slower than the same
    loop before the recording mode, on the registers the engine left it. A
    whole-number ``acc`` (a sum of 0/1 rewards) is then counted as integers,
    ``acc + s`` and ``nf + i`` formed for the test: the same values as the
    float sums (exact below 2**52), so the same pulls and sum.
    """
    if rec is None:
        return _bernoulli_window(rng, t, t_end, mu, acc, nf, gamma, V)
    return _bernoulli_window_record(rng, rec, run, t, t_end, arm, mu, acc, nf, gamma, V)


rbernoulli_window = _by_rec(_rbernoulli_window, _bernoulli_window, (0, 3, 4, 6, 7, 8, 9, 10),
                            _bernoulli_window_record, apart=True)


@jit
def _rencoded_record(rng, rec, run, t0, arm, rcode, rpar, n, g):
    mine = _block(rec, run, t0, arm, n)
    m = n - 1 if mine else n
    x = encoded_sum(rng, rcode, rpar, m, g)
    j = arm % rec.gain.shape[0]
    x = np.int64(np.rint(m * g * rec.shift[j] + rec.gain[j] * x))
    return x + encode(rng, rec.y, g) if mine else x


def _rencoded(rng, rec, run, t0, arm, rcode, rpar, n, g):
    """:func:`kernels.rewards.encoded_sum` Σ x̂_i of a block (int64, encoded units).

    The changed user's reward is encoded by :func:`kernels.rewards.encode`
    (the randomized rounding every user runs). With ``rec`` None it compiles
    to the bare call (:func:`_by_rec`).
    """
    if rec is None:
        return encoded_sum(rng, rcode, rpar, n, g)
    return _rencoded_record(rng, rec, run, t0, arm, rcode, rpar, n, g)


rencoded = _by_rec(_rencoded, encoded_sum, (0, 5, 6, 7, 8), _rencoded_record)


@jit
def _rbits_record(rng, rec, run, t0, arm, rcode, rpar, n):
    mine = _block(rec, run, t0, arm, n)
    m = n - 1 if mine else n
    k = binary_batch_sum(rng, rcode, rpar, m)
    j = arm % rec.gain.shape[0]
    k = np.int64(np.rint(m * rec.shift[j] + rec.gain[j] * k))
    return k + (1 if rng.random() < rec.y else 0) if mine else k


def _rbits(rng, rec, run, t0, arm, rcode, rpar, n):
    """:func:`kernels.rewards.binary_batch_sum`: ones among a block's binarized rewards
    (int64); the changed user's bit is Bernoulli(``rec.y``). With ``rec`` None it
    compiles to the bare call (:func:`_by_rec`)."""
    if rec is None:
        return binary_batch_sum(rng, rcode, rpar, n)
    return _rbits_record(rng, rec, run, t0, arm, rcode, rpar, n)


rbits = _by_rec(_rbits, binary_batch_sum, (0, 5, 6, 7), _rbits_record)


@jit_inline
def release(rec, run, t, arm, n, law, tag, true, scale, value):
    """The value an engine releases (float64): ``value``, logged; frozen in a replay.

    Parameters
    ----------
    rec : Recorder or None
    run, t, arm, n : int64
        Run, pulls so far, arm (−1 if the statistic is not one arm's) and the
        number of rewards the statistic covers.
    law, tag : int64
        Law code (``LAW_*`` of :mod:`kernels.codes`) and its tag.
    true, scale, value : float64
        The statistic before noise, the noise scale used, the noisy value.
    """
    if rec is None:
        return value
    i = rec.counts[1]
    rec.counts[1] = i + 1
    if i < rec.rel.shape[0]:
        rec.rel[i, 0] = run
        rec.rel[i, 1] = t
        rec.rel[i, 2] = arm
        rec.rel[i, 3] = n
        rec.rel[i, 4] = law
        rec.rel[i, 5] = tag
        rec.rel[i, 6] = rec.counts[0]
        rec.val[i, 0] = true
        rec.val[i, 1] = scale
        rec.val[i, 2] = value
    if rec.mode == REPLAY and i < rec.frozen.shape[0]:
        return rec.frozen[i]
    return value


@jit_inline
def rwindow(rec, tau, m):
    """Log the accuracy ``tau`` and modulus ``m`` (int64) a SecAgg batch's analyzer decodes
    with, on the row of the next :func:`release` (call it just before that release): the
    whole-run audit compares them with the declaration's (window [−τ, n g + τ]). With
    ``rec`` None it is nothing."""
    if rec is None:
        return
    i = rec.counts[1]
    if i < rec.rel.shape[0]:
        rec.rel[i, 7] = tau
        rec.rel[i, 8] = m


@jit_inline
def reveal(rec, run, t, arm, x):
    """A reward a non-private engine reads as it is (float64): ``x``, released with
    ``LAW_EXACT`` (n = 1) in the recording mode (frozen in a replay)."""
    return release(rec, run, t, arm, 1, LAW_EXACT, 0, x, 0.0, x)


@jit_inline
def hook_rng(rng, rec):
    """The generator a data-dependent release hook draws from: ``rng``, or ``rec.rng``."""
    if rec is None:
        return rng
    return rec.rng


def recorder(mode: int, capacity: int, block: int = -1, y: float = 0.0, seed: int = 0,
             frozen: np.ndarray | None = None, blocks: int | None = None,
             mirror: bool = False, shift: np.ndarray | None = None,
             gain: np.ndarray | None = None) -> Recorder:
    """A fresh :class:`Recorder` (Python side; the whole-run audit builds these).

    Parameters
    ----------
    mode : int
        ``RECORD`` or ``REPLAY``.
    capacity : int
        Releases it can hold (blocks: ``blocks``, default the same).
    block : int
        The changed user's block (−1: none).
    y : float
        That user's reward, in [0, 1].
    seed : int
        Seed of the release hooks' own generator.
    mirror : bool
        Mirror every reward but the changed user's, x → 1 − x (shift 1, gain −1).
    shift, gain : float64 (L,), optional
        Map every reward but the changed user's, of arm a, x → shift[a % L] +
        gain[a % L]·x (default: the mirror or the identity); keep rewards in
        [0, 1] (shift and shift + gain in [0, 1]).
    frozen : float64 (F,), optional
        ``REPLAY``: the recorded values.
    blocks : int, optional
        Blocks it can hold (default ``capacity``).

    Returns
    -------
    Recorder
        Counts at zero, logs zeroed.
    """
    blocks = capacity if blocks is None else blocks
    shift = np.atleast_1d(np.asarray(
        (1.0 if mirror else 0.0) if shift is None else shift, np.float64))
    gain = np.atleast_1d(np.asarray((-1.0 if mirror else 1.0) if gain is None else gain,
                                    np.float64))
    shift, gain = np.broadcast_arrays(shift, gain)
    return Recorder(np.int64(mode), np.int64(block), np.float64(y),
                    np.ascontiguousarray(shift), np.ascontiguousarray(gain),
                    np.random.default_rng(seed), np.zeros(2, np.int64),
                    np.zeros((blocks, 4), np.int64), np.zeros((capacity, REL_COLS), np.int64),
                    np.zeros((capacity, 3)),
                    np.zeros(0) if frozen is None else np.ascontiguousarray(frozen, np.float64))
