"""``compare``: two models side by side: the layer × layer linear CKA on the same texts' words.

``lm-workbench compare MODEL_A MODEL_B --text T [--text T2 ...] --json`` loads both models, takes each text's
whitespace-separated words, gives each word the mean of its subwords' vectors at every layer (each model's
own word alignment, so models with different tokenizers compare the same words) and prints
``{"model_a", "model_b", "layers_a", "layers_b", "words", "cka": [[...]]}`` (rows: A's layers 0..L).
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import handled_by, print_json


def register(sub: Any) -> None:
    """Add ``compare`` to the CLI's subparsers."""
    p = sub.add_parser("compare", help="how alike two models' layers are on the same words: layer x layer CKA")
    p.add_argument("model_a", help="model A: a folder, a hub id or 'minilm'")
    p.add_argument("model_b", help="model B: a folder, a hub id or 'minilm'")
    p.add_argument("--text", action="append", required=True, help="a text (repeat for more); at least two words")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], help="where to run (default: settings, auto)")
    p.add_argument("--precision", choices=["auto", "float32", "bfloat16", "float16"],
                   help="weights' number format (default: settings, auto)")
    p.add_argument("--offline", action="store_true", default=None, help="never contact the hub")
    handled_by(p, cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_models import compare
    from lm_workbench.requests import request_of

    result = compare(request_of(args), quiet=args.json)
    if args.json:
        print_json(result.to_dict())
        return 0
    cka = result.engine_result
    print(f"linear CKA on {len(cka.words)} words; rows: {cka.model_a} layers, columns: {cka.model_b} layers")
    print("      " + "".join(f"{b:>7}" for b in cka.layers_b))
    for a, row in zip(cka.layers_a, cka.cka):
        print(f"{a:>6}" + "".join(f"{v:7.3f}" for v in row))
    return 0
