import os
import tempfile

import numpy as np
import pytest

# Audits cached on disk (bandsim.privacy.auditcache) live in a fresh directory per
# test session: shared by the session's subprocesses, never by an earlier session.
os.environ["BANDSIM_CACHE_DIR"] = tempfile.mkdtemp(prefix="bandsim-test-cache-")

#: Significance level of every statistical test in the suite. With fixed seeds
#: the tests are deterministic; a correct implementation fails one of them
#: with probability about ALPHA per test before the seeds were fixed.
ALPHA = 1e-3

#: The SecAgg-family mechanisms of Chowdhury & Zhou (registered names).
SECAGG_NAMES = ("dist-dp", "dist-rdp", "dist-cdp", "central", "local", "dist-dp-shuffle")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


#: Test modules of `make test-fast` (pytest -m fast, under a minute warm): the command
#: line, configuration and bad input, layout rules, docstrings and the API's ergonomics.
#: Modules may also mark themselves (``pytestmark = pytest.mark.fast``).
FAST_MODULES = {"test_cli.py", "test_config.py", "test_fail_closed.py", "test_layout.py",
                "test_docstrings.py", "test_ux.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in FAST_MODULES:
            item.add_marker(pytest.mark.fast)
