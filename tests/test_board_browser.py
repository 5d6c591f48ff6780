"""The suite's HTML board in a real headless browser: it loads, every image decodes, every
local link resolves, and the page logs no console error.

A tiny board (one instance, two ε, three algorithms of three trust models and their
counterparts, T = 2·10⁴, 8 runs; a best-arm identification board of DP-SE and its
non-private reference on C1 and C2, 20 runs) is built once through the CLI and served over
HTTP on localhost from a thread; Chromium (Debian's
``chromium``, which ``.ci/run`` installs) is driven through Playwright. Without
``/usr/bin/chromium`` or ``playwright`` the browser test is skipped with the reason (a
developer machine without apt); on CI (``CI`` set) both are installed, and a missing one
fails the test.
"""
import functools
import html
import http.server
import json
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from bandsim.cli import main
from bandsim.studies import bai_board, bai_render, board_compare, board_render
from bandsim.studies import leaderboard as lb
from bandsim.studies import suite

CHROMIUM = os.environ.get("BANDSIM_CHROMIUM", "/usr/bin/chromium")
#: Headless flags: no sandbox (CI runs as root), and no background traffic (the closed
#: network refuses it, which would log errors that are not the page's).
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TINY = suite.Tier("quick", (suite.SuiteInstance("C2-K3", "C2", 3),), (0.5, 4.0), (20_000,),
                  runs=8, step_runs=4, budget=0.4, algorithms=("dp-se", "ldp-se", "sdp-ae"))


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """The tiny board, written through the CLI."""
    out = tmp_path_factory.mktemp("board") / "a"
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(suite.TIERS, "quick", TINY)
        mp.setattr(bai_board, "INSTANCES", ("C1", "C2"))
        mp.setattr(bai_board, "board", lambda tier, names, runs, threads: bai_board.rows(
            tier, ["dp-se-bai", "se-bai"], 20, threads))
        assert main(["suite", "--quick", "--out", str(out), "--no-progress", "--no-cells"]) == 0
    return out


def test_the_html_board_states_versions_tier_runs_verdicts_and_figures(board):
    text = (board / "leaderboard.html").read_text()
    rows, _, meta = lb.read(board)
    for k in ("bandsim", "numpy", "numba"):
        assert f"{k} {meta['versions'][k]}" in text
    assert f"{meta['tier']} tier" in text and f"{meta['runs']:,} per configuration" in text
    trusts = {r["trust"] for r in rows if r["private"]}
    for trust in trusts:  # one regret-vs-ε figure per trust model with private entries
        rel = f"figures/regret-vs-eps-{board_render.slug(trust)}.svg"
        assert (board / rel).stat().st_size > 1000 and f"src='{rel}'" in text
        assert f"]({rel})" in (board / "leaderboard.md").read_text()
    assert text.count("<img ") == len(trusts) + 1 >= 4  # and the identification board's
    for r in rows:  # every configuration's verdict is on the page, in its cell's row
        assert lb.verdict_text(r) in text
    assert text.count("<td class='pass'>PASS ") == sum(r["verdict"] == "PASS" for r in rows) > 0


def test_the_boards_show_the_identification_board_and_its_figure(board):
    """Every identification row (E[τ] ± CI, Clopper–Pearson interval, censored, bound, verdict)
    is on both pages, with the τ-vs-ε figure and the JSON beside them."""
    text, md = ((board / f).read_text() for f in ("leaderboard.html", "leaderboard.md"))
    bai = json.loads((board / "bai_board.json").read_text())
    assert {r["algorithm"] for r in bai} == {"dp-se-bai", "se-bai"} and len(bai) == 8
    assert "Best-arm identification (fixed confidence δ = 0.01)" in text
    for r in bai:
        cells = [bai_render._row(r)[i] for i in (5, 7, 8, 9, 12)]  # τ, error CI, censored, …
        assert any(all(c in line for c in cells) for line in md.splitlines()), cells
        assert all(html.escape(c) in text for c in cells)
    assert (board / bai_render.FIGURE).stat().st_size > 1000
    assert f"src='{bai_render.FIGURE}'" in text and f"]({bai_render.FIGURE})" in md
    assert "href='bai_board.json'" in text


