"""SQuAD 2.0: the reader on a file in the published shape, the official scoring against a hand-worked
case, the no-answer training labels, the null-versus-span decision, and one short ``finetune`` run
through the CLI whose JSON carries the HasAns/NoAns split and the number of rows scored."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from types import SimpleNamespace

import pytest
import torch

from lm_workbench.engine.data import tasks
from lm_workbench.engine.data.squad import read_squad_file
from lm_workbench.engine.data.squad import QAExample
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.finetune import inference
from lm_workbench.engine.finetune.alignment import encode_qa
from lm_workbench.engine.finetune.encoding import encode_questions
from lm_workbench.engine.maths import metrics

OSLO = "She lives in Oslo, the capital of Norway."
BERGEN = "Her brother moved to Bergen in 2010 and works at the harbour."


def squad_v2_document(repeat: int = 1) -> dict:
    """SQuAD 2.0's published shape: version "v2.0", data / title / paragraphs / qas (before context) with
    id, question, answers, is_impossible, and plausible_answers on the impossible questions."""
    paragraphs = []
    for r in range(repeat):
        paragraphs += [
            {"qas": [
                {"question": "Where does she live?", "id": f"5733be284776f41900661182-{r}",
                 "answers": [{"text": "Oslo", "answer_start": 13}], "is_impossible": False},
                {"plausible_answers": [{"text": "Norway", "answer_start": 34}],
                 "question": "Where was she born?", "id": f"5ad39d53604f3c001a3fe8d1-{r}",
                 "answers": [], "is_impossible": True}],
             "context": OSLO},
            {"qas": [
                {"question": "When did her brother move?", "id": f"5733be284776f41900661183-{r}",
                 "answers": [{"text": "2010", "answer_start": 31}, {"text": "in 2010", "answer_start": 28}],
                 "is_impossible": False},
                {"plausible_answers": [{"text": "Bergen", "answer_start": 21}],
                 "question": "Where does her sister work?", "id": f"5ad39d53604f3c001a3fe8d2-{r}",
                 "answers": [], "is_impossible": True}],
             "context": BERGEN}]
    return {"version": "v2.0", "data": [{"title": "Norway", "paragraphs": paragraphs}]}


def write(tmp_path, name: str, document: dict):
    path = tmp_path / name
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path


# ---------------------------------------------------------------- reader


def test_reader_counts_and_keeps_plausible_answers_out(tmp_path):
    read = read_squad_file(write(tmp_path, "dev-v2.0.json", squad_v2_document()))
    assert (read.answerable, read.unanswerable, read.version, read.is_v2) == (2, 2, "v2.0", True)
    by_id = {e.id: e for e in read.examples}
    impossible = by_id["5ad39d53604f3c001a3fe8d1-0"]
    assert impossible.answers == () and impossible.answer_starts == () and impossible.unanswerable
    assert "Norway" not in impossible.answers  # the plausible answer never trains
    answerable = by_id["5733be284776f41900661183-0"]
    assert answerable.answers == ("2010", "in 2010") and not answerable.unanswerable
    # the finetune reader is the same reader, returning the examples as before
    assert tasks.read_squad(tmp_path / "dev-v2.0.json") == read.examples


def test_reader_refusals_name_file_and_line(tmp_path):
    document = squad_v2_document()
    del document["data"][0]["paragraphs"][0]["qas"][1]["is_impossible"]  # answers [] and no flag: SQuAD 1.1 rules
    path = write(tmp_path, "noflag.json", document)
    line = next(i for i, row in enumerate(path.read_text().splitlines(), 1) if "5ad39d53604f3c001a3fe8d1-0" in row)
    with pytest.raises(WorkbenchError, match=rf"noflag\.json, line {line}: question without answers"):
        read_squad_file(path)
    document = squad_v2_document()
    document["data"][0]["paragraphs"][0]["qas"][1]["answers"] = [{"text": "Norway", "answer_start": 34}]
    with pytest.raises(WorkbenchError, match=r"both\.json, line \d+: a question marked is_impossible has answers"):
        read_squad_file(write(tmp_path, "both.json", document))
    document = squad_v2_document()
    document["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] = 12
    with pytest.raises(WorkbenchError, match=r"off\.json, line \d+: answer 'Oslo' is not at answer_start 12"):
        read_squad_file(write(tmp_path, "off.json", document))


def test_a_squad_1_1_file_has_no_unanswerable_questions(tmp_path):
    document = {"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": OSLO, "qas": [
        {"id": "a", "question": "Where?", "answers": [{"text": "Oslo", "answer_start": 13}]}]}]}]}
    read = read_squad_file(write(tmp_path, "v1.json", document))
    assert (read.answerable, read.unanswerable, read.is_v2) == (1, 0, False)


# ---------------------------------------------------------------- scoring


def test_squad_v2_scoring_hand_worked():
    predictions = ["the Broncos.", "The year 1998!", "", "Santa Clara"]
    answers = [["Denver Broncos", "Broncos"], ["in 1998"], [], []]
    # q1 (HasAns): "the Broncos." -> "broncos" equals gold 2 "broncos": EM 1, F1 1
    # q2 (HasAns): "The year 1998!" -> [year, 1998]; gold "in 1998" -> [in, 1998]; EM 0;
    #     common 1, precision 1/2, recall 1/2 -> F1 0.5
    # q3 (NoAns): gold [""], prediction "" -> EM 1, F1 1 (two empty answers)
    # q4 (NoAns): gold [""], prediction "santa clara" -> EM 0, F1 0 (empty against non-empty)
    # HasAns: exact (1 + 0) / 2 = 0.5, f1 (1 + 0.5) / 2 = 0.75; NoAns: exact 0.5, f1 0.5
    # all: exact (1 + 0 + 1 + 0) / 4 = 0.5, f1 (1 + 0.5 + 1 + 0) / 4 = 0.625
    scores = metrics.squad_v2_scores(predictions, answers)
    assert scores == pytest.approx({"exact": 0.5, "f1": 0.625, "total": 4,
                                    "HasAns_exact": 0.5, "HasAns_f1": 0.75, "HasAns_total": 2,
                                    "NoAns_exact": 0.5, "NoAns_f1": 0.5, "NoAns_total": 2})
    assert isinstance(scores["total"], int) and isinstance(scores["NoAns_total"], int)
    # a set of one kind has no split (SQuAD 1.1 as before)
    assert set(metrics.squad_v2_scores(predictions[:2], answers[:2])) == {"exact", "f1", "total"}
    # a gold that normalizes to nothing is dropped, as the official script drops it: "" no longer matches "The"
    assert metrics.squad_v2_scores([""], [["The", "Paris"]])["exact"] == 0.0
    # the older helpers take an unanswerable question's empty gold list as [""]
    assert metrics.squad_metrics(["", "x"], [[], []]) == pytest.approx({"exact_match": 0.5, "f1": 0.5})


# ---------------------------------------------------------------- training labels and the null decision


@pytest.fixture(scope="module")
def tokenizer():
    from lm_workbench.engine.finetune.task_model import load_task_tokenizer
    from lm_workbench.engine.models.default import default_model_folder

    return load_task_tokenizer(default_model_folder())


def test_an_unanswerable_question_trains_the_no_answer_position(tokenizer):
    answerable = QAExample("a", "Where does she live?", OSLO, ("Oslo",), (13,))
    impossible = QAExample("b", "Where was she born?", OSLO, (), ())
    long_context = QAExample("c", "When?", "word " * 40 + BERGEN, ("2010",), (200 + 31,))
    features = encode_questions(tokenizer, [answerable, impossible, long_context], max_length=32)
    by_example = {i: [(f["start"], f["end"]) for f in features if f["example"] == i] for i in range(3)}
    start, end = by_example[0][0]
    assert start > 0 and tokenizer.decode(features[0]["input_ids"][start:end + 1]) == "oslo"
    assert by_example[1] == [(0, 0)]  # the CLS position
    assert len(by_example[2]) > 1 and (0, 0) in by_example[2]  # a window without the answer: (0, 0) as well
    assert any(pair != (0, 0) for pair in by_example[2])


class FixedLogits(torch.nn.Module):
    """A QA model whose logits are set by hand: ``null`` at position 0, ``span`` at the answer's tokens."""

    def __init__(self, positions: tuple[int, int], null: tuple[float, float], span: tuple[float, float]):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))
        self.positions, self.null, self.span = positions, null, span

    def forward(self, input_ids, attention_mask=None, **_):
        starts, ends = torch.zeros(input_ids.shape), torch.zeros(input_ids.shape)
        starts[:, 0], ends[:, 0] = self.null
        starts[:, self.positions[0]], ends[:, self.positions[1]] = self.span
        return SimpleNamespace(start_logits=starts, end_logits=ends)


