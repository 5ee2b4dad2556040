"""``lm-workbench retrieve`` and ``retrieval-eval``: the JSON keys scripts rely on, and bad input in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support.retrieval_reference import brute_force_vectors, write_beir
from lm_workbench.cli.main import main

DOCS = [{"_id": "d1", "title": "Paris", "text": "Paris is the capital and largest city of France."},
        {"_id": "d2", "title": "Cats", "text": "The domestic cat is a small carnivorous mammal."},
        {"_id": "d3", "title": "", "text": "The stock market fell sharply after the bank report."},
        {"_id": "d4", "title": "Berlin", "text": "Berlin is the capital of Germany."},
        {"_id": "d5", "title": "Dogs", "text": "Dogs were domesticated from wolves long ago."}]
QUERIES = [{"_id": "q1", "text": "What is the capital of France?"}, {"_id": "q2", "text": "Where did dogs come from?"},
           {"_id": "q3", "text": "shares and markets"}]
QRELS = [("q1", "d1", 2), ("q1", "d4", 1), ("q2", "d5", 1), ("q3", "d3", 1), ("q3", "missing-doc", 1)]


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def beir_folder(tmp_path_factory):
    return write_beir(tmp_path_factory.mktemp("beir") / "toy", DOCS, QUERIES, QRELS)


def test_retrieve_json(capsys, fresh_home, beir_folder, tiny_models):
    model = str(tiny_models["bert"])
    code, out, err = run_cli(capsys, "retrieve", model, "--corpus", str(beir_folder), "--query", "capital city",
                             "--k", "3", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"query", "results", "pooling"}
    assert data["query"] == "capital city" and data["pooling"] == "mean"  # it declares no pooling of its own
    assert [set(r) for r in data["results"]] == [{"id", "score", "text"}] * 3
    # the scores are the cosines of the model's normalised mean-pooled vectors (a plain forward here)
    texts = {d["_id"]: f"{d['title']} {d['text']}".strip() for d in DOCS}
    vecs = brute_force_vectors(model, list(texts.values()) + ["capital city"], "mean", 64)
    cos = vecs[:-1] @ vecs[-1]
    best = [list(texts)[i] for i in np.argsort(-cos, kind="stable")[:3]]
    assert [r["id"] for r in data["results"]] == best
    assert [r["score"] for r in data["results"]] == pytest.approx(sorted(cos, reverse=True)[:3], abs=1e-4)
    assert data["results"][0]["text"] == texts[best[0]]


def test_retrieval_eval_json(capsys, fresh_home, beir_folder, tiny_models):
    code, out, err = run_cli(capsys, "retrieval-eval", str(tiny_models["bert"]), "--data", str(beir_folder),
                             "--pooling", "cls", "--bm25", "--json")
    assert code == 0, err
    data = json.loads(out)
    keys = {"ndcg@10", "mrr@10", "recall@1", "recall@10", "recall@100"}
    assert {"queries", "documents", "model", "bm25"} <= set(data)
    assert set(data["model"]) == keys and set(data["bm25"]) == keys
    assert (data["queries"], data["documents"]) == (3, 5)
    assert data["model"]["recall@100"] == 1.0  # 5 documents, all ranked (100 deep)
    # BM25 returns only passages that hold a word of the query: "shares and markets" shares none with "The stock
    # market fell ..." (no stemming), so q3's one relevant document is never retrieved: recall (1 + 1 + 0) / 3
    assert data["bm25"]["recall@100"] == pytest.approx(2 / 3)
    assert "1 judgement(s) name a document not in corpus.jsonl" in err
    assert data["pooling"] == "cls" and data["per_query"]["wins"] + data["per_query"]["losses"] + \
        data["per_query"]["ties"] == 3
    from lm_workbench.paths import runs_db_path
    from lm_workbench.runs.kinds import run_kind
    from lm_workbench.store import RunStore

    with RunStore(runs_db_path()) as store:  # recorded as a run of the one run shape
        run = store.get_run(data["run_id"])
        assert run["kind"] == "retrieval-eval" and run["status"] == "finished"
        assert [r["value"] for r in store.metrics(data["run_id"], "ndcg@10")] == [data["model"]["ndcg@10"]]
        assert [r["value"] for r in store.metrics(data["run_id"], "bm25_mrr@10")] == [data["bm25"]["mrr@10"]]
        assert run_kind("retrieval-eval").cli_command(run["params"]) == run["cli_command"]


def test_bad_input_is_one_line(capsys, fresh_home, tmp_path):
    (tmp_path / "empty.txt").write_text("\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "retrieve", "no-such-model", "--corpus", str(tmp_path / "empty.txt"), "--query", "x")
    assert code == 2 and "corpus is empty" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "retrieval-eval", "no-such-model", "--data", str(tmp_path))
    assert code == 2 and "corpus.jsonl" in err and len(err.strip().splitlines()) == 1


def test_a_query_s_own_passage_is_left_out_as_beir_does(capsys, fresh_home, tmp_path, tiny_models):
    """ArguAna-style data (each query is also a passage of the corpus, under the same id): BEIR's evaluation leaves
    a passage whose id is the query's out of the ranking by default. Worked by hand with BM25: "alpha beta gamma"
    finds its own passage first (3 words shared), the relevant d1 second (2 words)."""
    docs = [{"_id": "q1", "title": "", "text": "alpha beta gamma"},
            {"_id": "d1", "title": "", "text": "alpha beta delta"},
            {"_id": "d2", "title": "", "text": "zeta eta theta"}]
    folder = write_beir(tmp_path / "arguana-like", docs, [{"_id": "q1", "text": "alpha beta gamma"}], [("q1", "d1", 1)])
    model = str(tiny_models["bert"])
    code, out, err = run_cli(capsys, "retrieval-eval", model, "--data", str(folder), "--bm25", "--json")
    assert code == 0, err
    left_out = json.loads(out)
    assert left_out["bm25"]["recall@1"] == 1.0 and left_out["bm25"]["mrr@10"] == 1.0  # d1 first once q1 is out
    assert "1 result(s) whose passage id is the query's own id were left out" in err
    code, out, err = run_cli(capsys, "retrieval-eval", model, "--data", str(folder), "--bm25", "--keep-identical-ids",
                             "--json")
    assert code == 0, err
    kept = json.loads(out)
    assert kept["bm25"]["recall@1"] == 0.0 and kept["bm25"]["mrr@10"] == 0.5  # its own passage first, d1 second
    assert "left out" not in err
