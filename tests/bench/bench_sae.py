"""SAE benchmarks (issue 47): the workbench's SAE training step against a plain PyTorch reference loop of the same
kind, width and batch on the same activations (goal: within 10 % of its steps/s), and the top contexts of every
feature of a 2,048-wide SAE over a corpus (goal: 100k tokens in <= 2 minutes on 2 cores; the course GPT-2 when
it is built, else the default MiniLM). Plain script, not a test: prints a table; ``--json PATH`` writes it.

    .venv/bin/python tests/bench/bench_sae.py --steps 200 --tokens 100000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench._common import environment, prose_sentences, verdict, write_json  # noqa: E402


def reference_topk_loop(x: torch.Tensor, d_sae: int, k: int, steps: int, batch: int, lr: float) -> float:
    """A plain TopK SAE loop (the same maths as the engine's, written out): steps/s."""
    d = x.shape[1]
    gen = torch.Generator().manual_seed(0)
    w_dec = torch.randn(d_sae, d, generator=gen)
    w_dec = (w_dec / w_dec.norm(dim=1, keepdim=True)).requires_grad_()
    w_enc = w_dec.detach().t().clone().requires_grad_()
    b_enc, b_dec = torch.zeros(d_sae, requires_grad=True), torch.zeros(d, requires_grad=True)
    opt = torch.optim.Adam([w_dec, w_enc, b_enc, b_dec], lr=lr)
    start = time.perf_counter()
    for step in range(steps):
        xb = x[(step * batch) % (len(x) - batch):][:batch]
        pre = (xb - b_dec) @ w_enc + b_enc
        values, index = pre.topk(k, dim=-1)
        f = torch.zeros_like(pre).scatter(-1, index, torch.relu(values))
        loss = ((f @ w_dec + b_dec - xb) ** 2).sum(-1).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        with torch.no_grad():
            w_dec.grad -= (w_dec.grad * w_dec).sum(1, keepdim=True) * w_dec
        opt.step()
        with torch.no_grad():
            w_dec /= w_dec.norm(dim=1, keepdim=True)
            (f > 0).any(0)
    return steps / (time.perf_counter() - start)


def engine_loop(x: torch.Tensor, d_sae: int, k: int, steps: int, batch: int, lr: float) -> float:
    from lm_workbench.engine.sae.kinds import SparseAutoencoder
    from lm_workbench.engine.sae.train import sae_step

    sae = SparseAutoencoder("topk", x.shape[1], d_sae, k)
    opt = torch.optim.Adam(sae.parameters(), lr=lr)
    last = torch.zeros(d_sae, dtype=torch.long)
    start = time.perf_counter()
    for step in range(steps):
        xb = x[(step * batch) % (len(x) - batch):][:batch]
        _, fired = sae_step(sae, opt, xb)
        last[fired] = step
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--width", type=int, default=384)
    parser.add_argument("--expansion", type=int, default=8)
    parser.add_argument("--k", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=100_000, help="corpus tokens for the top contexts")
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.randn(8192, args.width) * 3
    d_sae = args.width * args.expansion
    engine, reference = [], []
    for _ in range(args.repeats):  # interleaved, warmed by the first round
        reference.append(reference_topk_loop(x, d_sae, args.k, args.steps, args.batch, 1e-3))
        engine.append(engine_loop(x, d_sae, args.k, args.steps, args.batch, 1e-3))
    e, r = statistics.median(engine), statistics.median(reference)
    print(f"TopK SAE {args.width} -> {d_sae}, batch {args.batch}: engine {e:.1f} steps/s, plain loop {r:.1f} "
          f"steps/s, ratio {e / r:.3f} ({verdict(e >= 0.9 * r)}: within 10 %)")

    from lm_workbench.engine.anatomy.points import resolve
    from lm_workbench.engine.progress import drive
    from lm_workbench.engine.sae.features import top_contexts
    from lm_workbench.engine.sae.kinds import SparseAutoencoder
    from lm_workbench.models.loader import load_model

    loaded = load_model(args.model, device="cpu")
    layers = loaded.info.layers
    site = resolve(loaded, f"blocks.{layers // 2}.hook_resid_post")
    sae = SparseAutoencoder("topk", loaded.info.hidden_size, 2048, 32)
    lines = prose_sentences(20000, 5, 60)
    start = time.perf_counter()
    found = drive(top_contexts(loaded, site, sae, lines * 10, n=10, max_tokens=args.tokens))
    took = time.perf_counter() - start
    print(f"top contexts of 2,048 features over {found.tokens} tokens of {args.model}: {took:.1f} s "
          f"({verdict(took * 100_000 / max(found.tokens, 1) <= 120)}: 100k tokens in <= 120 s)")
    write_json(args.json, {"engine_steps_per_s": e, "reference_steps_per_s": r, "ratio": e / r,
                           "top_contexts_s": took, "top_contexts_tokens": found.tokens, "settings": vars(args),
                           "environment": environment()})


if __name__ == "__main__":
    main()
