"""ELMo encode throughput against ``torch.nn.LSTM`` with ``proj_size`` of the same sizes.

Same sentences (real English from pydoc_data.topics, whitespace tokens), same
batches (corpus order), same thread count, random weights, ``inference_mode``.
Contenders, measured interleaved, the median of --repeats reported:

  elmo       ElmoModel.forward: char CNN + both directions' LSTM stacks (cell and
             projection clipping, skip connections), <S> </S> added and removed
  elmo-lstm  only ELMo's LSTM stacks (run_in_lockstep per layer) on given token vectors
  nn.LSTM    two torch.nn.LSTM(P, D, proj_size=P, num_layers=L) stacks, forward over the
             token vectors and backward over their valid part reversed, packed sequences
             (nn.LSTM has no cell clipping, no projection clip, no skip connections)

Goal (reported, never asserted): elmo / nn.LSTM >= 0.5 (tokens/s). Also prints where
ELMo's time goes (char CNN, LSTMs, the rest) and elmo-lstm / nn.LSTM, the like-for-like
ratio of the recurrences.

    python tests/bench/bench_elmo.py [--size small] [--n 256] [--batch-size 32]
        [--threads N] [--repeats 3] [--device cpu|cuda] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence  # noqa: E402

from _common import OtherLoad, environment, prose_sentences, verdict, write_json  # noqa: E402
from lm_workbench.engine.elmo.bilm import ElmoModel  # noqa: E402
from lm_workbench.engine.elmo.characters import add_sentence_boundaries, batch_to_char_ids, token_mask  # noqa: E402
from lm_workbench.engine.elmo.config import PRESETS  # noqa: E402
from lm_workbench.engine.elmo.lstm_cell import reverse_valid, run_in_lockstep  # noqa: E402

GOAL = 0.5


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


class Baseline(nn.Module):
    """Forward and backward nn.LSTM stacks with proj_size, over packed sequences."""

    def __init__(self, p: int, d: int, layers: int):
        super().__init__()
        self.forward_lstm = nn.LSTM(p, d, num_layers=layers, proj_size=p, batch_first=True)
        self.backward_lstm = nn.LSTM(p, d, num_layers=layers, proj_size=p, batch_first=True)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        lengths = mask.sum(dim=1)
        outs = []
        for lstm, seq in ((self.forward_lstm, x), (self.backward_lstm, reverse_valid(x, lengths))):
            packed = pack_padded_sequence(seq, lengths.cpu(), batch_first=True, enforce_sorted=False)
            out, _ = lstm(packed)
            outs.append(pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])[0])
        outs[1] = reverse_valid(outs[1], lengths)
        return torch.cat(outs, dim=-1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="small", choices=sorted(PRESETS))
    ap.add_argument("--n", type=int, default=256, help="sentences")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--json")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    dev = args.device

    config = PRESETS[args.size]
    model = ElmoModel(config).eval().to(dev)
    baseline = Baseline(config.projection_dim, config.lstm_dim, config.n_layers).eval().to(dev)
    sentences = [s.split() for s in prose_sentences(args.n)]
    batches = []
    for i in range(0, len(sentences), args.batch_size):
        ids = batch_to_char_ids(sentences[i : i + args.batch_size], config.max_characters_per_token).to(dev)
        ids, mask = add_sentence_boundaries(ids, token_mask(ids))
        # token vectors for the LSTM-only contenders: the char CNN's output, computed once here
        with torch.inference_mode():
            x = model.token_encoder(ids)
        batches.append((ids, mask, x))
    n_tokens = sum(len(s) for s in sentences)
    stripped_ids = [batch_to_char_ids(sentences[i : i + args.batch_size]).to(dev)
                    for i in range(0, len(sentences), args.batch_size)]

    def run_elmo():
        for ids in stripped_ids:
            model(ids)

    def run_elmo_lstm():
        for _, mask, x in batches:
            f, b = x, x
            for index, (fl, bl) in enumerate(zip(model.forward_layers, model.backward_layers)):
                fo, bo = run_in_lockstep([fl, bl], [f, b], mask)
                f, b = (fo + f, bo + b) if index > 0 else (fo, bo)

    def run_char_cnn():
        for ids, _, _ in batches:
            model.token_encoder(ids)

    def run_baseline():
        for _, mask, x in batches:
            baseline(x, mask)

    contenders = {"elmo": run_elmo, "elmo-lstm": run_elmo_lstm, "char-cnn": run_char_cnn, "nn.LSTM": run_baseline}
    seconds: dict[str, list[float]] = {name: [] for name in contenders}
    load = OtherLoad()
    others, steal = [], []
    with torch.inference_mode():
        for fn in contenders.values():  # warm-up
            fn()
        for _ in range(args.repeats):
            for name, fn in contenders.items():
                load.start()
                _sync(dev)
                t0 = time.perf_counter()
                fn()
                _sync(dev)
                seconds[name].append(time.perf_counter() - t0)
                others.append(load.stop())
                steal.append(load.steal)

    median = {name: statistics.median(s) for name, s in seconds.items()}
    tps = {name: n_tokens / median[name] for name in contenders}
    ratio = tps["elmo"] / tps["nn.LSTM"]
    lstm_ratio = tps["elmo-lstm"] / tps["nn.LSTM"]
    print(f"ELMo size {args.size!r}: cell {config.lstm_dim}, projection {config.projection_dim}, "
          f"{config.n_layers} layers, {config.n_filters} CNN filters; {len(sentences)} sentences, "
          f"{n_tokens} tokens, batch {args.batch_size}, {args.threads} threads, device {dev}")
    print(f"{'contender':<10} {'seconds':>8} {'tokens/s':>10}")
    for name in contenders:
        print(f"{name:<10} {median[name]:8.3f} {tps[name]:10.0f}")
    rest = median["elmo"] - median["char-cnn"] - median["elmo-lstm"]
    print(f"where ELMo's time goes: char CNN {median['char-cnn'] / median['elmo']:.0%}, "
          f"LSTMs {median['elmo-lstm'] / median['elmo']:.0%}, rest {max(rest, 0) / median['elmo']:.0%}")
    print(f"elmo / nn.LSTM = {ratio:.2f} (goal >= {GOAL}: {verdict(ratio >= GOAL)}); "
          f"elmo-lstm / nn.LSTM = {lstm_ratio:.2f}")
    known = [o for o in others if o is not None]
    if known:
        stolen = [s for s in steal if s is not None]
        print(f"other processes: {statistics.median(known):.2f} CPUs; steal {statistics.median(stolen):.2f}")
    write_json(args.json, {
        "settings": vars(args), "environment": environment(), "tokens": n_tokens,
        "seconds": seconds, "tokens_per_s": tps, "ratio": ratio, "lstm_ratio": lstm_ratio,
        "goal": GOAL, "others": others, "steal": steal,
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