def test_null_score_against_the_best_span(tokenizer):
    # the rule: no answer when null - best span > threshold
    assert inference.prefers_no_answer(10.0, 6.0) and not inference.prefers_no_answer(4.0, 6.0)
    assert not inference.prefers_no_answer(6.0, 6.0)  # a tie keeps the span
    assert not inference.prefers_no_answer(10.0, 6.0, threshold=5.0)  # 4 < 5
    assert inference.prefers_no_answer(-1.0, None)  # no valid span anywhere
    (window,) = encode_qa(tokenizer, "Where does she live?", OSLO, 13, "Oslo", max_length=64, stride=16)
    oslo = (window.start_position, window.end_position)

    def said(null, span, threshold):
        model = FixedLogits(oslo, null, span)
        return inference.answer(model, tokenizer, [("Where does she live?", OSLO)], 64, null_threshold=threshold)[0]

    assert said((2.0, 2.0), (3.0, 3.0), 0.0)["answer"] == "Oslo"  # null 4 < span 6
    found = said((5.0, 5.0), (3.0, 3.0), 0.0)  # null 10 > span 6
    assert (found["answer"], found["start"], found["end"]) == ("", -1, -1) and 0.0 < found["confidence"] < 1.0
    assert said((5.0, 5.0), (3.0, 3.0), None)["answer"] == "Oslo"  # SQuAD 1.1: always a span
    assert said((5.0, 5.0), (3.0, 3.0), 5.0)["answer"] == "Oslo"  # a threshold above the difference


