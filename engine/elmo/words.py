"""ELMo reads words: splitting text into words, and the biLM's word vocabulary.

ELMo's input is each word's characters, so the workbench splits text into
words itself: a word is a run of letters, digits and underscores, and every
other run of non-space characters is a token of its own (``"it's 3.5%"`` ->
``it ' s 3 . 5 %``). This is exactly the ``Whitespace`` pre-tokeniser of the
``tokenizers`` library, which the pre-training tokenizer uses, so a text is
split the same way in training and in the views.

A published ELMo (AllenNLP's) was trained on text that was already tokenized
(``U.S.`` one token), so splitting it again gives other words than it saw in
training. ``WordTokenizer`` therefore has a words mode: ``"split"`` (the rule
above) or ``"as-given"`` (the whitespace-separated words exactly as typed,
``str.split()``). ``lm_workbench.engine.models.loading`` picks it when the model loads: an explicit
choice wins, else as-given for a published AllenNLP folder and split for an
ELMo the workbench trained (``default_words_mode``).

``WordTokenizer`` is what a loaded ELMo carries as its tokenizer: it gives
``lm_workbench.engine.tokens`` the words, their character offsets and word indices; the
sentence markers ``<S>``/``</S>`` are the model's business and never appear
in the tokens. The word vocabulary (``vocab.txt``: one word per line, the
biLM softmax's rows in order) maps words to ids when there is one; without
one (a published model: its softmax was not released) every id is <UNK>'s.

``build_word_vocabulary`` counts a corpus's words into that vocabulary:
``<S> </S> <UNK>`` first, then the words by decreasing frequency (ties by
first appearance), the order a sampled softmax's log-uniform proposal assumes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

BOS, EOS, UNK = "<S>", "</S>", "<UNK>"
WORD_SPECIALS = (BOS, EOS, UNK)
BOS_ID, EOS_ID, UNK_ID = 0, 1, 2
VOCAB_FILE = "vocab.txt"

WORDS_AS_GIVEN, WORDS_SPLIT = "as-given", "split"
WORDS_MODES = (WORDS_AS_GIVEN, WORDS_SPLIT)

_WORD = re.compile(r"\w+|[^\w\s]+")
_NON_SPACE = re.compile(r"\S+")


def split_words(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) for every word of ``text``, in order."""
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]


def words_as_given(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) for every whitespace-separated word of ``text``: the words of ``text.split()``."""
    return [(m.group(), m.start(), m.end()) for m in _NON_SPACE.finditer(text)]


def words_of(text: str, mode: str = WORDS_SPLIT) -> list[tuple[str, int, int]]:
    """``text``'s words in a words mode (``WORDS_MODES``)."""
    if mode == WORDS_AS_GIVEN:
        return words_as_given(text)
    if mode == WORDS_SPLIT:
        return split_words(text)
    raise ValueError(f"words mode must be one of {', '.join(WORDS_MODES)}, not {mode!r}")


def build_word_vocabulary(lines: Iterable[str], max_size: int | None = None) -> list[str]:
    """``<S> </S> <UNK>`` then the words of ``lines`` by decreasing count (ties: first seen first).

    ``max_size`` caps the whole list (specials included); None keeps every word.
    """
    counts: Counter[str] = Counter()
    for line in lines:
        counts.update(m.group() for m in _WORD.finditer(line))
    for special in WORD_SPECIALS:
        counts.pop(special, None)
    # Counter keeps first-seen order, and sorted() is stable: equal counts stay in that order.
    words = [w for w, _ in sorted(counts.items(), key=lambda item: -item[1])]
    vocab = [*WORD_SPECIALS, *words]
    return vocab if max_size is None else vocab[: max(len(WORD_SPECIALS), int(max_size))]


def read_vocabulary(folder: str | Path) -> list[str] | None:
    path = Path(folder) / VOCAB_FILE
    if not path.is_file():
        return None
    return path.read_text(encoding="utf-8").splitlines()


def write_vocabulary(words: Sequence[str], folder: str | Path) -> Path:
    path = Path(folder) / VOCAB_FILE
    path.write_text("\n".join(words) + "\n", encoding="utf-8")
    return path


class WordTokenizer:
    """ELMo's tokenizer for the views: words with offsets, ids from an optional vocabulary."""

    is_word_level = True  # lm_workbench.engine.tokens asks for ``tokenize_words`` on tokenizers that say so

    def __init__(self, vocabulary: Sequence[str] | None = None, name_or_path: str = "", words: str = WORDS_SPLIT):
        if words not in WORDS_MODES:
            raise ValueError(f"words mode must be one of {', '.join(WORDS_MODES)}, not {words!r}")
        self.vocabulary = list(vocabulary) if vocabulary else list(WORD_SPECIALS)
        self._ids = {w: i for i, w in enumerate(self.vocabulary)}
        self.name_or_path = name_or_path
        self.words = words  # WORDS_AS_GIVEN or WORDS_SPLIT

    def __len__(self) -> int:
        return len(self.vocabulary)

    def word_id(self, word: str) -> int:
        return self._ids.get(word, UNK_ID)

    def convert_ids_to_tokens(self, ids: Sequence[int]) -> list[str]:
        return [self.vocabulary[i] if 0 <= i < len(self.vocabulary) else UNK for i in ids]

    def tokenize_words(self, text: str) -> dict[str, Any]:
        """What ``lm_workbench.engine.tokens`` builds a ``TokenizedText`` from (no special tokens: ELMo adds its own)."""
        words = words_of(text, self.words)
        return {
            "ids": [self.word_id(w) for w, _, _ in words],
            "tokens": [w for w, _, _ in words],
            "offsets": [(s, e) for _, s, e in words],
            "word_ids": list(range(len(words))),
        }


def word_level_tokenizer(vocabulary: Sequence[str], model_max_length: int | None = None) -> Any:
    """A ``transformers`` fast tokenizer over ``vocabulary`` that splits text as ``split_words`` does.

    The pre-training pipeline packs its ids like any family's; ``<S>`` is its
    bos token, ``</S>`` its eos token and ``<UNK>`` its unknown word. It adds
    no special tokens to a text (the model puts <S> and </S> around each example).
    """
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    if list(vocabulary[: len(WORD_SPECIALS)]) != list(WORD_SPECIALS):
        raise ValueError(f"a word vocabulary starts with {', '.join(WORD_SPECIALS)}")
    tok = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(vocabulary)}, unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    extra = {"model_max_length": int(model_max_length)} if model_max_length else {}
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS, unk_token=UNK,
                                   pad_token=EOS, **extra)
