"""``make docs``: the API reference builds from the docstrings with no warning.

The reference (docs/api: Sphinx with numpydoc) covers ``bandsim``,
``bandsim.plugin``, ``bandsim.backend`` and ``bandsim.env``, with every Markdown
guide of docs/ (MyST: docs/api/guides/*.md include them); a docstring that
breaks the reStructuredText (an unexpected indentation, a stray ``**``) fails
here. The Markdown guides' examples run in tests/test_docs.py.
"""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_api_reference_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("numpydoc")
    out = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b",
                          "html", str(ROOT / "docs" / "api"), str(tmp_path / "html")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    page = (tmp_path / "html" / "index.html").read_text()
    for name in ("bandsim.simulate", "bandsim.backend", "bandsim.env.make", "bandsim.plugin",
                 "batch_sum", "discrete_laplace_sum"):
        assert name in page, name
    # the Markdown guides are in the site (MyST), every one of them
    guides = sorted(p.stem for p in (ROOT / "docs").glob("*.md"))
    assert sorted(p.stem for p in (ROOT / "docs" / "api" / "guides").glob("*.md")) == guides
    for name in guides:
        assert f'href="guides/{name}.html"' in page, name
    assert "Example (f)" in (tmp_path / "html" / "guides" / "plugins.html").read_text()


def test_a_broken_docstring_fails_the_build(tmp_path):
    pytest.importorskip("sphinx")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text((ROOT / "docs" / "api" / "conf.py").read_text())
    (src / "index.rst").write_text("x\n=\n\n.. autofunction:: broken_mod.f\n")
    (src / "broken_mod.py").write_text('def f():\n    """Bad.\n\n    a\n        b\n    c **d\n    """\n')
    out = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(src)!r});"
                          "from sphinx.cmd.build import main; sys.exit(main(['-W', '-q', '-b', "
                          f"'html', {str(src)!r}, {str(tmp_path / 'html')!r}]))"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode != 0
