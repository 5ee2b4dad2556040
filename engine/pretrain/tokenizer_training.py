"""Train a tokenizer for a model family with the ``tokenizers`` library, in the standard format.

Each family gets the tokenizer its original used (Devlin et al. 2019; Radford
et al. 2019; Lewis et al. 2020; Raffel et al. 2020):

- bert: WordPiece, BERT's normaliser (lower-cased unless asked otherwise) and
  pre-tokeniser, ``[PAD] [UNK] [CLS] [SEP] [MASK]``, ``[CLS] A [SEP] (B [SEP])``.
- gpt2: byte-level BPE; ``<|endoftext|>`` is BOS, EOS and UNK, as in GPT-2, and
  ``<pad>`` is a separate padding token so batches of unequal lengths work.
- bart: byte-level BPE, ``<s> <pad> </s> <unk> <mask>`` (ids 0-4, as BART's),
  ``<s> A </s> (</s> B </s>)`` (RoBERTa's post-processing).
- elmo: words (``lm_workbench.engine.elmo.words``): every word of the corpus, by decreasing
  frequency after ``<S> </S> <UNK>``; ELMo reads characters, so the
  vocabulary only names the softmax's rows (its size is set by the model).
- t5: Unigram (SentencePiece's model) with ``<pad> </s> <unk>`` first and the
  sentinels ``<extra_id_0> ... <extra_id_N-1>`` last, as T5's vocabulary;
  ``</s>`` is appended to every text.

Training is deterministic: the same corpus and settings give the same tokenizer file in every process and on
every machine (WordPiece by ``wordpiece_trainer``, tokenizers' algorithm with ties broken in a fixed order;
Unigram made canonical by ``unigram_canonical``; the byte-level BPE trainer's ties are already ordered).

Byte-level BPE adds a space before each text (``add_prefix_space``), so a word
starting a line gets the same ``Ġword`` token as inside a line: every line of a
corpus is tokenised consistently wherever packing puts it. The result is saved
with ``save_pretrained`` and loaded back with ``AutoTokenizer``, so what the
caller gets is exactly what every view will load later.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Iterable

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.pretrain.names import FAMILIES

MIN_VOCAB_SIZE = 300  # byte-level BPE alone needs 256 symbols plus its special tokens
T5_SPECIALS = ("<pad>", "</s>", "<unk>")
BART_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
GPT2_EOS, GPT2_PAD = "<|endoftext|>", "<pad>"


def sentinel_tokens(n: int) -> list[str]:
    return [f"<extra_id_{i}>" for i in range(n)]


def _check_family(family: str) -> None:
    if family not in FAMILIES:
        raise WorkbenchError(f"unknown model family {family!r}; choose one of {', '.join(FAMILIES)}")


def _wordpiece(texts: Iterable[str], vocab_size: int, lowercase: bool) -> tuple[Any, dict]:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=lowercase, strip_accents=None if lowercase else False)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    # Our own trainer (tokenizers' algorithm with ties broken in a fixed order): the same vocabulary in every
    # process (the Rust trainer's hash-ordered ties gave two machines two course BERT vocabularies).
    from lm_workbench.engine.pretrain.wordpiece_trainer import PREFIX, count_words, learn_wordpiece_vocabulary

    vocabulary = learn_wordpiece_vocabulary(count_words(texts, tok), vocab_size, list(BERT_SPECIALS))
    tok.model = models.WordPiece(vocab={t: i for i, t in enumerate(vocabulary)}, unk_token="[UNK]",
                                 continuing_subword_prefix=PREFIX, max_input_chars_per_word=100)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    specials = dict(unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
                    mask_token="[MASK]", do_lower_case=lowercase,
                    model_input_names=["input_ids", "token_type_ids", "attention_mask"])  # segments for pairs
    return tok, specials


def _byte_level_bpe(family: str, texts: Iterable[str], vocab_size: int, lowercase: bool) -> tuple[Any, dict]:
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.BPE())
    if lowercase:
        tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    names = [GPT2_EOS, GPT2_PAD] if family == "gpt2" else list(BART_SPECIALS)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=names, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    if family == "gpt2":
        tok.post_processor = processors.ByteLevel(trim_offsets=True)
        return tok, dict(bos_token=GPT2_EOS, eos_token=GPT2_EOS, unk_token=GPT2_EOS, pad_token=GPT2_PAD)
    tok.post_processor = processors.RobertaProcessing(
        ("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")), trim_offsets=True, add_prefix_space=True,
    )
    # As RoBERTa's and BART's: "<mask>" swallows the space before it, so "a <mask>" masks the word " x".
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False, special=True)])
    return tok, dict(bos_token="<s>", eos_token="</s>", sep_token="</s>", cls_token="<s>", unk_token="<unk>",
                     pad_token="<pad>", mask_token="<mask>")


def _unigram(texts: Iterable[str], vocab_size: int, lowercase: bool, num_sentinels: int) -> tuple[Any, dict]:
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
    from tokenizers import processors, trainers

    tok = Tokenizer(models.Unigram())
    steps = [normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")]
    if lowercase:
        steps.append(normalizers.Lowercase())
    tok.normalizer = normalizers.Sequence(steps)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(vocab_size=max(len(T5_SPECIALS) + 1, vocab_size - num_sentinels),
                                      special_tokens=list(T5_SPECIALS), unk_token="<unk>", show_progress=False)
    tok.train_from_iterator(texts, trainer)
    from lm_workbench.engine.pretrain.unigram_canonical import canonical_unigram

    tok = canonical_unigram(tok, T5_SPECIALS)  # the same model in every process (hash-ordered ties otherwise)
    # Sentinels come last, as in T5's vocabulary (there <extra_id_0> is the id just below the top ones).
    sentinels = [AddedToken(t, special=True, normalized=False) for t in sentinel_tokens(num_sentinels)]
    tok.add_special_tokens(sentinels)
    eos = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B:1 </s>:1", special_tokens=[("</s>", eos)]
    )
    return tok, dict(eos_token="</s>", unk_token="<unk>", pad_token="<pad>",
                     additional_special_tokens=sentinel_tokens(num_sentinels))


def _quiet() -> None:
    import transformers

    transformers.logging.set_verbosity_error()
    logging.getLogger("transformers").setLevel(logging.ERROR)


def train_tokenizer(family: str, texts: Iterable[str], out_dir: Path, *, vocab_size: int = 8000,
                    lowercase: bool | None = None, num_sentinels: int = 100,
                    model_max_length: int | None = None) -> Any:
    """Train ``family``'s tokenizer on ``texts`` (one sentence/paragraph each), save it in ``out_dir``.

    ``texts`` is consumed once, as a stream (pass ``corpus_lines(paths)``).
    ``lowercase`` None means the family's habit (BERT uncased, others cased).
    ``num_sentinels`` only matters for t5 (at least 2: span corruption needs
    them). Returns the tokenizer as ``AutoTokenizer.from_pretrained(out_dir)``
    loads it.
    """
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    _check_family(family)
    if family == "elmo":
        return _word_vocabulary_tokenizer(texts, Path(out_dir), model_max_length)
    if vocab_size < MIN_VOCAB_SIZE:
        raise WorkbenchError(f"vocabulary size {vocab_size} is too small; use at least {MIN_VOCAB_SIZE}")
    if family == "t5" and num_sentinels < 2:
        raise WorkbenchError(f"t5 needs at least 2 sentinel tokens for span corruption, not {num_sentinels}")
    if family == "t5" and num_sentinels >= vocab_size // 2:
        raise WorkbenchError(f"{num_sentinels} sentinels leave too little of a {vocab_size} vocabulary")
    lower = (family == "bert") if lowercase is None else bool(lowercase)
    if family == "bert":
        tok, specials = _wordpiece(texts, vocab_size, lower)
    elif family in ("gpt2", "bart"):
        tok, specials = _byte_level_bpe(family, texts, vocab_size, lower)
    else:
        tok, specials = _unigram(texts, vocab_size, lower, num_sentinels)
    if tok.get_vocab_size() <= len(specials):
        raise WorkbenchError("the tokenizer learnt no vocabulary: the corpus has no text")
    _quiet()
    extra: dict[str, Any] = {}
    if model_max_length:
        extra["model_max_length"] = int(model_max_length)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, **specials, **extra)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(out_dir)
    return AutoTokenizer.from_pretrained(out_dir)


def _word_vocabulary_tokenizer(texts: Iterable[str], out_dir: Path, model_max_length: int | None) -> Any:
    """ELMo's word-level tokenizer over every word of ``texts`` (see ``lm_workbench.engine.elmo.words``)."""
    from transformers import AutoTokenizer

    from lm_workbench.engine.elmo.words import WORD_SPECIALS, build_word_vocabulary, word_level_tokenizer

    vocabulary = build_word_vocabulary(texts)
    if len(vocabulary) <= len(WORD_SPECIALS):
        raise WorkbenchError("the word vocabulary is empty: the corpus has no text")
    _quiet()
    out_dir.mkdir(parents=True, exist_ok=True)
    word_level_tokenizer(vocabulary, model_max_length).save_pretrained(out_dir)
    return AutoTokenizer.from_pretrained(out_dir)


