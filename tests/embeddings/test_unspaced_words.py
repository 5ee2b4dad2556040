"""Words in scripts written without spaces (issue 42, kind 6): found as runs between token boundaries.

The expected occurrences are worked out here from the fast tokenizer's own
character offsets (a position is a boundary when no token's characters
straddle it), and every found occurrence's vectors are checked against a
plain ``transformers`` forward at exactly the token positions whose
characters lie inside the word. Latin-script words keep whole-word matching.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lm_workbench.engine.embeddings.corpus import Corpus
from lm_workbench.engine.embeddings.extract import extract_occurrence_vectors
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.progress import run_to_completion

HAN = "東京我住在很大喜歡的公園山川日本人中國語"
KANA = "ひらがなでカタカナです"
HANGUL = "서울에살아요한국"
THAI = "กรุงเทพฉันอยู่ที่"
WORD_CHARS = HAN + KANA + HANGUL + THAI
LAYER = 1


class Reference:
    """A folder's tokenizer and model loaded with plain transformers (eager attention)."""

    def __init__(self, folder):
        import transformers as tf

        self.tokenizer = tf.AutoTokenizer.from_pretrained(folder)
        self.model = tf.AutoModel.from_pretrained(folder, attn_implementation="eager").eval()

    def hidden(self, text: str) -> np.ndarray:
        """[layers + 1, T, H] hidden states of ``text``."""
        import torch

        with torch.no_grad():
            out = self.model(**self.tokenizer(text, return_tensors="pt"), output_hidden_states=True)
        return torch.stack([h[0] for h in out.hidden_states]).numpy()

    def expected(self, text: str, word: str) -> list[tuple[int, int, list[int]]]:
        """(char start, char end, token positions) of each leftmost, non-overlapping run of ``word`` whose
        two ends fall between tokens (no token's trimmed characters straddle them)."""
        enc = self.tokenizer(text, return_offsets_mapping=True)
        spans = []
        for i, ((a, b), seq) in enumerate(zip(enc["offset_mapping"], enc.sequence_ids())):
            piece = text[a:b]
            if seq != 0 or not piece.strip():
                continue
            a += len(piece) - len(piece.lstrip())
            spans.append((i, a, a + len(piece.strip())))
        straddled = {p for _, a, b in spans for p in range(a + 1, b)}
        out, at = [], text.find(word)
        while at >= 0:
            end = at + len(word)
            inside = [(i, a, b) for i, a, b in spans if at <= a and b <= end]
            if (at not in straddled and end not in straddled and inside and inside[0][1] == at
                    and max(b for _, _, b in inside) == end):
                out.append((at, end, [i for i, _, _ in inside]))
                at = text.find(word, end)
            else:
                at = text.find(word, at + 1)
        return out


@pytest.fixture(scope="module")
def models(tiny_models, minilm):
    """kind -> (engine model, plain reference): MiniLM's WordPiece (a Han character per token, Thai runs one
    [UNK]) and a tiny byte-level GPT-2 (bytes of a character can merge with the next character's)."""
    from lm_workbench.engine.models.default import default_model_folder
    from lm_workbench.engine.models.loading import load_source as load_model

    return {"minilm": (minilm, Reference(default_model_folder())),
            "gpt2": (load_model(str(tiny_models["gpt2"])), Reference(tiny_models["gpt2"]))}


def check_vectors(loaded, reference, lines, word, expected_by_line):
    """Extract ``word`` from ``lines`` and compare spans and vectors with ``expected_by_line``."""
    expected = [(line, s, e, pos) for line, found in enumerate(expected_by_line) for s, e, pos in found]
    corpus = Corpus(list(lines))
    if not expected:
        with pytest.raises(WorkbenchError, match="does not occur in the corpus.*between the model's tokens"):
            run_to_completion(extract_occurrence_vectors(loaded, corpus, words=[word], layers=[LAYER]))
        return None
    table = run_to_completion(extract_occurrence_vectors(loaded, corpus, words=[word], layers=[LAYER]))
    got = [(o.line, o.char_start, o.char_end, list(range(o.token_start, o.token_end))) for o in table.occurrences]
    assert got == expected
    for row, (line, s, e, positions) in enumerate(expected):
        assert table.occurrences[row].word == lines[line][s:e] and lines[line][s:e].casefold() == word.casefold()
        want = reference.hidden(lines[line])[LAYER, positions].mean(axis=0)
        assert np.abs(table.vectors[LAYER][row] - want).max() <= 1e-5
    return table


