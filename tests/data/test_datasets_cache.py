"""Datasets by name (``glue/sst2:validation``) from a local ``datasets`` cache, offline.

The cache is made by the real ``datasets`` library (its JSON builder, prepared into a temporary cache and
placed where a hub download of ``nyu-mll/glue`` leaves it), so the workbench's reader meets the same arrow
files and ``dataset_info.json`` a user's machine holds.
"""

from __future__ import annotations

import json
import sys

import pytest

from lm_workbench.engine.errors import WorkbenchError
from tests.data.published_shapes import SST2_ROWS as SST2

datasets = pytest.importorskip("datasets")


def test_a_split_in_the_cache_reads_like_a_file(in_cache):
    from lm_workbench.engine.data.hub_datasets import cached_datasets
    from lm_workbench.engine.data.tasks import read_classification

    assert [(d.name, d.config, d.splits) for d in cached_datasets()] == [
        ("nyu-mll/glue", "sst2", {"validation": 4}), ("nyu-mll/glue", "stsb", {"validation": 4})]
    for reference in ("glue/sst2:validation", "nyu-mll/glue/sst2:validation"):
        read = read_classification(reference)
        assert [(e.text, e.label) for e in read.examples] == [(s, ["negative", "positive"][y]) for s, y in SST2]
        assert read.report.summary() == "read 4 rows, skipped 0"
    assert len(read_classification("glue/sst2:validation[:2]").examples) == 2


def test_wrong_names_say_what_the_cache_holds(in_cache):
    from lm_workbench.engine.data.table import read_table

    with pytest.raises(WorkbenchError, match="configuration.*sst2, stsb; name one"):
        read_table("glue/cola:validation")
    with pytest.raises(WorkbenchError, match="has the split.*validation, not 'test'"):
        read_table("glue/sst2:test")
    with pytest.raises(WorkbenchError, match="imdb:test: not in the local datasets cache .*load it once"):
        read_table("imdb:test")


def test_without_the_extra_one_line_says_how_to_install_it(in_cache, monkeypatch):
    from lm_workbench.engine.data.table import read_table

    monkeypatch.setitem(sys.modules, "datasets.packaged_modules.cache.cache", None)
    with pytest.raises(WorkbenchError, match=r"needs the datasets package: .*pip install") as info:
        read_table("glue/sst2:validation")
    assert "\n" not in str(info.value)


def test_sts_by_name_through_the_cli(in_cache, capsys, fresh_home):
    from lm_workbench.cli.main import main

    code = main(["sts", "minilm", "--data", "glue/stsb:validation", "--columns", "sentence1,sentence2,label",
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert (report["rows_read"], report["rows_skipped"], report["rows_scored"]) == (4, 0, 4)