def tokenizer_fingerprint(tokenizer: Any) -> str:
    """A hash of everything that decides how text becomes ids (vocabulary, rules, special ids)."""
    import hashlib
    import json

    backend = getattr(tokenizer, "backend_tokenizer", None)
    body = backend.to_str() if backend is not None else json.dumps(tokenizer.get_vocab(), sort_keys=True)
    specials = {name: getattr(tokenizer, f"{name}_token_id", None) for name in
                ("bos", "eos", "unk", "sep", "pad", "cls", "mask")}
    digest = hashlib.sha256(body.encode("utf-8"))
    digest.update(json.dumps(specials, sort_keys=True).encode("utf-8"))
    return digest.hexdigest()


def cached_tokenizer(family: str, paths: Iterable[str], cache_dir: Path, *, vocab_size: int = 8000,
                     lowercase: bool | None = None, num_sentinels: int = 100,
                     model_max_length: int | None = None) -> Any:
    """``train_tokenizer`` on the corpus files, reused when the files and settings are unchanged.

    Training is deterministic (WordPiece by our own trainer, Unigram made
    canonical), so the cache saves time only. Keyed by each file's path, size and modification
    time, the settings and the ``tokenizers`` version.
    """
    import hashlib
    import json
    import os
    import shutil
    import tempfile

    import tokenizers
    from transformers import AutoTokenizer

    from lm_workbench.engine.pretrain.corpus import corpus_bytes, corpus_lines

    paths = [str(p) for p in paths]
    corpus_bytes(paths)  # the files exist
    described = {
        "files": [[str(Path(p).resolve()), Path(p).stat().st_size, Path(p).stat().st_mtime_ns] for p in paths],
        "family": family, "vocab_size": vocab_size, "lowercase": lowercase, "num_sentinels": num_sentinels,
        "model_max_length": model_max_length, "tokenizers": tokenizers.__version__,
    }
    key = hashlib.sha256(json.dumps(described, sort_keys=True).encode("utf-8")).hexdigest()[:24]
    final = Path(cache_dir) / f"{family}-{key}"
    if (final / "tokenizer.json").is_file():
        _quiet()
        return AutoTokenizer.from_pretrained(final)
    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{family}-", dir=cache_dir))
    try:
        train_tokenizer(family, corpus_lines(paths), tmp, vocab_size=vocab_size, lowercase=lowercase,
                        num_sentinels=num_sentinels, model_max_length=model_max_length)
        try:
            os.replace(tmp, final)
        except OSError:  # another process got there first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return AutoTokenizer.from_pretrained(final)


__all__ = [
    "FAMILIES", "MIN_VOCAB_SIZE", "cached_tokenizer", "sentinel_tokens", "tokenizer_fingerprint", "train_tokenizer",
]
