"""Guide files: a broken page is refused naming its file and line (table-driven), guides come from a folder, the
user's folder and the ``lm_workbench.guides`` entry points; progress (tries, resume, a changed page, CSV, reset);
hints and the reveal after three wrong tries."""

from __future__ import annotations

import csv
import importlib.metadata
import re
from pathlib import Path

import pytest

from lm_workbench.guide.library import GROUP, all_guides, load_guide, load_page_text
from lm_workbench.guide.page import FORMAT, GuideError
from lm_workbench.guide.progress import CSV_COLUMNS, Progress
from lm_workbench.guide.questions import Expected
from lm_workbench.guide.state import GuideState

VIEWS = {"attention": frozenset({"layer", "heads", "hide_special"}), "tokens": frozenset(),
         "finetune": frozenset({"task", "method", "show"})}

GOOD = f"""format: {FORMAT}
id: heads-row
title: A row of attention
lecture: 3
view: attention
model: default
text: The cat sat on the mat.
settings: {{"layer": 0, "heads": [1]}}
exercise: click-token
ask: Where does "cat" look?
question: most_attended
args: {{"query": "cat"}}
hint: first hint
hint: second hint
---
Some text about attention.
"""


def _line(text: str, key: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if line.startswith(key))


def _swap(key: str, new: str) -> str:
    return re.sub(rf"^{key}:.*$", new, GOOD, count=1, flags=re.M)


def test_a_good_page_loads():
    page = load_page_text(GOOD, "heads.page", VIEWS)
    assert (page.id, page.view, page.exercise.kind, page.exercise.hints) == (
        "heads-row", "attention", "click-token", ("first hint", "second hint"))
    assert page.step.settings == {"layer": 0, "heads": [1]} and page.step.inputs == {"text": "The cat sat on the mat."}


BROKEN = [  # (the key whose line is replaced, by what, the key whose line the refusal names, the message)
    ("view", "view: nowhere", "view", "view: unknown view 'nowhere'"),
    ("settings", 'settings: {"layr": 0}', "settings", "settings: the 'attention' view has no setting layr"),
    ("question", "question: largest_head", "question",
     "question: unknown question 'largest_head' for the 'attention' view"),
    ("args", 'args: {"quer": "cat"}', "question", "question: most_attended takes no argument quer"),
    ("exercise", "exercise: drag", "exercise", "exercise: unknown kind 'drag'"),
    ("format", "format: lm-workbench-guide/9", "format", "is a newer format than this version reads"),
    ("lecture", "lecture: 7", "lecture", "lecture: one of 1, 2, 3, 4, 5"),
    ("id", "id: Bad Id", "id", "id: lower-case letters"),
    ("args", "args: {query: cat}", "args", "args: not valid JSON"),
    ("model", "model: default\ncolour: red", "colour", "unknown key 'colour'"),
    ("exercise", "exercise: token", "question", "question: attention's most_attended answers a click-token "
                                                "exercise, not token"),
]


@pytest.mark.parametrize("key, line, named, message", BROKEN, ids=[b[1] for b in BROKEN])
def test_a_broken_page_is_refused_naming_its_file_and_line(key, line, named, message):
    text = _swap(key, line)
    with pytest.raises(GuideError) as err:
        load_page_text(text, "my-guide/03-heads.page", VIEWS)
    assert str(err.value).startswith(f"my-guide/03-heads.page:{_line(text, named)}: "), str(err.value)
    assert message in str(err.value)


def test_more_refusals_name_their_line():
    number = GOOD.replace("exercise: click-token", "exercise: number").replace("question: most_attended",
                                                                                "question: separators")
    number = number.replace('args: {"query": "cat"}\n', "")
    with pytest.raises(GuideError, match=r"^p\.page:9: tolerance: a number exercise states its tolerance"):
        load_page_text(number, "p.page", VIEWS)
    choose = (GOOD.split("exercise:")[0] + "exercise: choose\nask: which?\noption: A = separators\n"
              "option: B = nonsense\n---\ntext\n")
    with pytest.raises(GuideError, match=r"^p\.page:12: option 'B': unknown metric 'nonsense'"):
        load_page_text(choose, "p.page", VIEWS)
    long = GOOD.split("---")[0] + "---\n" + "word " * 151
    with pytest.raises(GuideError, match=r"^p\.page:\d+: the page's text has 151 words \(at most 150\)"):
        load_page_text(long, "p.page", VIEWS)
    with pytest.raises(GuideError, match=r"^p\.page:5: preset: the preset 'bert-masking' has steps 1\.\.3, not 9"):
        load_page_text(GOOD.replace("view: attention", "preset: bert-masking 9"), "p.page", VIEWS)


def _folder(root: Path, name: str, pages: dict[str, str]) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "guide.txt").write_text(f"format: {FORMAT}\nname: {name}\ntitle: {name.title()}\n", encoding="utf-8")
    for file, text in pages.items():
        (folder / file).write_text(text, encoding="utf-8")
    return folder


