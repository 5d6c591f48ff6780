"""Every built-in algorithm's fixed-seed outputs are bit-identical to the stored hashes.

The short-horizon half of the golden grid (tests/golden.py) runs here; the
long-horizon half with ``python -m tests.golden`` before and after a redesign.
A deliberate change of outputs is re-recorded with ``python -m tests.golden
--update`` and named in the commit message.
"""
import pytest

from tests import golden


def test_short_horizon_outputs_are_unchanged():
    want = golden.stored()
    if not want:
        pytest.skip(f"no golden outputs stored for numba {golden.numba_version()}; "
                    "record them with `python -m tests.golden --update`")
    got = dict(golden.grid(horizons=(20_000,)))
    assert len(got) >= 50, "the golden grid lost configurations"
    changed = sorted(k for k in got if want.get(k) != got[k])
    assert not changed, f"outputs changed for {len(changed)} configurations: {', '.join(changed)}"
