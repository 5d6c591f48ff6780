import os
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest

# Audits cached on disk (bandsim.privacy.auditcache) live in a fresh directory per
# test session: shared by the session's subprocesses, never by an earlier session.
os.environ["BANDSIM_CACHE_DIR"] = tempfile.mkdtemp(prefix="bandsim-test-cache-")

# A private result carries its whole-run verdict (bandsim.wholerun.cache.result_verdict):
# one audit per distinct setting, about 0.5 s each, which the hundreds of settings the
# suite simulates would pay again in every session. Off by default here; the modules
# that test the verdict, the board's ranking by it or its display turn it on (listed
# in RESULT_AUDIT_MODULES, or marked ``result_audit``).
os.environ["BANDSIM_RESULT_AUDIT"] = "off"

#: Significance level of every statistical test in the suite. With fixed seeds
#: the tests are deterministic; a correct implementation fails one of them
#: with probability about ALPHA per test before the seeds were fixed.
ALPHA = 1e-3

#: The SecAgg-family mechanisms of Chowdhury & Zhou (registered names).
SECAGG_NAMES = ("dist-dp", "dist-rdp", "dist-cdp", "central", "local", "dist-dp-shuffle")


def doc_example(marker, module="docs_example"):
    """Run the ```python block of docs/plugins.md that contains ``marker``, as written;
    its namespace."""
    doc = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
    block = next(b for b in re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)
                 if marker in b)
    ns = {"__name__": module}
    exec(compile(block, str(doc), "exec"), ns)
    return ns


def numba_cache_dir(src_dir):
    """Where Numba caches the functions of the files in ``src_dir``: under
    ``NUMBA_CACHE_DIR`` (``numba.core.config.CACHE_DIR``) when it is set, else in the
    ``__pycache__`` beside them (numba.core.caching's locators, in that order)."""
    from numba.core import config
    from numba.core.caching import _CacheLocator

    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / _CacheLocator.get_suitable_cache_subpath(
            str(Path(src_dir) / "any.py"))
    return Path(src_dir) / "__pycache__"


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


#: Test modules of `make test-fast` (pytest -m fast, under a minute warm): the command
#: line, configuration and bad input, layout rules, docstrings and the API's ergonomics.
#: Modules may also mark themselves (``pytestmark = pytest.mark.fast``).
FAST_MODULES = {"test_cli.py", "test_config.py", "test_fail_closed.py", "test_layout.py",
                "test_docstrings.py", "test_ux.py"}

#: Test modules whose results carry their whole-run verdict (see the top of this file).
RESULT_AUDIT_MODULES = {"test_wholerun.py", "test_plugins.py", "test_plugin_engine_audit.py",
                        "test_suite.py", "test_confidence.py", "test_sampled_engines.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in FAST_MODULES:
            item.add_marker(pytest.mark.fast)
        if item.path.name in RESULT_AUDIT_MODULES:
            item.add_marker(pytest.mark.result_audit)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """``BANDSIM_RESULT_AUDIT=on`` for the tests marked ``result_audit``, set before any
    of the item's fixtures (a module fixture is built in its first item's setup)."""
    on = item.get_closest_marker("result_audit") is not None
    os.environ["BANDSIM_RESULT_AUDIT"] = "on" if on else "off"