def test_guides_from_the_users_folder_and_entry_points_and_a_broken_one_named(fresh_home, tmp_path, monkeypatch):
    from lm_workbench.guide import library

    own = _folder(library.user_guides_folder(), "mine", {"01-a.page": GOOD})
    broken = _folder(library.user_guides_folder(), "broken", {"01-a.page": GOOD, "02-b.page": _swap(
        "view", "view: nowhere").replace("id: heads-row", "id: other")})
    plugin = _folder(tmp_path, "theirs", {"01-a.page": GOOD})
    ep = importlib.metadata.EntryPoint("theirs", "tests.guide.test_guide_format:PLUGIN_FOLDER", GROUP)
    monkeypatch.setitem(globals(), "PLUGIN_FOLDER", str(plugin))
    real = importlib.metadata.entry_points
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **kw: [ep] if kw.get("group") == GROUP else real(**kw))
    guides, problems = all_guides()  # the window's own views
    assert [(g.name, g.origin) for g in guides] == [("builtin", "built-in"), ("mine", "yours"),
                                                     ("theirs", "plugin theirs")]
    assert len(problems) == 1 and problems[0].startswith(f"{broken}/02-b.page:5: view: unknown view 'nowhere' (views: ")
    assert load_guide(own, views=VIEWS).pages[0].id == "heads-row"
    twice = _folder(tmp_path, "twice", {"01-a.page": GOOD, "02-a.page": GOOD})
    with pytest.raises(GuideError, match=r"twice/02-a\.page:1: id: 'heads-row' is the id of 01-a\.page too"):
        load_guide(twice, views=VIEWS)


def test_the_cli_refuses_a_broken_guide_with_its_file_and_line(tmp_path, capsys, monkeypatch):
    from lm_workbench import frontends
    from lm_workbench.cli.main import main

    monkeypatch.setattr(frontends, "_VIEWS", {"views": VIEWS})
    folder = _folder(tmp_path, "bad", {"01-a.page": _swap("question", "question: nope")})
    assert main(["guide", "list", "--guide", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{folder}/01-a.page:11: question: unknown question 'nope'" in err[0]


# -- progress and the session -----------------------------------------------------------------------------------
def _guide(tmp_path: Path, text: str = GOOD):
    return load_guide(_folder(tmp_path, "g", {"01-a.page": text, "02-b.page": text.replace("id: heads-row",
                                                                                            "id: second")}),
                      views=VIEWS)


def test_hints_come_one_per_wrong_try_and_the_answer_after_three(tmp_path):
    guide = _guide(tmp_path)
    progress = Progress(tmp_path / "progress", user="student")
    session = GuideState(guide, progress, clock=iter(range(0, 1000, 10)).__next__)
    exp = Expected(2, "'cat' (position 2)", "row of weights", (2,), tokens=("[CLS]", "the", "cat", "sat"))
    first = session.answer("1", exp)
    assert (first.correct, first.hint, first.reveal) == (False, "first hint", False)
    second = session.answer("sat", exp)  # a token's text is read as its position
    assert (second.correct, second.hint) == (False, "second hint")
    third = session.answer("0", exp)
    assert third.reveal and "'cat' (position 2)" in third.text and "row of weights" in third.text
    assert session.answer("cat", exp).correct  # by its text
    record = progress.page("g", "heads-row")
    assert (record.attempts, record.right, record.wrong_total(), record.answered) == (4, 1, 3, True)
    with pytest.raises(Exception, match="there is no token 'dog'"):
        session.answer("dog", exp)
    assert progress.page("g", "heads-row").attempts == 4  # not an answer: nothing recorded


def test_progress_resumes_survives_a_changed_page_exports_csv_and_resets(tmp_path):
    guide = _guide(tmp_path)
    clock = iter([0, 30, 95]).__next__
    session = GuideState(guide, Progress(tmp_path / "p", user="ann"), clock=clock)
    session.answer("2", Expected(2, "2", "why", (2,), tokens=("a", "b", "c")))
    session.go(1)  # 30 s on page 1
    session.close()  # 65 s on page 2
    again = Progress(tmp_path / "p", user="ann")  # a new window: read back from the data folder
    assert again.resume_index(guide) == 1
    assert [round(r["seconds"]) for r in again.rows(guide)] == [30, 65]
    changed = _guide(tmp_path / "v2", GOOD.replace("Some text", "Other text"))  # a new version of the guide
    assert again.changed("g", changed.pages[0]) and not again.changed("g", changed.pages[1])
    out = again.export_csv(changed, tmp_path / "ann.csv")
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert [(r["user"], r["page"], r["attempts"], r["right"], r["answered"], r["changed"]) for r in rows] == [
        ("ann", "heads-row", "1", "1", "True", "True"), ("ann", "second", "0", "0", "False", "False")]
    again.reset("g")
    assert Progress(tmp_path / "p", user="ann").rows(guide)[0]["attempts"] == 0
