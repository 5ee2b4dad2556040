"""``neighbours`` and ``project``: contextual embeddings of a corpus from the command line.

``lm-workbench neighbours MODEL --corpus FILE --word WORD --layer SPEC --k K --json``
prints, for every occurrence of WORD, its k most similar occurrences (cosine)
in other lines of the corpus::

    {"occurrences": [{"line": L, "word_index": I,
                      "neighbours": [{"line": L2, "word_index": I2, "score": S}, ...]}, ...]}

``line`` is the 1-based line of the corpus file the text is on (for a
``.txt`` file without blank lines, the text's position), ``word_index`` the
0-based index among the tokenizer's pre-tokenised words of that line. Tied
scores are reported whole, so a tie at the k-th place returns more than k.

``lm-workbench project MODEL --corpus FILE [--word WORD] --layer SPEC --method pca|umap|tsne
--seed S --out coords.csv`` writes a 2-D map of every occurrence (of WORD, or
of every word) as CSV: line, word_index, word, label, x, y.

Which states: an encoder's; a decoder's own, where each word sees only its
left context; an encoder-decoder's encoder. Lines longer than the model's
window are cut (a note on stderr says how many, and how many occurrences
were left out).

SPEC is ``N | static | mean:A-B | mix:s0,...,sL[:gamma]``. ``--corpus demo``
uses the built-in polysemy demo set when no file of that name exists.
With ``--cache`` the vectors go through the activation cache in the
workbench's cache folder (float16, so scores agree with a float32
computation to about 1e-3); by default they are computed in float32.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.engine.embeddings.names import PROJECTION_METHODS, WORD_POOLINGS
from lm_workbench.cli.common import (
    add_model_options, add_tsv_quoting_option, handled_by, load_for, output_file, print_json, say_read,
)


def _add_corpus_options(p: argparse.ArgumentParser) -> None:
    add_model_options(p)
    p.add_argument("--corpus", required=True, metavar="FILE",
                   help="a .txt (one text per line), .csv/.tsv (text + optional label column) or .jsonl file; "
                        "'demo' for the built-in polysemy set")
    p.add_argument("--text-column", help=".csv/.tsv/.jsonl: the text column (default: text, sentence, or the first)")
    p.add_argument("--label-column", help=".csv/.tsv/.jsonl: the label column (default: label or sense)")
    add_tsv_quoting_option(p)
    p.add_argument("--layer", required=True, metavar="SPEC",
                   help="N | static | mean:A-B | mix:s0,...,sL[:gamma] (s: pre-softmax scalars)")
    p.add_argument("--pooling", choices=WORD_POOLINGS, default="mean",
                   help="how a word's subword vectors are pooled (default mean)")
    p.add_argument("--cache", action="store_true",
                   help="read/write the activation cache (float16 vectors on disk: faster repeats, scores to ~1e-3)")


def register(sub: Any) -> None:
    """Add ``neighbours`` and ``project`` to the CLI's subparsers."""
    nb = sub.add_parser("neighbours", help="nearest occurrences of a word across a corpus (contextual embeddings)")
    _add_corpus_options(nb)
    nb.add_argument("--word", required=True, help="the word whose occurrences to query (case-insensitive)")
    nb.add_argument("--k", type=int, default=5, help="neighbours per occurrence (default 5; ties are kept whole)")
    handled_by(nb, cmd_neighbours)

    pr = sub.add_parser("project", help="a 2-D map (PCA, UMAP, t-SNE) of word occurrences, to CSV")
    _add_corpus_options(pr)
    pr.add_argument("--word", action="append", help="only occurrences of this word (repeatable; default every word)")
    pr.add_argument("--method", choices=PROJECTION_METHODS, default="pca", help="projection (default pca)")
    pr.add_argument("--seed", type=int, default=0, help="random seed (default 0): the same seed, the same map")
    pr.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a method parameter, e.g. --set n_neighbors=30, --set perplexity=20 (repeatable)")
    pr.add_argument("--out", required=True, help="output .csv file")
    handled_by(pr, cmd_project, json_help="print a JSON summary")


def _read_corpus(args: argparse.Namespace) -> Any:
    from lm_workbench.command_results.compute_embeddings import read_corpus

    return read_corpus(args)


def cmd_neighbours(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_embeddings import check_neighbours, neighbours
    from lm_workbench.requests import request_of

    request = request_of(args)
    word = check_neighbours(request)
    corpus = _read_corpus(args)  # a bad file fails before the model loads
    computed = neighbours(request, load_for(args), corpus=corpus)
    say_read(corpus.report, args)  # after the answer is known: a refusal stays one line
    report = computed.to_dict()
    if args.json:
        print_json(report)
        return 0
    _, table, spec = computed.engine_result
    text_of = dict(zip(corpus.line_numbers, corpus.lines))
    print(f"{len(table)} occurrences of {word!r}, {spec.label}, {args.k} nearest in other lines:")
    for entry in report["occurrences"]:
        print(f"line {entry['line']} word {entry['word_index']}: {text_of[entry['line']]}")
        for nb in entry["neighbours"]:
            other = text_of[nb["line"]]
            print(f"    {nb['score']:.4f}  line {nb['line']} word {nb['word_index']}: {other}")
    return 0


def cmd_project(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_embeddings import check_project, project
    from lm_workbench.requests import request_of

    request = request_of(args)
    output_file(args.out, ".csv", "a .csv file", ignore_case=True)
    check_project(request)
    corpus = _read_corpus(args)  # a bad file fails before the model loads
    computed = project(request, load_for(args), corpus=corpus)
    say_read(corpus.report, args)  # after the map is made: a refusal stays one line
    summary = computed.to_dict()
    if args.json:
        print_json(summary)
    else:
        print(f"wrote {summary['out']}: {summary['points']} points, {args.method}, {computed.engine_result[2].label}")
    return 0
