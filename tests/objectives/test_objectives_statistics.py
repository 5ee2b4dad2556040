"""Statistics of the corruption, with fixed seeds, against the papers' numbers.

MLM over a million tokens selects 15% and splits 80/10/10 (Devlin et al.
2019). Span lengths pass a chi-square test (alpha = 0.001) against their
distributions computed here, independently of the plugins (pooling every
drawn length, see the note below): SpanBERT's
geometric(0.2) truncated to 1..10 words, BART's Poisson(3), and for T5 the
length of one part of a uniformly random composition of n into k positive
parts, C(n-l-1, k-2) / C(n-1, k-1). The realised masked fractions are
within half a point of the budgets.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numpy as np

from lm_workbench.engine.plugin_api import PositionKind as K
from tests.support.objective_helpers import chisquare_pvalue, objective, ordinary_ids, synthetic_docs, tokenizer_for, wrap

ALPHA = 0.001


def test_mlm_selects_15_percent_and_splits_80_10_10_over_a_million_tokens(tiny_models):
    tok = tokenizer_for(tiny_models, "bert")
    docs = synthetic_docs(tok, np.random.default_rng(2019), n_docs=3400, low=100, high=500)
    obj = objective("mlm")
    b = obj.make_batch(docs, tok, np.random.default_rng(0), obj.default_config())
    specials = set(tok.all_special_ids)
    eligible = sum(1 for d in docs for t in d if t not in specials)
    assert eligible >= 1_000_000
    kinds = Counter(k for p in b.previews for k in p.kinds)
    selected = kinds[K.MASKED] + kinds[K.RANDOM] + kinds[K.KEPT]
    assert abs(selected / eligible - 0.15) <= 0.002
    assert abs(kinds[K.MASKED] / selected - 0.8) <= 0.005
    assert abs(kinds[K.RANDOM] / selected - 0.1) <= 0.005
    assert abs(kinds[K.KEPT] / selected - 0.1) <= 0.005
    assert int((b.labels != -100).sum()) == selected


def test_mlm_whole_words_and_static_masking(tiny_models):
    tok = tokenizer_for(tiny_models, "bert")
    docs = synthetic_docs(tok, np.random.default_rng(5), n_docs=400, low=200, high=500)
    obj = objective("mlm")
    wwm = dataclasses.replace(obj.default_config(), whole_word_masking=True)
    b = obj.make_batch(docs, tok, np.random.default_rng(0), wwm)
    eligible = sum(len(d) - 2 for d in docs)
    assert abs(sum(len(p.scored_positions) for p in b.previews) / eligible - 0.15) <= 0.005
    static = dataclasses.replace(obj.default_config(), masking="static")
    rng = np.random.default_rng(11)
    epoch1 = obj.make_batch(docs[:50], tok, rng, static)
    epoch2 = obj.make_batch(docs[:50], tok, rng, static)  # the same generator, later state
    assert [p.input_ids for p in epoch1.previews] == [p.input_ids for p in epoch2.previews]
    dynamic = obj.default_config()
    again1 = obj.make_batch(docs[:50], tok, rng, dynamic)
    again2 = obj.make_batch(docs[:50], tok, rng, dynamic)
    assert [p.input_ids for p in again1.previews] != [p.input_ids for p in again2.previews]


def _word_count(tok, ids: list[int], start: int, count: int) -> int:
    tokens = tok.convert_ids_to_tokens(ids[start: start + count])
    return sum(1 for t in tokens if not t.startswith("##")) or 1


def _text_like_docs(tok, n_docs: int, seed: int) -> list[list[int]]:
    """Documents of 510 tokens, a fifth of them '##' continuation pieces (words of 1.25 tokens on average)."""
    vocab = tok.convert_ids_to_tokens(list(range(len(tok))))
    pool = ordinary_ids(tok)
    heads = np.array([i for i in pool if not vocab[i].startswith("##")])
    pieces = np.array([i for i in pool if vocab[i].startswith("##")])
    rng = np.random.default_rng(seed)
    docs = []
    for _ in range(n_docs):
        ids = np.where(rng.random(510) < 0.2, rng.choice(pieces, 510), rng.choice(heads, 510))
        ids[0] = rng.choice(heads)
        docs.append(wrap(tok, ids.tolist()))
    return docs


def truncated_geometric_pmf(p: float, longest: int) -> dict[int, float]:
    weights = {l: p * (1 - p) ** (l - 1) for l in range(1, longest + 1)}
    total = sum(weights.values())
    return {l: w / total for l, w in weights.items()}


# Why the chi-square tests pool *every drawn* length, the last one of each example included: drawing stops
# at the first span that reaches the budget, and that span is more likely a long one (the inspection
# paradox), so the spans before it are biased short. By Wald's identity the pooled draws, last included,
# have expected counts exactly E[number of draws] * pmf. The objectives then cut that last span to the
# budget (as SpanBERT's and fairseq's code do), which the realised-fraction checks cover.


def test_spanbert_span_lengths_are_truncated_geometric(tiny_models):
    from lm_workbench.engine.plugin_api import vocab_info
    from lm_workbench.engine.plugin_api import budget, span_length_pmf
    from lm_workbench.plugins.objectives.spanbert.objective import Words, draw_spans

    tok = tokenizer_for(tiny_models, "bert")
    docs = _text_like_docs(tok, 500, seed=2020)
    info, rng = vocab_info(tok), np.random.default_rng(0)
    drawn = []
    for ids in docs:  # the sampler make_batch calls, on the same documents
        words = Words.of(np.asarray(ids), info)
        drawn += [s.drawn for s in draw_spans(words, budget(0.15, int(words.length.sum())), rng,
                                               span_length_pmf(0.2, 10))]
    pmf = truncated_geometric_pmf(0.2, 10)
    assert len(drawn) > 8000
    assert chisquare_pvalue(drawn, pmf) > ALPHA
    assert abs(np.mean(drawn) - 3.797) < 0.1  # the paper's mean span length, about 3.8 words

    obj = objective("spanbert")
    b = obj.make_batch(docs, tok, np.random.default_rng(0), obj.default_config())
    selected = sum(len(p.scored_positions) for p in b.previews)
    assert abs(selected / sum(len(d) - 2 for d in docs) - 0.15) <= 0.005
    realised = [_word_count(tok, p.original, start, count) for p in b.previews for start, count in p.spans]
    assert set(realised) <= set(range(1, 11))


def test_bart_infilling_spans_are_poisson_3(tiny_models):
    from lm_workbench.engine.plugin_api import draw_poisson_lengths

    rng = np.random.default_rng(0)
    drawn = [length for _ in range(300) for length in draw_poisson_lengths(150, 3.0, rng)]
    pmf = {l: math.exp(-3) * 3**l / math.factorial(l) for l in range(0, 40)}
    assert len(drawn) > 8000 and 0 in drawn, "zero-length spans (insertions) occur"
    assert chisquare_pvalue(drawn, pmf) > ALPHA

    tok = tokenizer_for(tiny_models, "bart")
    docs = synthetic_docs(tok, np.random.default_rng(2020), n_docs=250, low=400, high=500)
    obj = objective("bart")
    config = dataclasses.replace(obj.default_config(), sentence_permutation=0.0)
    b = obj.make_batch(docs, tok, np.random.default_rng(0), config)
    masked = sum(p.original_kinds.count(K.MASKED) for p in b.previews)
    assert abs(masked / sum(len(d) - 2 for d in docs) - 0.30) <= 0.005
    for p, d in zip(b.previews, docs):  # every span placed: they cover the budget exactly
        assert sum(count for _, count in p.spans) == int(np.floor(0.3 * (len(d) - 2) + 0.5))
        assert all(p.input_ids[pos] == tok.mask_token_id for pos, _ in p.spans), "one mask token per span"
    realised = [count for p in b.previews for _, count in p.spans[:-1]]
    assert 0 in realised and max(realised) >= 8


def test_bart_token_masking_and_deletion_rates(tiny_models):
    tok = tokenizer_for(tiny_models, "bart")
    docs = synthetic_docs(tok, np.random.default_rng(3), n_docs=200, low=100, high=300)
    obj = objective("bart")
    config = dataclasses.replace(obj.default_config(), sentence_permutation=0.0, text_infilling=0.0,
                                 token_masking=0.15, token_deletion=0.1)
    b = obj.make_batch(docs, tok, np.random.default_rng(0), config)
    eligible = sum(len(d) - 2 for d in docs)
    kinds = Counter(k for p in b.previews for k in p.original_kinds)
    assert abs(kinds[K.MASKED] / eligible - 0.15) <= 0.005
    assert abs(kinds[K.DELETED] / eligible - 0.10) <= 0.005
    assert sum(len(p.input_ids) for p in b.previews) == sum(len(d) for d in docs) - kinds[K.DELETED]


def composition_part_pmf(n: int, k: int) -> dict[int, float]:
    """P(one part = l) for a uniformly random composition of n into k positive parts."""
    return {l: math.comb(n - l - 1, k - 2) / math.comb(n - 1, k - 1) for l in range(1, n - k + 2)}


def test_t5_span_lengths_are_uniform_compositions(tiny_models):
    tok = tokenizer_for(tiny_models, "t5")
    docs = synthetic_docs(tok, np.random.default_rng(2020), n_docs=3000, low=140, high=140)
    obj = objective("t5-span")
    b = obj.make_batch(docs, tok, np.random.default_rng(0), obj.default_config())
    noise, gaps = [], []
    for p in b.previews:
        flags = [k is K.MASKED for k in p.original_kinds[:-1]]
        runs = [(flag, len(list(group))) for flag, group in __import__("itertools").groupby(flags)]
        assert runs[0][0] is False and runs[-1][0] is True, "T5's mask starts with non-noise and ends in noise"
        noise += [n for flag, n in runs if flag]
        gaps += [n for flag, n in runs if not flag]
    # L = 140: n_noise = round(21.0) = 21 in n_spans = round(7.0) = 7 spans; 119 non-noise tokens in 7 parts.
    assert len(noise) == 7 * len(docs) and sum(noise) == 21 * len(docs)
    assert chisquare_pvalue(noise, composition_part_pmf(21, 7)) > ALPHA
    assert chisquare_pvalue(gaps, composition_part_pmf(119, 7)) > ALPHA


def test_t5_noise_fraction_is_the_budget(tiny_models):
    tok = tokenizer_for(tiny_models, "t5")
    docs = synthetic_docs(tok, np.random.default_rng(4), n_docs=500, low=20, high=150)
    obj = objective("t5-span")
    b = obj.make_batch(docs, tok, np.random.default_rng(0), obj.default_config())
    noise = sum(p.original_kinds.count(K.MASKED) for p in b.previews)
    assert abs(noise / sum(len(d) - 1 for d in docs) - 0.15) <= 0.005
    assert len({tuple(p.input_ids) for p in b.previews}) == len(b.previews)
