"""A resumed download's rate counts only what this try fetched (issue 36: "80.5 of 206.6 MB, 40.2 MB/s" from a
server sending 8 MB/s, because the 72 MB an earlier try left on disk counted as fetched in the first second)."""

from __future__ import annotations

import re

from lm_workbench.engine.models.download import _ByteCounter, _progress
from lm_workbench.engine.progress import NEVER_CANCELLED

MB = 2**20


def _rate(message: str) -> float:
    return float(re.search(r"([\d.]+) MB/s", message).group(1))


def test_bytes_found_on_disk_count_as_done_but_not_in_the_rate():
    counter = _ByteCounter(NEVER_CANCELLED)
    counter.keep(72 * MB)  # what stream_into finds in the .incomplete blob
    counter.add(8 * MB)  # one second of an 8 MB/s server
    assert counter.bytes == 80 * MB and counter.kept == 72 * MB
    resumed = _progress(0, 1, counter.bytes, 200 * MB, 1.0, counter.kept)
    assert resumed.done == 80 * MB and "80.0 of 200.0 MB" in resumed.message
    assert _rate(resumed.message) == 8.0
    assert _rate(_progress(0, 1, 80 * MB, 200 * MB, 1.0).message) == 80.0  # a fresh download: all of it fetched
