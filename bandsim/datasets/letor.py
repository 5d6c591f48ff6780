"""MSLR-WEB10K / LETOR instances: k-means clusters of query-url pairs as arms.

Chowdhury & Zhou (2023, Section 7 and Appendix J; workshop version, Section 6)
build a K = 50 instance from MSLR-WEB10K (Qin & Liu 2013): 1,200,192 query-url
pairs, each with a relevance label 0…4, a query id and 136 features; k-means
with K = 50 on the features; each cluster is an arm whose reward is the
relevance of a random query-url pair in it, so its mean is the cluster's
empirical mean relevance.

Choices (docs/fidelity.md, "Instances from data"):

- Rewards must lie in [0, 1]: the reward is relevance / 4 (``max_label``), a
  categorical distribution on {0, .25, .5, .75, 1} with the cluster's label
  frequencies as probabilities (the paper says only "relevance label … which
  we take as rewards").
- Clustering is scikit-learn's ``MiniBatchKMeans`` (1.2 M rows) on the raw
  features, as the paper describes no scaling; ``standardize=True`` scales each
  feature to unit variance first. The seed, batch size and n_init are recorded.
- Arms are numbered by cluster index; empty clusters (possible with
  mini-batch k-means) are dropped and counted in the provenance.
"""
import bz2
import gzip
import warnings
from pathlib import Path

import numpy as np

from ..errors import ConfigError, check_int
from .files import DataFormatError, file_provenance, library_versions, write_instance

SKLEARN_MISSING = ("scikit-learn is needed to read LETOR files and cluster them: "
                   "install the data extra, `pip install 'bandsim[data]'`")


def _sklearn():
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise ConfigError("scikit-learn", "not installed", SKLEARN_MISSING) from None
    return sklearn


def _open_text(path):
    p = str(path)
    if p.endswith(".gz"):
        return gzip.open(p, "rt")
    if p.endswith(".bz2"):
        return bz2.open(p, "rt")
    return open(p)


def check_letor_line(line, max_label):
    """Problem with one LETOR/SVMlight line, or None if it is well formed.

    A line is ``label qid:Q idx:val idx:val … [# comment]`` with an integer
    label in [0, max_label], an integer qid, strictly increasing feature
    indices ≥ 1 and finite float values. Blank and comment-only lines are
    allowed. (Whether every line has a qid is checked by :func:`find_malformed`.)

    Returns
    -------
    (problem or None, has_qid or None for blank lines)
    """
    body = line.split("#", 1)[0].split()
    if not body:
        return None, None
    try:
        y = float(body[0])
    except ValueError:
        return f"label {body[0]!r} is not a number", None
    if y != int(y) or not 0 <= y <= max_label:
        return f"label {body[0]} is not an integer relevance in [0, {max_label}]", None
    rest = body[1:]
    has_qid = bool(rest) and rest[0].startswith("qid:")
    if has_qid:
        try:
            int(rest[0][4:])
        except ValueError:
            return f"query id {rest[0]!r} is not an integer", None
        rest = rest[1:]
    last = 0
    for tok in rest:
        idx, sep, val = tok.partition(":")
        try:
            i, v = int(idx), float(val)
        except ValueError:
            i, v = None, None
        if not sep or i is None:
            return f"feature {tok!r} is not of the form index:value", None
        if i < 1 or i <= last:
            return f"feature index {i} is not ≥ 1 and increasing", None
        if not np.isfinite(v):
            return f"feature {tok!r} is not finite", None
        last = i
    return None, has_qid


def find_malformed(path, max_label=4):
    """First malformed line of a LETOR file as ``(line_number, problem)`` (1-based), or None.

    Besides :func:`check_letor_line`, either every line has a qid or none has.
    """
    first_qid = None
    with _open_text(path) as f:
        for no, line in enumerate(f, 1):
            problem, has_qid = check_letor_line(line, max_label)
            if problem:
                return no, problem
            if has_qid is None:
                continue
            if first_qid is None:
                first_qid = has_qid
            elif has_qid != first_qid:
                return no, ("query id (qid:…) missing while earlier lines have one" if first_qid
                            else "query id (qid:…) present while earlier lines have none")
    return None


