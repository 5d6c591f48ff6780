"""Instance files from data: LETOR/MSLR (generated files) and the Open Bandit sample."""
import csv
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import bandsim
from bandsim import ConfigError
from bandsim.cli import main
from bandsim.datasets import (DataFormatError, SparseDataWarning, build_mslr, build_obd,
                              load_instance, read_instance_table, read_letor)

#: the Open Bandit sample, located through ../shared/data from the repository root
OBD_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "open-bandit-dataset"
OBD_ALL = OBD_DIR / "random" / "all" / "all.csv"
needs_obd = pytest.mark.skipif(
    not OBD_ALL.is_file(),
    reason=f"Open Bandit sample not found at {OBD_ALL} (../shared/data relative to the repo)")


def write_letor(path, n=800, seed=0, features=6, blobs=4):
    """n query-url pairs in ``blobs`` well separated blobs; blob b's labels favour b."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(0, 10, (blobs, features))
    lines = []
    for i in range(n):
        b = i % blobs
        x = centers[b] + rng.normal(0, 1, features)
        label = rng.choice(5, p=np.roll([0.5, 0.2, 0.15, 0.1, 0.05], b))
        lines.append(f"{label} qid:{i // 10} " + " ".join(f"{j + 1}:{v:.5f}"
                                                          for j, v in enumerate(x)))
    Path(path).write_text("\n".join(lines) + "\n")
    return path


def test_read_letor_parses_labels_qids_features_comments(tmp_path):
    p = tmp_path / "small.txt"
    p.write_text("# header comment\n"
                 "2 qid:10 1:0.5 3:1.5 # docid = 1\n"
                 "\n"
                 "0 qid:10 2:-1 3:2\n"
                 "4 qid:11 1:3\n")
    X, y, qid = read_letor(p)
    assert y.tolist() == [2, 0, 4] and qid.tolist() == [10, 10, 11]
    np.testing.assert_allclose(X.toarray(), [[0.5, 0, 1.5], [0, -1, 2], [3, 0, 0]])


def test_mslr_instance_from_clusters_round_trip(tmp_path):
    src = write_letor(tmp_path / "train.txt")
    out = tmp_path / "inst.parquet"
    inst = build_mslr(src, out, clusters=4, seed=3)
    assert inst.rewards == "categorical" and inst.arms == 4
    table, meta = read_instance_table(out)
    cols = table.to_pydict()
    # the blobs are recovered: four clusters of 200 pairs
    assert sorted(cols["size"]) == [200] * 4
    assert meta["kind"] == "mslr" and meta["provenance"]["clustering"]["random_state"] == 3
    assert meta["provenance"]["rows"] == 800 and meta["provenance"]["features"] == 6
    assert len(meta["provenance"]["source"]["sha256"]) == 64
    # each arm: relevance/4 with the cluster's label frequencies; mean = Σ p v
    for a in range(4):
        labels = np.array([cols[f"label_{j}"][a] for j in range(5)])
        assert labels.sum() == cols["size"][a]
        grid = np.arange(5)[labels > 0] / 4
        np.testing.assert_allclose(cols["values"][a], grid)
        np.testing.assert_allclose(cols["probs"][a], labels[labels > 0] / labels.sum())
        assert cols["mean"][a] == pytest.approx((np.arange(5) / 4 * labels).sum() / labels.sum())
    # round trip: the loaded instance is the written one
    again = load_instance(out)
    np.testing.assert_allclose(again.means, cols["mean"])
    np.testing.assert_allclose(again.values, inst.values)
    np.testing.assert_allclose(again.probs, inst.probs)
    assert again.source["sha256"] == inst.source["sha256"]


def test_clustering_is_deterministic_given_the_seed(tmp_path):
    src = write_letor(tmp_path / "train.txt", n=600, blobs=6, seed=5)
    a = build_mslr(src, tmp_path / "a.parquet", clusters=5, seed=11)  # 5 < 6 blobs: ambiguous
    b = build_mslr(src, tmp_path / "b.parquet", clusters=5, seed=11)
    ta, tb = read_instance_table(tmp_path / "a.parquet")[0], read_instance_table(tmp_path / "b.parquet")[0]
    assert ta.equals(tb)
    np.testing.assert_array_equal(a.probs, b.probs)


BAD_LINES = [
    ("x qid:1 1:0.5", "label 'x'"),
    ("7 qid:1 1:0.5", "label 7"),
    ("1.5 qid:1 1:0.5", "label 1.5"),
    ("1 qid:a 1:0.5", "query id"),
    ("1 qid:1 1:zz", "feature '1:zz'"),
    ("1 qid:1 2:0.5 1:0.5", "feature index 1"),
    ("1 qid:1 0:0.5", "feature index 0"),
    ("1 1:0.5", "qid"),
]


@pytest.mark.parametrize("bad, problem", BAD_LINES)
def test_malformed_line_is_named_and_nothing_is_written(tmp_path, bad, problem):
    src = tmp_path / "bad.txt"
    good = "2 qid:1 1:0.5 2:0.1"
    src.write_text("\n".join([good, good, "# comment", good, bad, good]) + "\n")
    out = tmp_path / "inst.parquet"
    out.write_bytes(b"previous content")
    with pytest.raises(DataFormatError) as e:
        build_mslr(src, out, clusters=2, seed=0)
    assert "line 5" in str(e.value) and problem in str(e.value)
    assert out.read_bytes() == b"previous content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt", "inst.parquet"]


def test_interrupted_write_leaves_no_half_file(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    src = write_letor(tmp_path / "train.txt", n=100)
    out = tmp_path / "inst.parquet"

    def broken(table, where, **kw):  # a path or, through bandsim.atomic, a file object
        where.write(b"PAR1 half") if hasattr(where, "write") else Path(where).write_bytes(b"PAR1")
        raise OSError("disk full")
    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError):
        build_mslr(src, out, clusters=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.txt"]


def test_missing_scikit_learn_says_how_to_install(tmp_path, monkeypatch):
    src = write_letor(tmp_path / "train.txt", n=40)
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ConfigError, match=r"bandsim\[data\]"):
        build_mslr(src, tmp_path / "x.parquet", clusters=2)


def test_mslr_cli_build_show_and_run(tmp_path, capsys):
    src = write_letor(tmp_path / "train.txt", n=400)
    out = tmp_path / "mslr.parquet"
    assert main(["instances", "build", "mslr", str(src), "--clusters", "4", "--seed", "1",
                 "--out", str(out)]) == 0
    assert "cluster 0" in capsys.readouterr().out  # the build prints the table
    assert main(["instances", "show", str(out), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert len(shown["arms"]) == 4 and min(a["gap"] for a in shown["arms"]) == 0
    assert main(["run", "dp-se", "--instance-file", str(out), "--epsilon", "1",
                 "--horizon", "1e5", "--runs", "64", "--seed", "1", "--json"]) == 0
    s, = json.loads(capsys.readouterr().out)
    assert s["instance"] == "mslr" and s["arms"] == 4


def test_not_an_instance_file_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "x.parquet"
    bad.write_text("not parquet")
    assert main(["run", "dp-se", "--instance-file", str(bad), "--epsilon", "1",
                 "--horizon", "1e4"]) == 2
    assert main(["instances", "show", str(tmp_path / "missing.parquet")]) == 2
    err = " ".join(capsys.readouterr().err.split())  # rich wraps long lines
    assert "not a Parquet file" in err and "no such file" in err and "Traceback" not in err
    with pytest.raises(ConfigError, match="not both"):
        bandsim.simulate("batch-se", instance="C1", arms=3, instance_file=bad, horizon=100)


# --- Open Bandit Dataset -------------------------------------------------------------


def count_csv(path, position=None):
    """Impressions and clicks per item, counted independently with the csv module."""
    imp, clk = {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if position is not None and int(r["position"]) != position:
                continue
            i = int(r["item_id"])
            imp[i] = imp.get(i, 0) + 1
            clk[i] = clk.get(i, 0) + int(r["click"])
    return imp, clk


@needs_obd
@pytest.mark.parametrize("position", [None, 2])
def test_obd_items_are_bernoulli_arms_with_their_ctr(tmp_path, position):
    out = tmp_path / "obd.parquet"
    with pytest.warns(SparseDataWarning, match="fewer than 10 clicks"):
        inst = build_obd(OBD_ALL, out, position=position)
    imp, clk = count_csv(OBD_ALL, position)
    table, meta = read_instance_table(out)
    cols = table.to_pydict()
    items = [int(label.split()[1]) for label in cols["label"]]
    assert items == sorted(imp) and inst.arms == len(imp) == 80
    assert cols["impressions"] == [imp[i] for i in items]
    assert cols["clicks"] == [clk[i] for i in items]
    assert inst.rewards == "bernoulli"
    np.testing.assert_allclose(inst.means, [clk[i] / imp[i] for i in items])
    assert all(lo <= m <= hi for lo, m, hi in zip(cols["ctr_low"], inst.means, cols["ctr_high"]))
    assert meta["provenance"]["uniform_random_logging"] is True
    assert meta["provenance"]["impressions"] == sum(imp.values())


@needs_obd
def test_obd_cli_build_show_run(tmp_path, capsys):
    out = tmp_path / "obd.parquet"
    assert main(["instances", "build", "obd", str(OBD_ALL), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "fewer than 10 clicks" in captured.err and "impressions" in captured.out
    assert main(["run", "dp-se,batch-se", "--instance-file", str(out), "--epsilon", "1",
                 "--horizon", "1e6", "--runs", "64", "--seed", "1", "--out", str(tmp_path)]) == 0
    res = bandsim.Result.from_parquet(tmp_path / "dp-se_obd_eps1.parquet")
    assert res.config["instance_file"]["kind"] == "obd"
    assert res.config["instance_file"]["provenance"]["source"]["path"] == str(OBD_ALL.resolve())
    assert res.pulls.shape == (64, 80)


def test_obd_malformed_rows_are_named(tmp_path):
    src = tmp_path / "log.csv"
    header = ",timestamp,item_id,position,click,propensity_score"
    rows = [f"{i},t,{i % 3},1,0,0.333" for i in range(4)]
    src.write_text("\n".join([header] + rows[:2] + ["2,t,1,1,2,0.333"] + rows[2:]) + "\n")
    with pytest.raises(DataFormatError, match="line 4: click='2'"):
        build_obd(src, tmp_path / "o.parquet")
    src.write_text("\n".join([header] + rows[:1] + ["2,t,x,1,0,0.333"]) + "\n")
    with pytest.raises(DataFormatError, match="line 3: item_id='x'"):
        build_obd(src, tmp_path / "o.parquet")
    src.write_text("a,b\n1,2\n")
    with pytest.raises(DataFormatError, match="line 1: header lacks"):
        build_obd(src, tmp_path / "o.parquet")
    assert not (tmp_path / "o.parquet").exists()


def test_obd_warns_on_non_uniform_logging_and_bad_position(tmp_path):
    src = tmp_path / "log.csv"
    lines = [",item_id,position,click,propensity_score"]
    lines += [f"{i},{i % 2},1,{int(i % 4 == 0)},{0.5 if i % 3 else 0.4}" for i in range(200)]
    src.write_text("\n".join(lines) + "\n")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        build_obd(src, tmp_path / "o.parquet", min_clicks=0)
    assert any("not a uniform-random log" in str(x.message) for x in w)
    with pytest.raises(ConfigError, match="logged slots"):
        build_obd(src, tmp_path / "o.parquet", position=3)


def test_several_letor_files_are_concatenated(tmp_path, capsys):
    a = write_letor(tmp_path / "train.txt", n=400, seed=1)
    b = tmp_path / "vali.txt"
    b.write_text("3 qid:900 1:0.5\n1 qid:901 2:0.25\n")  # fewer features than train.txt
    out = tmp_path / "all.parquet"
    assert main(["instances", "build", "mslr", str(a), str(b), "--clusters", "4",
                 "--out", str(out)]) == 0
    table, meta = read_instance_table(out)
    assert sum(table.column("size").to_pylist()) == 402
    assert meta["provenance"]["rows"] == 402 and meta["provenance"]["features"] == 6
    assert [s["path"] for s in meta["provenance"]["source"]] == [str(a), str(b)]
    assert "train.txt, " in " ".join(capsys.readouterr().out.split())
