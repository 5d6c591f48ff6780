"""Every Python block of README.md and docs/*.md runs as written.

A block that is not meant to run (it needs a file the reader has, or shows
output) is preceded by the line ``<!-- no-run: reason -->``. Blocks of one
file run in order in one namespace, in a temporary directory, with the
plug-ins they register removed afterwards. docs/plugins.md is run by
tests/test_plugins.py (its examples fixture) and only counted here;
docs/backend.md by tests/test_backend.py (with its negative control).
"""
import os
import re
from pathlib import Path

import pytest

from bandsim.registry import algorithms, mechanisms, unregister

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- no-run:[^>]*-->\n)?```python\n(.*?)```", re.S)


def blocks(path):
    """(runnable, code) of every ```python block of ``path``."""
    return [(not skip, code) for skip, code in BLOCK.findall(path.read_text())]


def test_every_skipped_block_says_why():
    for path in FILES:
        for m in re.finditer(r"<!-- no-run:([^>]*)-->", path.read_text()):
            assert m.group(1).strip(), f"{path.name}: a no-run marker without a reason"


#: Pages whose blocks another test module runs (with fixtures or negative controls).
RUN_ELSEWHERE = ("plugins.md", "backend.md")


@pytest.mark.parametrize("path", [p for p in FILES if p.name not in RUN_ELSEWHERE
                                  and any(r for r, _ in blocks(p))], ids=lambda p: p.name)
def test_python_blocks_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = set(algorithms()) | set(algorithms("identification")) | set(mechanisms())
    ns = {"__name__": f"docs_{path.stem}"}
    try:
        for runnable, code in blocks(path):
            if runnable:
                exec(compile(code, str(path), "exec"), ns)
    finally:
        unregister(*(set(algorithms()) | set(algorithms("identification"))
                     | set(mechanisms())) - before)


def test_plugins_doc_blocks_are_all_run_by_test_plugins():
    from tests.test_plugins import doc_blocks

    assert len(doc_blocks()) == len(blocks(ROOT / "docs" / "plugins.md"))
    assert all(r for r, _ in blocks(ROOT / "docs" / "plugins.md"))
