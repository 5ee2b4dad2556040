"""Workspace files: a round trip, and damaged or newer files opening what they can with the reasons."""

from __future__ import annotations

import json
import zipfile

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.workspace.format import MANIFEST, Workspace, open_workspace, save_workspace
from lm_workbench.workspace.models import local_spec, portable_spec


def sample() -> Workspace:
    return Workspace(model="minilm", text="The bank is closed.", pair="It opens at nine.", current_view="attention",
                     views={"attention": {"settings": {"layer": 2, "heads": [3]}, "inputs": {}},
                            "embeddings": {"settings": {"k": 4}, "inputs": {"corpus": {"lines": ["a b"] * 500}}}},
                     preset={"name": "x", "step": 1, "definition": {"format": "lm-workbench-preset/1"}},
                     model_b="gpt2")


def test_round_trip_is_exact_and_holds_no_pickle(tmp_path):
    path = save_workspace(sample(), tmp_path / "s.lmw")
    back = open_workspace(path)
    assert back == sample() and back.problems == []
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["views/attention.json", "views/embeddings.json", MANIFEST]
        assert all(json.loads(zf.read(n)) is not None for n in zf.namelist())


@pytest.mark.parametrize("key", ["model_b", "compared"])
def test_model_b_is_written_as_model_b_and_read_under_either_key(tmp_path, key):
    path = save_workspace(sample(), tmp_path / "s.lmw")
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(members[MANIFEST])
    assert manifest["model_b"] == "gpt2" and "compared" not in manifest
    manifest[key] = manifest.pop("model_b")  # "compared": the key older versions wrote
    members[MANIFEST] = json.dumps(manifest).encode()
    old = tmp_path / "old.lmw"
    with zipfile.ZipFile(old, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    back = open_workspace(old)
    assert back.model_b == "gpt2" and back.problems == []


def test_bad_json_in_one_member_leaves_out_that_view_only(tmp_path):
    path = tmp_path / "s.lmw"
    with zipfile.ZipFile(path, "w") as zf:
        src = zipfile.ZipFile(save_workspace(sample(), tmp_path / "ok.lmw"))
        for name in src.namelist():
            zf.writestr(name, b"{not json" if name == "views/embeddings.json" else src.read(name))
    ws = open_workspace(path)
    assert ws.text == sample().text and list(ws.views) == ["attention"]
    assert len(ws.problems) == 1 and ws.problems[0].startswith("views/embeddings.json: not valid JSON")


def test_truncated_zip_is_salvaged_from_its_local_headers(tmp_path):
    ok = save_workspace(sample(), tmp_path / "ok.lmw")
    data = ok.read_bytes()
    with zipfile.ZipFile(ok) as zf:
        second = zf.infolist()[1].header_offset
    cut = tmp_path / "cut.lmw"
    cut.write_bytes(data[:-60])  # the zip directory at the end is gone
    ws = open_workspace(cut)
    assert ws.model == "minilm" and ws.views == sample().views
    assert any("damaged" in p for p in ws.problems)
    cut.write_bytes(data[: second + 40])  # cut inside the second member: the first (the manifest) survives
    ws = open_workspace(cut)
    assert ws.text == sample().text and ws.views == {} and ws.problems


def test_a_newer_version_opens_what_it_knows_and_says_so(tmp_path):
    path = save_workspace(sample(), tmp_path / "new.lmw")
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(members[MANIFEST])
    manifest.update(version=7, hologram={"x": 1})
    members[MANIFEST] = json.dumps(manifest).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    ws = open_workspace(path)
    assert ws.current_view == "attention" and ws.views == sample().views
    assert len(ws.problems) == 1 and "version 7" in ws.problems[0] and "hologram" in ws.problems[0]


def test_not_a_workspace_is_refused(tmp_path):
    other = tmp_path / "other.lmw"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr(MANIFEST, json.dumps({"format": "something-else"}))
    with pytest.raises(WorkbenchError, match="not an LM Workbench workspace"):
        open_workspace(other)
    with pytest.raises(WorkbenchError, match="no such workspace file"):
        open_workspace(tmp_path / "missing.lmw")


def test_course_models_travel_by_family(tmp_path):
    course = {"bert": str(tmp_path / "c" / "bert")}
    assert portable_spec("/x/bert", str(tmp_path / "c" / "bert"), course) == "course:bert"
    assert portable_spec("minilm", "/site/minilm", course) == "minilm"
    assert local_spec("course:bert", course) == (course["bert"], "")
    spec, problem = local_spec("course:t5", course)
    assert spec is None and "course t5 model" in problem
    spec, problem = local_spec(str(tmp_path / "gone"), course)
    assert spec is None and "not on this machine" in problem