def read_letor(path, max_label=4, dtype=np.float32):
    """Read a LETOR / SVMlight ranking file (MSLR-WEB10K ``Fold*/train.txt`` etc.).

    Parameters
    ----------
    path : str or Path
        Text file (``.gz``/``.bz2`` allowed), one query-url pair per line:
        ``label qid:Q 1:x1 2:x2 … [# comment]``.
    max_label : int
        Largest relevance label (4 for MSLR).
    dtype : numpy dtype
        Feature dtype (float32 keeps the 1.2 M × 136 MSLR matrix at ~650 MB).

    Returns
    -------
    X : scipy.sparse.csr_matrix (n, d), ``dtype``
        Features (column j = feature index j + 1).
    labels : int64 (n,)
        Relevance labels in [0, max_label].
    qid : int64 (n,)
        Query ids (0 where a line has none).

    Raises
    ------
    DataFormatError
        Naming the first malformed line (1-based line number) and its problem.
    ConfigError
        scikit-learn missing (``pip install 'bandsim[data]'``), or no data.
    """
    _sklearn()
    from sklearn.datasets import load_svmlight_file

    path = Path(path)
    if not path.is_file():
        raise ConfigError("path", str(path), "no such file")
    max_label = check_int("max_label", max_label, 1)
    try:
        X, y, qid = load_svmlight_file(str(path), dtype=dtype, query_id=True,
                                       zero_based=False)
    except (ValueError, RuntimeError) as e:
        bad = find_malformed(path, max_label)
        if bad:
            raise DataFormatError(path, *bad) from None
        raise DataFormatError(path, None, f"cannot parse as LETOR/SVMlight ({e})") from None
    if len(qid) == 0:  # no line has a qid
        qid = np.zeros(len(y), np.int64)
    if (np.any((y != np.round(y)) | (y < 0) | (y > max_label))
            or not np.all(np.isfinite(X.data)) or len(qid) != len(y)):
        bad = find_malformed(path, max_label)
        raise DataFormatError(path, *(bad or (None, "labels, features or query ids malformed")))
    if y.size == 0:
        raise DataFormatError(path, None, "no query-url pairs")
    return X.tocsr(), y.astype(np.int64), np.asarray(qid, np.int64)


def for_kmeans(X):
    """X as scikit-learn's k-means takes it best: a dense array when mostly
    non-zero (MSLR: 1.2 M × 136 float32 ≈ 650 MB), else CSR with 32-bit indices."""
    if not hasattr(X, "tocsr"):
        return X
    if X.nnz > 0.3 * X.shape[0] * X.shape[1]:
        return X.toarray()
    X = X.tocsr()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def cluster_arms(X, clusters, seed, batch_size=4096, n_init=3, standardize=False):
    """Cluster the rows of X with scikit-learn's MiniBatchKMeans.

    Parameters
    ----------
    X : array or sparse matrix (n, d)
    clusters : int
        Number of clusters (arms before dropping empty ones).
    seed : int
        ``random_state`` of MiniBatchKMeans (deterministic for a given seed).
    batch_size, n_init : int
        MiniBatchKMeans parameters.
    standardize : bool
        Scale each feature to unit variance first (``StandardScaler``, no
        centering so sparse input stays sparse).

    Returns
    -------
    int64 (n,)
        Cluster index of every row.
    """
    _sklearn()
    from sklearn.cluster import MiniBatchKMeans
    from sklearn.preprocessing import StandardScaler

    X = for_kmeans(X)
    if standardize:
        X = StandardScaler(with_mean=False).fit_transform(X)
    km = MiniBatchKMeans(n_clusters=clusters, random_state=seed, batch_size=batch_size,
                         n_init=n_init)
    return km.fit_predict(X).astype(np.int64)