# ---------------------------------------------------------------- end to end


def test_finetune_cli_on_squad_v2_reports_the_split_and_rows_scored(tmp_path, fresh_home):
    from lm_workbench.cli.main import main

    train = write(tmp_path, "train-v2.0.json", squad_v2_document(repeat=2))
    validation = write(tmp_path, "dev-v2.0.json", squad_v2_document())
    out = tmp_path / "out"
    argv = ["finetune", "--task", "qa", "--train", str(train), "--validation", str(validation),
            "--method", "lora", "--lora-rank", "4", "--epochs", "1", "--max-length", "48", "--batch-size", "8",
            "--train-setting", "threads=1", "--out", str(out), "--json"]
    previous = torch.get_num_threads()
    buffer = io.StringIO()
    try:
        with redirect_stdout(buffer):
            code = main(argv)
    finally:
        torch.set_num_threads(previous)
    assert code == 0
    printed = json.loads(buffer.getvalue())
    assert printed["rows_scored"] == 4 == printed["validation_examples"]
    assert (printed["rows_read"], printed["rows_skipped"]) == (8 + 4, 0)  # both files' questions, none skipped
    assert printed["data"]["validation"]["notes"] == ["2 of 4 questions have no answer (SQuAD 2.0)"]
    assert printed["data"]["train"]["unit"] == "questions"
    squad = printed["squad"]
    assert (squad["total"], squad["HasAns_total"], squad["NoAns_total"]) == (4, 2, 2)
    assert {"exact_match", "f1", "HasAns_exact", "HasAns_f1", "NoAns_exact", "NoAns_f1"} == set(printed["validation"])
    assert printed["validation"]["exact_match"] == squad["exact"]
    assert all(0.0 <= squad[k] <= 1.0 for k in ("exact", "f1", "HasAns_f1", "NoAns_f1"))
    assert json.loads((out / "finetune.json").read_text())["no_answer"] is True
    rows = [json.loads(line) for line in (out / "validation_predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and {r["gold"] for r in rows} >= {""}  # an unanswerable question's gold is ""
    from lm_workbench.engine.finetune.saved import predict
    from lm_workbench.finetune.train import open_output

    tuned = open_output(out)  # the reloaded model may say "no answer" too, as validation did
    for row in rows:
        assert predict(tuned, row["text"], context=row["context"])["answer"] == row["predicted"]