@st.composite
def texts_with_a_word(draw):
    """A word of one script inserted into a line mostly of that script (so it often sits inside a longer
    run, or inside one token), with a little punctuation, spaces and other scripts around."""
    script = draw(st.sampled_from([HAN, KANA, HANGUL, THAI]))
    word = draw(st.text(alphabet=script, min_size=1, max_size=3))
    around = st.text(alphabet=st.sampled_from(script) | st.sampled_from(WORD_CHARS + "。、 "), max_size=6)
    return draw(around) + word + draw(around), word


@pytest.mark.parametrize("kind", ["minilm", "gpt2"])
@settings(derandomize=True, deadline=None, max_examples=20)
@given(case=texts_with_a_word())
def test_runs_between_token_boundaries_have_the_vectors_of_their_tokens(models, kind, case):
    text, word = case
    loaded, reference = models[kind]
    check_vectors(loaded, reference, [text], word, [reference.expected(text, word)])


CJK_LINES = ["我住在東京。", "東京很大。", "我喜歡東京的公園。"]


@pytest.mark.parametrize("lines, word, spans", [
    # the reported example: each 東京 is two MiniLM tokens (東, 京) between token boundaries
    (CJK_LINES, "東京", [[(3, 5)], [(0, 2)], [(3, 5)]]),
    # Hangul: a particle written onto the noun (서울 + 에); MiniLM splits syllables into jamo tokens
    (["서울에 살아요", "서울은 크다"], "서울", [[(0, 2)], [(0, 2)]]),
    # kana inside a Japanese sentence
    (["東京タワーへ行く"], "行く", [[(6, 8)]]),
    # Latin script keeps whole words: no "bank" inside "banking", case-insensitive
    (["Banking is a bank's business.", "The BANK opened; banks closed."], "bank", [[(13, 17)], [(4, 8)]]),
    # a word that mixes scripts: its Latin end must not touch another letter
    (["東京tower is tall", "東京towers are tall"], "東京tower", [[(0, 7)], []]),
])
def test_table_of_words(models, lines, word, spans):
    loaded, reference = models["minilm"]
    expected = []
    for line, line_spans in zip(lines, spans):
        offsets = reference.tokenizer(line, return_offsets_mapping=True)["offset_mapping"]
        expected.append([(s, e, [i for i, (a, b) in enumerate(offsets) if b > a and s <= a and b <= e])
                         for s, e in line_spans])
    table = check_vectors(loaded, reference, lines, word, expected)
    assert len(table) == sum(len(s) for s in spans)


def test_a_word_inside_a_token_is_refused_with_how_words_are_found(models):
    """MiniLM reads a Thai run as one [UNK] token: a Thai word inside it has no vector of its own."""
    loaded, _ = models["minilm"]
    with pytest.raises(WorkbenchError) as refusal:
        run_to_completion(extract_occurrence_vectors(loaded, Corpus(["ฉันอยู่ที่กรุงเทพ"]), words=["กรุงเทพ"],
                                                     layers=[LAYER]))
    message = str(refusal.value)
    assert "'กรุงเทพ' does not occur" in message and "written without spaces" in message
    assert "appears 1 time(s) inside other words or tokens" in message and "\n" not in message


def test_a_run_past_the_window_is_dropped_and_counted(models):
    """MiniLM (a 512-token window, a token per Han character): the 東京 beyond the window is left out and
    counted; the one inside it has the vectors of its tokens in the window."""
    loaded, reference = models["minilm"]
    lines = ["東京" + "我" * 520 + "東京", "東京很大"]
    table = run_to_completion(extract_occurrence_vectors(loaded, Corpus(lines), words=["東京"], layers=[LAYER]))
    assert [(o.line, o.char_start, o.token_start, o.token_end) for o in table.occurrences] == [(0, 0, 1, 3),
                                                                                              (1, 0, 1, 3)]
    assert (table.truncated_lines, table.dropped_occurrences) == (1, 1)
    import torch

    with torch.no_grad():
        inputs = reference.tokenizer(lines[0], return_tensors="pt", truncation=True, max_length=512)
        hidden = reference.model(**inputs, output_hidden_states=True).hidden_states[LAYER][0].numpy()
    assert np.abs(table.vectors[LAYER][0] - hidden[1:3].mean(axis=0)).max() <= 1e-5


def test_the_reported_command(capsys, tmp_path):
    """`neighbours minilm --corpus cjk.txt --layer 6 --word 東京` (issue 42) answers with the three 東京."""
    import json

    from lm_workbench.cli.main import main

    corpus = tmp_path / "cjk.txt"
    corpus.write_text("\n".join(CJK_LINES) + "\n", encoding="utf-8")
    code = main(["neighbours", "minilm", "--corpus", str(corpus), "--layer", "6", "--word", "東京", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [o["line"] for o in json.loads(out)["occurrences"]] == [1, 2, 3]
    code = main(["neighbours", "minilm", "--corpus", str(corpus), "--layer", "6", "--word", "大阪"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "written without spaces" in err