def build_mslr(path, out, clusters=50, seed=0, max_label=4, standardize=False,
               batch_size=4096, n_init=3, name=None):
    """Build a categorical instance file from an MSLR / LETOR file.

    Each of ``clusters`` k-means clusters of the query-url pairs is an arm; its
    reward is label/``max_label`` of a uniformly random pair of the cluster,
    i.e. categorical on {0, 1/max_label, …, 1} with the cluster's label
    frequencies.

    Parameters
    ----------
    path : str or Path, or a sequence of them
        LETOR text file(s) (see :func:`read_letor`); several files are
        concatenated (e.g. ``train.txt``, ``vali.txt``, ``test.txt`` of one
        MSLR-WEB10K fold = all 1,200,192 rows the paper uses).
    out : str or Path
        Output Parquet instance file (written atomically).
    clusters : int
        K before dropping empty clusters (the paper: 50).
    seed : int
        Clustering seed (recorded).
    max_label, standardize, batch_size, n_init
        See :func:`read_letor` and :func:`cluster_arms`.
    name : str, optional
        Instance name (default: the output file's stem).

    Returns
    -------
    Instance

    Raises
    ------
    DataFormatError, ConfigError
        Malformed input (naming the line), scikit-learn missing, fewer rows
        than clusters, fewer than 2 non-empty clusters. Nothing is written then.

    References
    ----------
    Chowdhury & Zhou (2023), Section 7 and Appendix J (Figure 1 d, e; Figure 5); Chowdhury & Zhou (2023, workshop version), Section 6.
    """
    clusters = check_int("clusters", clusters, 2, 100_000)
    seed = check_int("seed", seed, 0)
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    if not paths:
        raise ConfigError("path", paths, "give at least one LETOR file")
    parts = [read_letor(p, max_label) for p in paths]
    if len({X.shape[1] for X, _, _ in parts}) > 1:  # a file may omit trailing features
        d = max(X.shape[1] for X, _, _ in parts)
        parts = [(X.__class__((X.data, X.indices, X.indptr), shape=(X.shape[0], d)), y, q)
                 for X, y, q in parts]
    if len(parts) == 1:
        X, y, qid = parts[0]
    else:
        import scipy.sparse as sp

        X = sp.vstack([X for X, _, _ in parts], format="csr")
        y = np.concatenate([y for _, y, _ in parts])
        qid = np.concatenate([q for _, _, q in parts])
    del parts
    X = for_kmeans(X)  # frees the (larger) sparse matrix before clustering
    if X.shape[0] < clusters:
        raise ConfigError("clusters", clusters,
                          f"must be at most the number of query-url pairs ({X.shape[0]})")
    assign = cluster_arms(X, clusters, seed, batch_size, n_init, standardize)
    counts = np.zeros((clusters, max_label + 1), np.int64)
    np.add.at(counts, (assign, y), 1)
    sizes = counts.sum(axis=1)
    kept = np.flatnonzero(sizes > 0)
    if kept.size < clusters:
        warnings.warn(f"{clusters - kept.size} of {clusters} clusters are empty and were dropped",
                      stacklevel=2)
    if kept.size < 2:
        raise ConfigError("clusters", clusters, "fewer than 2 non-empty clusters")
    grid = np.arange(max_label + 1) / max_label
    values, probs = [], []
    for c in kept:
        nz = counts[c] > 0
        values.append(grid[nz])
        probs.append(counts[c, nz] / sizes[c])
    qids_per = [np.unique(qid[assign == c]).size for c in kept]
    provenance = {
        "builder": "bandsim.datasets.letor.build_mslr",
        "source": (file_provenance(paths[0]) if len(paths) == 1
                   else [file_provenance(p) for p in paths]),
        "rows": int(X.shape[0]), "features": int(X.shape[1]),
        "queries": int(np.unique(qid).size),
        "reward": f"relevance / {max_label} of a uniformly random query-url pair of the cluster",
        "clustering": {"algorithm": "sklearn.cluster.MiniBatchKMeans", "n_clusters": clusters,
                       "random_state": seed, "batch_size": batch_size, "n_init": n_init,
                       "standardize": bool(standardize), "empty_clusters_dropped":
                       int(clusters - kept.size)},
        "label_counts": counts.sum(axis=0).tolist(),
        "versions": library_versions("scikit-learn", "scipy"),
        "reference": "Chowdhury & Zhou, Chowdhury & Zhou (2023) Section 7 / Appendix J (MSLR-WEB10K, K = 50)",
    }
    return write_instance(
        out, values, probs, name=name or Path(out).stem, kind="mslr", provenance=provenance,
        labels=[f"cluster {c}" for c in kept], sizes=sizes[kept],
        extra={"queries": np.array(qids_per, np.int64),
               **{f"label_{j}": counts[kept, j] for j in range(max_label + 1)}})
