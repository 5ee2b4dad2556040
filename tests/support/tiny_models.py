"""Tiny real models for tests, built from configs and saved to a folder.

Nothing is downloaded: tokenizers are trained in a second on the English
prose that Python ships (``pydoc_data.topics``; BERT's WordPiece vocabulary was trained on it once and is
read from ``data/``, see ``_wordpiece_tokenizer``), models are initialised from
small configs with a fixed seed and saved with ``save_pretrained``
(safetensors), so the real loading code runs on them.
"""

from __future__ import annotations

from pathlib import Path

FAMILIES = ("bert", "gpt2", "llama", "bart", "t5")
WINDOW = 64  # small on purpose: truncation is easy to test
VOCAB = 1000


def corpus_lines(limit: int = 3000) -> list[str]:
    from pydoc_data.topics import topics

    lines: list[str] = []
    for text in topics.values():
        lines.extend(line.strip() for line in text.splitlines() if len(line.strip()) > 20)
        if len(lines) >= limit:
            break
    return lines[:limit]


def _wordpiece_tokenizer():
    """BERT's WordPiece over a fixed vocabulary (``data/tiny_wordpiece_vocab.txt``).

    The vocabulary was trained once on ``corpus_lines()`` with tokenizers' ``WordPieceTrainer``. It is read
    from a file rather than trained in each test session because that trainer breaks ties in hash order: each
    session got another vocabulary (other ids for "name", "is"...), so every number a test read off the tiny
    BERT changed from one run to the next, and a check near a threshold passed or failed by chance. (The
    byte-level BPE tokenizers below train the same way every time.)
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    words = (Path(__file__).parent / "data" / "tiny_wordpiece_vocab.txt").read_text(encoding="utf-8").splitlines()
    tok = Tokenizer(models.WordPiece({word: i for i, word in enumerate(words)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    tok.decoder = decoders.WordPiece()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
        mask_token="[MASK]", model_max_length=WINDOW,
    )


def _bpe_tokenizer(kind: str):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    if kind in ("gpt2", "llama"):
        specials = ["<|endoftext|>"]
    elif kind == "bart":
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    else:  # t5: pad 0, eos 1, unk 2, then sentinels
        specials = ["<pad>", "</s>", "<unk>"] + [f"<extra_id_{i}>" for i in range(8)]
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(corpus_lines(), trainer)
    if kind in ("gpt2", "llama"):
        eos = "<|endoftext|>"
        return PreTrainedTokenizerFast(
            tokenizer_object=tok, bos_token=eos, eos_token=eos, unk_token=eos, model_max_length=WINDOW
        )
    if kind == "bart":
        bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)]
        )
        return PreTrainedTokenizerFast(
            tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
            mask_token="<mask>", model_max_length=WINDOW,
        )
    eos = tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
        additional_special_tokens=[f"<extra_id_{i}>" for i in range(8)], model_max_length=WINDOW,
    )


def _model(kind: str, tokenizer):
    import torch
    import transformers as tf

    torch.manual_seed(1234)
    vocab = len(tokenizer)
    small = dict(vocab_size=vocab)
    if kind == "bert":
        config = tf.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
                               max_position_embeddings=WINDOW, pad_token_id=tokenizer.pad_token_id, **small)
        return tf.BertForMaskedLM(config)
    if kind == "gpt2":
        config = tf.GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=WINDOW,
                               bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id, **small)
        return tf.GPT2LMHeadModel(config)
    if kind == "llama":
        config = tf.LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                                num_key_value_heads=2, max_position_embeddings=WINDOW,
                                bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id, **small)
        return tf.LlamaForCausalLM(config)
    if kind == "bart":
        config = tf.BartConfig(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                               decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                               max_position_embeddings=WINDOW, pad_token_id=tokenizer.pad_token_id,
                               bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                               decoder_start_token_id=tokenizer.eos_token_id, forced_eos_token_id=None, **small)
        return tf.BartForConditionalGeneration(config)
    if kind == "t5":
        config = tf.T5Config(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
                             pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                             decoder_start_token_id=tokenizer.pad_token_id, **small)
        return tf.T5ForConditionalGeneration(config)
    raise ValueError(kind)


def build_tiny_model(kind: str, folder: Path) -> Path:
    """Build one tiny model of ``kind`` (see FAMILIES) and save it in ``folder``."""
    import transformers

    transformers.logging.disable_progress_bar()
    transformers.logging.set_verbosity_error()
    tokenizer = _wordpiece_tokenizer() if kind == "bert" else _bpe_tokenizer(kind)
    model = _model(kind, tokenizer)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def build_many_heads_decoder(folder: Path, *, heads: int = 32, kv_heads: int = 4, layers: int = 2) -> Path:
    """A tiny Llama-style decoder with as many heads as a 1.1B one (32, grouped-query: ``kv_heads`` keys and
    values shared among them), two wide per head, saved in ``folder``: the views' layout at real head counts."""
    import torch
    import transformers as tf

    transformers_quiet = tf.logging.get_verbosity()
    tf.logging.set_verbosity_error()
    tokenizer = _bpe_tokenizer("llama")
    torch.manual_seed(1234)
    config = tf.LlamaConfig(hidden_size=2 * heads, intermediate_size=4 * heads, num_hidden_layers=layers,
                            num_attention_heads=heads, num_key_value_heads=kv_heads, max_position_embeddings=WINDOW,
                            vocab_size=len(tokenizer), bos_token_id=tokenizer.eos_token_id,
                            eos_token_id=tokenizer.eos_token_id)
    folder.mkdir(parents=True, exist_ok=True)
    tf.LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    tf.logging.set_verbosity(transformers_quiet)
    return folder