def test_the_identification_board_marks_what_it_cannot_rank(board):
    """A heuristic threshold is marked not provably δ-correct (in its row only), and a row
    failing correctness is shown unranked with its status."""
    rows = json.loads((board / "bai_board.json").read_text())
    rows[0] = dict(rows[0], threshold="heuristic")
    rows[1] = dict(rows[1], status="fails correctness (error rate > δ)", rank=None,
                   errors=9, error_rate=9 / rows[1]["stopped"])
    sec = bai_render.bai_section(rows, {}, board / "tmp")
    marked = [r for r in sec.rows if "not provably δ-correct" in r[-1]]
    assert len(marked) == 1 and marked[0][4] == "heuristic"
    failing = [r for r in sec.rows if r[-1].startswith("fails correctness")]
    assert len(failing) == 1 and failing[0][2] == "-" and failing[0][6].startswith("9/")
    assert all(r[-1] == "ranked" for r in sec.rows if r not in marked + failing)


def test_a_board_compared_with_itself_moves_nothing(board, tmp_path):
    old = lb.read(board)
    secs, counts = board_compare.compare(old, *lb.read(board))
    path = board_compare.write_compare(tmp_path, secs, counts, "old")
    assert secs == [] and "0 regrets moved, 0 ranks and 0 verdicts changed; 0 new and 0 " \
        "gone" in path.read_text()
    rows = [dict(r) for r in old[0]]
    rows[0]["verdict"] = "FAIL" if rows[0]["verdict"] != "FAIL" else "PASS"
    _, counts = board_compare.compare(old, rows, *old[1:])
    assert board_compare.summary(counts).startswith("0 regrets moved, 0 ranks and 1 verdicts")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _browser_or_skip():
    """Playwright's entry point; skip (fail on CI, where .ci/run installs both) without
    Chromium or playwright."""
    missing = None
    if not Path(CHROMIUM).is_file():
        missing = f"no Chromium at {CHROMIUM} (apt-get install chromium; .ci/run does)"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = missing or "playwright is not installed (pip install -e '.[test]')"
    if missing:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(missing)
    return sync_playwright


def _visit(directory):
    """Serve ``directory`` on localhost, open its leaderboard.html in Chromium; returns what
    the browser saw: console errors, failed requests, images (src, complete, natural width
    and height), local links with their HTTP status, the page's title."""
    sync_playwright = _browser_or_skip()
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    seen = dict(base=base, errors=[], failed=[])
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.on("console", lambda m: m.type == "error" and seen["errors"].append(m.text))
            page.on("pageerror", lambda exc: seen["errors"].append(str(exc)))
            page.on("requestfailed", lambda r: seen["failed"].append(r.url))
            page.on("response", lambda r: r.status >= 400 and seen["failed"].append(
                f"{r.status} {r.url}"))
            seen["ok"] = page.goto(base + "leaderboard.html", wait_until="load").ok
            seen["title"] = page.title()
            seen["images"] = page.eval_on_selector_all(
                "img", "els => els.map(e => [e.getAttribute('src'), e.complete, "
                       "e.naturalWidth, e.naturalHeight])")
            links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
            seen["links"] = {u: page.request.get(u).status for u in links
                             if urlparse(u).netloc == urlparse(base).netloc}
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return seen


PUBLISHED = Path(__file__).resolve().parent.parent / "board"


@pytest.mark.parametrize("which", ["tiny", "published"])
def test_the_html_board_loads_in_a_headless_browser(which, request):
    """The tiny board made here, and the published one in board/ (README links it)."""
    if which == "published" and not (PUBLISHED / "leaderboard.html").is_file():
        pytest.skip("no board/ beside tests/ (an installed copy of the tests)")
    seen = _visit(request.getfixturevalue("board") if which == "tiny" else PUBLISHED)
    base = seen["base"]
    assert seen["ok"] and seen["title"].startswith("bandsim suite")
    assert seen["errors"] == [] and seen["failed"] == []
    images = seen["images"]
    assert len(images) >= 3
    assert all(done and w > 0 and h > 0 for _, done, w, h in images), images
    # every figure and every data file is linked, and every local link resolves
    assert {urljoin(base, src) for src, *_ in images} <= set(seen["links"])
    assert {urljoin(base, f) for f, _ in board_render.DATA_FILES} <= set(seen["links"])
    assert all(s == 200 for s in seen["links"].values()), seen["links"]


def test_the_browser_test_catches_a_broken_image(board, tmp_path):
    """Negative control: the same board with a figure missing shows a failed request, a 404
    console error, an image of width 0 and a link that does not resolve."""
    shutil.copytree(board, tmp_path / "b")
    victim = sorted((tmp_path / "b" / "figures").iterdir())[0]
    victim.unlink()
    seen = _visit(tmp_path / "b")
    assert [w for src, _, w, _ in seen["images"] if src.endswith(victim.name)] == [0]
    assert any("404" in e for e in seen["errors"])
    assert any(victim.name in f for f in seen["failed"])
    assert [s for u, s in seen["links"].items() if u.endswith(victim.name)] == [404]
