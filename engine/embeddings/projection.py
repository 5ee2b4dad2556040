"""2-D maps of embedding vectors: PCA, UMAP and t-SNE, deterministic for a seed.

``project`` is a job generator (Progress, cancel between stages). PCA is
computed here from a float64 covariance accumulated in chunks (so 200k x 768
float32 inputs never get a float64 copy) with the sign of each axis fixed,
which makes it deterministic and immediate. UMAP (``umap-learn``, imported
only when asked for: importing numba costs seconds) and t-SNE (scikit-learn)
run as one library call each; a cancel takes effect before and after that
call. Seeded UMAP runs single-threaded, which is what makes it reproducible.

``ProjectionCache`` keeps recent maps in memory keyed by whatever describes
them (``projection_key``): model, corpus, representation, method, parameters.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Generator, Hashable, Mapping

import numpy as np

from lm_workbench.engine.embeddings.names import PROJECTION_METHODS
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress

TSNE_SUBSAMPLE_ABOVE = 20_000  # the UI offers to subsample t-SNE inputs larger than this
UMAP_DEFAULTS: dict[str, Any] = {"n_neighbors": 15, "min_dist": 0.1, "metric": "cosine"}
TSNE_DEFAULTS: dict[str, Any] = {"perplexity": 30.0, "metric": "cosine", "max_iter": 1000, "init": "pca"}
_PCA_CHUNK = 8192  # rows per chunk when accumulating the covariance
_MIN_POINTS_NONLINEAR = 4


def subsample(n: int, max_points: int, seed: int = 0) -> np.ndarray:
    """Sorted indices of a seeded random subset of ``range(n)`` of size min(n, max_points)."""
    if max_points < 1:
        raise WorkbenchError(f"the subsample size must be at least 1, got {max_points}")
    if n <= max_points:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, size=max_points, replace=False))


def project(vectors: np.ndarray, method: str = "pca", *, seed: int = 0, params: Mapping[str, Any] | None = None,
            cancel: CancelToken = NEVER_CANCELLED) -> Generator[Progress, None, np.ndarray]:
    """Map vectors [n, H] to 2-D coordinates [n, 2] float32 (a job generator).

    ``params``: UMAP ``n_neighbors`` (15), ``min_dist`` (0.1), ``metric``
    ("cosine"); t-SNE ``perplexity`` (30), ``metric`` ("cosine"),
    ``max_iter`` (1000), ``init`` ("pca", deterministic whatever the seed, or
    "random", drawn from the seed). PCA takes none. UMAP's ``n_neighbors`` and t-SNE's
    perplexity are lowered to what the number of points allows.
    """
    x = np.asarray(vectors, dtype=np.float32)
    if x.ndim != 2 or x.shape[0] == 0:
        raise WorkbenchError(f"nothing to project: expected vectors [n, hidden] with n >= 1, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise WorkbenchError("the vectors contain NaN or infinite values; they cannot be projected")
    method = method.lower()
    params = dict(params or {})
    if method == "pca":
        if params:
            raise WorkbenchError(f"PCA takes no parameters, got {sorted(params)}")
        return (yield from _pca(x, cancel))
    if method not in PROJECTION_METHODS:
        raise WorkbenchError(f"unknown projection method {method!r}; "
                             f"choose one of {', '.join(PROJECTION_METHODS)}")
    if x.shape[0] < _MIN_POINTS_NONLINEAR:
        raise WorkbenchError(f"{method.upper()} needs at least {_MIN_POINTS_NONLINEAR} points, got {x.shape[0]}")
    if method == "umap":
        return (yield from _umap(x, seed, params, cancel))
    return (yield from _tsne(x, seed, params, cancel))


def _check_params(params: dict[str, Any], defaults: dict[str, Any], method: str) -> dict[str, Any]:
    unknown = set(params) - set(defaults)
    if unknown:
        raise WorkbenchError(f"unknown {method} parameter(s) {sorted(unknown)}; known: {sorted(defaults)}")
    return {**defaults, **params}


def pca_axes(x: np.ndarray, cancel: CancelToken = NEVER_CANCELLED) -> tuple[np.ndarray, np.ndarray]:
    """(mean [H], axes [H, 2]) of the top two principal components, sign-fixed.

    Each axis is flipped so that its largest-magnitude loading is positive (as
    scikit-learn's ``svd_flip`` does), so the map never mirrors between runs.
    """
    n, h = x.shape
    mean = np.zeros(h, dtype=np.float64)
    for a in range(0, n, _PCA_CHUNK):
        mean += x[a:a + _PCA_CHUNK].sum(axis=0, dtype=np.float64)
    mean /= n
    cov = np.zeros((h, h), dtype=np.float64)  # [H, H] scatter of the centred rows
    for a in range(0, n, _PCA_CHUNK):
        cancel.check()
        c = x[a:a + _PCA_CHUNK].astype(np.float64) - mean  # [chunk, H]
        cov += c.T @ c
    _, vecs = np.linalg.eigh(cov)  # ascending eigenvalues
    axes = vecs[:, ::-1][:, :2]  # [H, <=2]
    if axes.shape[1] < 2:
        axes = np.hstack([axes, np.zeros((h, 2 - axes.shape[1]))])
    for j in range(2):
        pivot = np.argmax(np.abs(axes[:, j]))
        if axes[pivot, j] < 0:
            axes[:, j] = -axes[:, j]
    return mean, axes


def _pca(x: np.ndarray, cancel: CancelToken) -> Generator[Progress, None, np.ndarray]:
    yield Progress(0, 2, "PCA: covariance")
    mean, axes = pca_axes(x, cancel)
    yield Progress(1, 2, "PCA: projecting")
    out = np.empty((x.shape[0], 2), dtype=np.float32)
    for a in range(0, x.shape[0], _PCA_CHUNK):
        cancel.check()
        out[a:a + _PCA_CHUNK] = (x[a:a + _PCA_CHUNK].astype(np.float64) - mean) @ axes
    yield Progress(2, 2, "PCA done")
    return out


def _umap(x: np.ndarray, seed: int, params: dict[str, Any], cancel: CancelToken
          ) -> Generator[Progress, None, np.ndarray]:
    p = _check_params(params, UMAP_DEFAULTS, "UMAP")
    n_neighbors = max(2, min(int(p["n_neighbors"]), x.shape[0] - 1))
    yield Progress(0, 3, "UMAP: importing umap-learn (numba)")
    cancel.check()
    try:
        import umap  # lazily: numba compiles on first use
    except ImportError as exc:
        raise WorkbenchError(f"UMAP needs the umap-learn package, which is not installed ({exc})") from exc
    cancel.check()
    yield Progress(1, 3, f"UMAP: fitting {x.shape[0]} points (single-threaded for a fixed seed)")
    reducer = umap.UMAP(n_components=2, n_neighbors=n_neighbors, min_dist=float(p["min_dist"]),
                        metric=str(p["metric"]), random_state=int(seed), n_jobs=1)
    coords = reducer.fit_transform(x)  # [n, 2]
    cancel.check()
    yield Progress(3, 3, "UMAP done")
    return np.asarray(coords, dtype=np.float32)


def _tsne(x: np.ndarray, seed: int, params: dict[str, Any], cancel: CancelToken
          ) -> Generator[Progress, None, np.ndarray]:
    from sklearn.manifold import TSNE

    p = _check_params(params, TSNE_DEFAULTS, "t-SNE")
    perplexity = min(float(p["perplexity"]), max(1.0, (x.shape[0] - 1) / 3.0))
    yield Progress(0, 2, f"t-SNE: fitting {x.shape[0]} points (perplexity {perplexity:g})")
    cancel.check()
    tsne = TSNE(n_components=2, perplexity=perplexity, metric=str(p["metric"]), max_iter=int(p["max_iter"]),
                init=str(p["init"]), learning_rate="auto", random_state=int(seed))
    coords = tsne.fit_transform(x)  # [n, 2]
    cancel.check()
    yield Progress(2, 2, "t-SNE done")
    return np.asarray(coords, dtype=np.float32)


def projection_key(model: Hashable, corpus: Hashable, representation: Hashable, method: str,
                   params: Mapping[str, Any] | None = None, seed: int = 0) -> tuple:
    """A hashable cache key; parameters are sorted so dict order does not matter."""
    items = tuple(sorted((str(k), repr(v)) for k, v in (params or {}).items()))
    return (model, corpus, representation, method.lower(), items, int(seed))


class ProjectionCache:
    """Recently computed maps, least recently used dropped first (thread-safe).

    The worker thread puts, the GUI thread gets; stored arrays are read-only
    copies so no caller can change a cached map in place.
    """

    def __init__(self, max_entries: int = 16):
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._items: OrderedDict[Hashable, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> np.ndarray | None:
        with self._lock:
            coords = self._items.get(key)
            if coords is not None:
                self._items.move_to_end(key)
            return coords

    def put(self, key: Hashable, coords: np.ndarray) -> np.ndarray:
        stored = np.array(coords, dtype=np.float32, copy=True)
        stored.setflags(write=False)
        with self._lock:
            self._items[key] = stored
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)
        return stored

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
