"""Two writers of one index chunk (the window and the CLI indexing the same corpus, or two threads) each write a
temporary file of their own: a fixed ``.tmp`` name was shared, so one renamed the other's half-written file away
(FileNotFoundError) or put it in place. The activation cache had the same fault (thread idents reused)."""

from __future__ import annotations

import threading

import numpy as np

from lm_workbench.engine.retrieval.cache import IndexCache


def test_two_writers_of_one_chunk_never_trip_over_each_others_files(tmp_path):
    meta = {"passages": 4, "dim": 3}
    caches = [IndexCache(tmp_path / "cache", meta, chunk_size=4) for _ in range(2)]
    for cache in caches:
        cache.open()
    errors: list[BaseException] = []

    def write(cache: IndexCache, value: float) -> None:
        try:
            for _ in range(200):
                cache.write(0, np.full((4, 3), value, dtype=np.float32), truncated=int(value))
        except BaseException as exc:  # noqa: BLE001 - the test reports any
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(c, v)) for c, v in zip(caches, (1.0, 2.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    vectors, truncated = caches[0].read(0)
    assert vectors.shape == (4, 3) and float(vectors[0, 0]) in (1.0, 2.0)
    assert not [p.name for p in caches[0].folder.iterdir() if p.name.endswith(".tmp")]
