"""Occurrence vectors: pooled layers, static rows, mixes, specs, the cache.

Every vector is checked against a plain ``transformers`` forward (or the
embedding matrix read straight from the model) with the word's subwords
found by hand from the tokenizer's character offsets.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from lm_workbench.engine.embeddings.activation_cache import ActivationCache
from lm_workbench.engine.embeddings.corpus import Corpus
from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors
from lm_workbench.engine.embeddings.representation import parse_layer_spec, pool, scalar_mix
from lm_workbench.engine.errors import Cancelled, WorkbenchError
from lm_workbench.engine.progress import CancelToken, Progress, iter_with_progress, run_to_completion
from tests.support.reference import plain_forward

TEXTS = [
    "The flabbergasted bank raised its rates.",
    "We sat on the river bank, flabbergasted as it was.",
    "Nothing here mentions it.",
    "Bank holidays are flabbergasted.",
]


def extract(loaded, corpus, **kwargs):
    return run_to_completion(extract_occurrence_vectors(loaded, corpus, **kwargs))


def subword_positions(tokenizer, text, start, end):
    """Token positions whose characters overlap text[start:end] (by the tokenizer's offsets).

    Overlap, not inclusion: byte-level BPE offsets may include the space before a word."""
    enc = tokenizer(text, return_offsets_mapping=True)
    return [i for i, (s, e) in enumerate(enc["offset_mapping"]) if e > s and s < end and e > start]


def word_spans(text, word):
    """Character spans of whole-word, case-insensitive matches of ``word``."""
    return [(m.start(), m.end()) for m in re.finditer(rf"(?<![\w]){re.escape(word)}(?![\w])", text, re.I)]


@pytest.fixture(scope="module")
def minilm_folder():
    from lm_workbench.engine.models.default import default_model_folder

    return default_model_folder()


@pytest.fixture(scope="module")
def minilm_hidden(minilm_folder):
    """text -> hidden states [7, T, 384] of a plain transformers forward (model loaded once)."""
    import torch
    import transformers as tf

    tokenizer = tf.AutoTokenizer.from_pretrained(minilm_folder)
    model = tf.AutoModel.from_pretrained(minilm_folder, attn_implementation="eager").eval()
    out = {}
    with torch.no_grad():
        for text in TEXTS:
            hidden = model(**tokenizer(text, return_tensors="pt"), output_hidden_states=True).hidden_states
            out[text] = torch.stack([h[0] for h in hidden]).numpy()
    return out


@pytest.mark.parametrize("pooling", ["mean", "first", "last"])
def test_pooled_layers_equal_a_plain_forward(minilm, minilm_hidden, pooling):
    table = extract(minilm, Corpus(TEXTS), words=["flabbergasted", "BANK"], layers=[0, 3, 6], pooling=pooling)
    tokenizer = minilm.tokenizer
    expected_rows = []
    for line, text in enumerate(TEXTS):
        spans = sorted(word_spans(text, "flabbergasted") + word_spans(text, "bank"))
        ref = minilm_hidden[text]  # [7, T, 384]
        for start, end in spans:
            positions = subword_positions(tokenizer, text, start, end)
            chosen = {"mean": positions, "first": positions[:1], "last": positions[-1:]}[pooling]
            expected_rows.append((line, start, ref[:, chosen].mean(axis=1)))  # [7, 384]
    assert [(o.line, o.char_start) for o in table.occurrences] == [(r[0], r[1]) for r in expected_rows]
    assert any(o.token_end - o.token_start > 1 for o in table.occurrences)  # "flabbergasted" has 5 subwords
    for layer in (0, 3, 6):
        got = table.vectors[layer]
        assert got.dtype == np.float32
        want = np.stack([r[2][layer] for r in expected_rows])
        assert np.abs(got - want).max() <= 1e-5
    assert table.labels is None and table.truncated_lines == 0


def test_static_vectors_are_the_embedding_rows(minilm, minilm_folder):
    import transformers as tf

    table = extract(minilm, Corpus(TEXTS), words=["flabbergasted", "bank"], layers=[])
    model = tf.AutoModel.from_pretrained(minilm_folder)
    matrix = model.get_input_embeddings().weight.detach().numpy()  # [vocab, 384]
    tokenizer = tf.AutoTokenizer.from_pretrained(minilm_folder)
    for i, occ in enumerate(table.occurrences):
        text = TEXTS[occ.line]
        ids = tokenizer(text)["input_ids"]
        rows = [ids[p] for p in subword_positions(tokenizer, text, occ.char_start, occ.char_end)]
        assert np.abs(table.vectors["static"][i] - matrix[rows].mean(axis=0)).max() <= 1e-6
    # the static baseline is one vector per word type: every "bank" has the same one
    banks = [i for i, o in enumerate(table.occurrences) if o.key == "bank"]
    assert len(banks) == 3
    assert all(np.array_equal(table.vectors["static"][banks[0]], table.vectors["static"][b]) for b in banks)


@pytest.mark.parametrize("kind", ["gpt2", "bart", "t5"])
def test_decoders_and_encoder_decoders(tiny_models, kind):
    """Decoders: their own (left-context) states; encoder-decoders: the encoder's."""
    from lm_workbench.engine.models.loading import load_source as load_model

    folder = tiny_models[kind]
    loaded = load_model(str(folder))
    table = extract(loaded, Corpus(TEXTS), words=["bank"], layers=[0, 1, 2])
    assert len(table) == 3
    for i, occ in enumerate(table.occurrences):
        text = TEXTS[occ.line]
        ref = plain_forward(folder, text, target=text)["hidden_states"]  # encoder side for seq2seq
        positions = subword_positions(loaded.tokenizer, text, occ.char_start, occ.char_end)
        for layer in (0, 1, 2):
            assert np.abs(table.vectors[layer][i] - ref[layer, positions].mean(axis=0)).max() <= 1e-5


def test_scalar_mix_and_layer_mean_equal_their_formulas(minilm):
    table = extract(minilm, Corpus(TEXTS), words=["bank"], layers=range(7))
    s, gamma = [0.5, -1.0, 2.0, 0.0, 1.5, -0.5, 3.0], 0.7
    spec = parse_layer_spec("mix:" + ",".join(map(str, s)) + f":{gamma}", 6)
    weights = [np.exp(x) / sum(np.exp(y) for y in s) for x in s]
    by_hand = gamma * sum(w * table.vectors[j].astype(np.float64) for j, w in enumerate(weights))
    assert np.abs(table.vectors_for(spec) - by_hand).max() <= 1e-5
    mean = sum(table.vectors[j].astype(np.float64) for j in (2, 3, 4)) / 3
    assert np.abs(table.vectors_for(parse_layer_spec("mean:2-4", 6)) - mean).max() <= 1e-5
    assert np.array_equal(table.vectors_for(parse_layer_spec("-1", 6)), table.vectors[6])
    # scalar_mix on its own, on a random [L+1, n, H] array
    h = np.random.default_rng(0).normal(size=(3, 4, 5))
    s3 = np.array([0.1, 2.0, -1.0])
    w3 = np.exp(s3) / np.exp(s3).sum()
    assert np.allclose(scalar_mix(h, s3, 2.0), 2.0 * (w3[0] * h[0] + w3[1] * h[1] + w3[2] * h[2]))
    v = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert np.array_equal(pool(v, "first"), v[0]) and np.array_equal(pool(v, "last"), v[2])
    assert np.array_equal(pool(v, "mean"), v.mean(axis=0))


@pytest.mark.parametrize("text, kind, fields", [
    ("3", "layer", {"layer": 3}),
    ("-1", "layer", {"layer": 6}),
    (" STATIC ", "static", {}),
    ("mean:2-4", "mean", {"start": 2, "end": 4}),
    ("mean:0-6", "mean", {"start": 0, "end": 6}),
    ("mix:0,0,0,0,0,0,1", "mix", {"scalars": (0, 0, 0, 0, 0, 0, 1.0), "gamma": 1.0}),
    ("mix:1,-2,3,4,5,6,7:0.5", "mix", {"scalars": (1, -2, 3, 4, 5, 6, 7), "gamma": 0.5}),
])
def test_layer_spec_parsing(text, kind, fields):
    spec = parse_layer_spec(text, 6)
    assert spec.kind == kind
    for name, value in fields.items():
        assert getattr(spec, name) == value
    assert parse_layer_spec(spec.text, 6) == spec
    assert spec.label


@pytest.mark.parametrize("text, why", [
    ("", "empty"), ("7", "outside 0..6"), ("-8", "outside"), ("layer3", "not a layer number"),
    ("mean:4-2", "starts after it ends"), ("mean:3", "A-B"), ("mean:1-9", "outside"),
    ("mix:1,2", "needs 7 scalars"), ("mix:a,0,0,0,0,0,0", "not a number"), ("mix:0,0,0,0,0,0,0:x", "not a number"),
    ("mix:0,0,0,0,0,0,0:1:2", "write mix"), ("mix:", "write mix"), ("mix:0,0,0,0,0,0,nan", "finite"),
])
def test_layer_spec_errors(text, why):
    with pytest.raises(WorkbenchError) as info:
        parse_layer_spec(text, 6)
    message = str(info.value)
    assert why in message and "bad layer spec" in message and "\n" not in message


def test_cache_hit_is_identical_and_float16(minilm, tmp_path):
    cache = ActivationCache(tmp_path / "cache")
    corpus = Corpus(TEXTS)
    plain = extract(minilm, corpus, words=["bank"], layers=[2, 6])
    first = extract(minilm, corpus, words=["bank"], layers=[2, 6], cache=cache)
    second = extract(minilm, corpus, words=["bank"], layers=[6, 2], cache=cache)
    assert not first.from_cache and second.from_cache
    assert first.occurrences == second.occurrences == plain.occurrences
    for key in ("static", 2, 6):
        assert second.vectors[key].dtype == np.float16
        assert np.array_equal(np.asarray(first.vectors[key]), np.asarray(second.vectors[key]))
        assert np.allclose(second.vectors[key], plain.vectors[key], rtol=2e-3, atol=2e-3)
    # a new layer adds a file to the same entry; the old ones are reused
    third = extract(minilm, corpus, words=["bank"], layers=[4], cache=cache)
    assert len(cache.keys()) == 1 and cache.cached_layers(cache.keys()[0]) == {"static", "2", "4", "6"}
    assert np.allclose(third.vectors[4], extract(minilm, corpus, words=["bank"], layers=[4]).vectors[4],
                       rtol=2e-3, atol=2e-3)


def test_cache_cap_refuses_and_evicts_least_recently_used(minilm, tmp_path):
    corpus = Corpus(TEXTS)
    vectors = 3 * 384 * 2 * 2  # 3 occurrences of "bank" x (static + layer 6) x 384 float16
    with pytest.raises(WorkbenchError) as info:
        extract(minilm, corpus, words=["bank"], layers=[6], cache=ActivationCache(tmp_path / "small", vectors))
    message = str(info.value)
    assert "cap" in message and "fewer layers or words" in message
    size = float(re.search(r"would take ([0-9.]+) KiB", message).group(1)) * 1024
    assert vectors <= size <= vectors + 2048  # the request's own size (plus its small index)

    cache = ActivationCache(tmp_path / "lru")
    extract(minilm, corpus, words=["bank"], layers=[6], cache=cache)  # entry A: 3 occurrences
    (a,) = cache.keys()
    cache.cap_bytes = int(cache.entry_bytes(a) * 2.5)  # two entries of this size fit, three do not
    extract(minilm, corpus, words=["flabbergasted"], layers=[6], cache=cache)  # entry B: 3
    (b,) = set(cache.keys()) - {a}
    again = extract(minilm, corpus, words=["bank"], layers=[6], cache=cache)  # touch A: B is now the oldest
    assert again.from_cache
    extract(minilm, corpus, words=["rates", "river", "holidays"], layers=[6], cache=cache)  # entry C: evicts B
    assert a in cache.keys() and b not in cache.keys() and len(cache.keys()) == 2
    assert cache.total_bytes() <= cache.cap_bytes


def test_an_oversized_request_is_refused_while_counting(minilm, tmp_path):
    """Every word of 8,000 lines at 7 layers cannot fit in 1 MiB: refused after the first chunk."""
    corpus = Corpus(TEXTS * 2000)
    cache = ActivationCache(tmp_path / "cache", 1 << 20)
    reports = []
    with pytest.raises(WorkbenchError, match=r"would take at least [0-9.]+ MiB .* cap of 1.0 MiB"):
        for report in extract_occurrence_vectors(minilm, corpus, layers=range(7), cache=cache):
            reports.append(report)
    assert reports == [] and cache.keys() == []


def test_cancel_leaves_no_partial_cache_entry(minilm, tmp_path):
    cache = ActivationCache(tmp_path / "cache")
    token = CancelToken()
    gen = extract_occurrence_vectors(minilm, Corpus(TEXTS * 20), words=None, layers=[6], cache=cache, cancel=token)
    with pytest.raises(Cancelled):
        for report in gen:
            if isinstance(report, Progress) and report.message.startswith("encoding"):
                token.cancel()
    leftovers = [p.name for p in cache.folder.rglob("*") if p.is_file() and ".tmp-" in p.name]
    assert leftovers == [] and all(not cache.cached_layers(k) for k in cache.keys())


def test_lines_longer_than_the_window_are_cut_and_counted(tiny_models):
    from lm_workbench.engine.models.loading import load_source as load_model

    loaded = load_model(str(tiny_models["bert"]))  # window: 64 tokens
    long_line = "bank " + "the " * 100 + "bank"
    corpus = Corpus(["a bank here", long_line, "no word"])
    table = extract(loaded, corpus, words=["bank"], layers=[1])
    assert [(o.line, o.word_index) for o in table.occurrences] == [(0, 1), (1, 0)]
    assert table.truncated_lines == 1 and table.dropped_occurrences == 1
    assert "1 line(s) are longer than the model's window of 64 tokens" in table.notices[0]


def test_no_occurrence_and_empty_corpus_are_refused(minilm):
    with pytest.raises(WorkbenchError, match="'zebra' does not occur in the corpus"):
        extract(minilm, Corpus(TEXTS), words=["Zebra"], layers=[6])
    with pytest.raises(WorkbenchError, match="empty"):
        extract(minilm, Corpus([]), words=None, layers=[6])
    with pytest.raises(WorkbenchError, match="outside 0..6"):
        extract(minilm, Corpus(TEXTS), words=["bank"], layers=[9])
    with pytest.raises(WorkbenchError, match="pooling"):
        extract(minilm, Corpus(TEXTS), words=["bank"], layers=[6], pooling="max")


def test_progress_is_reported(minilm):
    reports = list(iter_with_progress(extract_occurrence_vectors(minilm, Corpus(TEXTS), layers=[6])))
    table = reports[-1]
    progress = [r for r in reports[:-1] if isinstance(r, Progress)]
    assert any(p.message.startswith("finding words") for p in progress)
    assert any(p.message.startswith("encoding") for p in progress)
    assert progress[-1].done == progress[-1].total == len(table)
    # every word: BERT's pre-tokenizer splits on whitespace and punctuation
    assert len(table) == sum(len(re.findall(r"\w+|[^\w\s]", t)) for t in TEXTS)


def test_two_threads_filling_one_cache_entry_each_rename_their_own_files(tmp_path):
    """A view's job and a Guide check (two threads of one process) may extract the same corpus at once: each
    writer's temporary files are its own, so neither renames the other's away (it raised FileNotFoundError)."""
    import threading

    cache = ActivationCache(tmp_path / "cache")
    occurrences = np.zeros((2, 3), dtype=np.int64)
    writers = []

    def begin(value: float) -> None:
        w = cache.begin_write("k", {}, occurrences, ["static", 1], 4)
        for array in w.arrays.values():
            array[:] = value
        writers.append(w)

    threads = [threading.Thread(target=begin, args=(v,)) for v in (1.0, 2.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({tuple(sorted(map(str, w._tmp.values()))) for w in writers}) == 2
    for w in writers:
        w.commit()  # the second one replaces the first's complete files with its own
    assert cache.cached_layers("k") == {"static", "1"}
    assert not list((tmp_path / "cache" / "k").glob("*.tmp-*"))
