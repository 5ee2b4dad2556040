"""``corrupt`` and ``plugins``: what a pre-training objective does to a text, and which objectives exist.

``lm-workbench corrupt --objective mlm --tokenizer MODEL --text "..." --seed 0 --json``
prints the original tokens, the tokens the model would be fed, the labels
and the kind of each position; with ``--samples N`` it also measures rates
over N draws. ``lm-workbench plugins list --json`` lists every objective
plugin with its status.
"""

from __future__ import annotations

import argparse
from typing import Any

from lm_workbench.cli.common import add_source_options, handled_by, print_json


def register(sub: Any) -> None:
    """Add ``corrupt`` and ``plugins`` to the CLI's subparsers."""
    cor = sub.add_parser("corrupt", help="what a pre-training objective does to a text: inputs, labels, kinds")
    cor.add_argument("--objective", required=True, help="the objective's name (see 'plugins list')")
    cor.add_argument("--tokenizer", required=True, metavar="MODEL",
                     help="a model whose tokenizer to use: a folder, a hub id or 'minilm' (no weights are loaded)")
    cor.add_argument("--text", required=True, help="the text to corrupt")
    cor.add_argument("--seed", type=int, default=0, help="random seed (default 0): the same seed, the same output")
    cor.add_argument("--samples", type=int, help="also measure the rates of each kind over N draws")
    cor.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="an objective setting, e.g. --set mask_rate=0.2 (repeatable)")
    add_source_options(cor)
    handled_by(cor, cmd_corrupt)

    plugins = sub.add_parser("plugins", help="objective plugins: built in, installed, or in the plugins folder")
    actions = plugins.add_subparsers(dest="plugins_command", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help="every plugin with its source, status and error")
    listing.add_argument("--json", action="store_true", help="print JSON")
    plugins.set_defaults(handler=cmd_plugins)


def _print_table(data: dict[str, Any]) -> None:
    rows = list(zip(data["input_tokens"], data["kinds"]))
    width = max([5] + [len(t) for t, _ in rows])
    if data["labels_aligned"]:
        for i, ((token, kind), label) in enumerate(zip(rows, data["label_tokens"])):
            print(f"{i:>4}  {token:<{width}}  {kind:<9}  {label if label is not None else ''}")
    else:
        for i, (token, kind) in enumerate(rows):
            print(f"{i:>4}  {token:<{width}}  {kind}")
        print("target: " + " ".join(t for t in data["label_tokens"] if t is not None))
    if "rates" in data:
        print(f"over {data['samples']} samples: " + ", ".join(f"{k} {v:.4f}" for k, v in data["rates"].items()))


def cmd_corrupt(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_models import corrupt
    from lm_workbench.requests import request_of

    data = corrupt(request_of(args)).to_dict()
    if args.json:
        print_json(data)
    else:
        _print_table(data)
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    from lm_workbench.command_results.compute_store import plugins_list
    from lm_workbench.requests import request_of

    computed = plugins_list(request_of(args))
    if args.json:
        print_json(computed.to_dict())
        return 0
    for r in computed.engine_result.records:
        line = f"{r.name:<16} {r.version:<10} {r.source:<12} {r.status:<9} {', '.join(r.families)}"
        print(line + (f"  ({r.error})" if r.error else ""))
    return 0

