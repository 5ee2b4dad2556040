"""Training throughput: the workbench's loop against transformers' ``Trainer``.

Both train the same randomly initialised GPT-2 (from the same config and
seed) on the same packed blocks of the Python documentation (a byte-level BPE
tokenizer trained by ``engine.pretrain``), with the same batch size, learning
rate, warm-up, weight decay, clipping, precision and thread count:

  engine   ``engine.training.train`` driving the ``clm`` objective plugin
           (its ``make_batch`` and ``loss``), with the loop's own evaluation
           and checkpoint turned down to once at the start and end
  trainer  ``transformers.Trainer`` on a torch Dataset of the same blocks,
           labels = input ids (the model computes its own loss), no logging,
           no saving, no evaluation

Each contender runs ``--warmup + --steps`` optimizer steps; only the last
``--steps`` are timed (a timestamp at the end of every step: the loop's
StepMetrics events, a ``TrainerCallback.on_step_end`` for the Trainer), so
start-up, the first evaluation and the final checkpoint are left out.
Tokens/s = steps x batch x block length / time. The contenders alternate
``--repeats`` times; the median is reported. Goal (reported, never asserted):
engine / trainer >= 1.0 (aim 1.3).

With ``--mfu`` on a CUDA machine it also trains a BERT-base-size MLM
(L12/H768, bf16) with the loop and prints the model-FLOPs utilisation:
MFU = tokens/s x 6 x N x (1 + T / (6 x H)) ... see ``model_flops_per_token``
for the exact formula, against the device's dense bf16 peak (a table below;
``--peak-tflops`` overrides it). Goal: >= 40%.

    .venv/bin/python tests/bench/bench_training.py [--steps 40] [--warmup 10] [--batch 16]
        [--seq-len 128] [--preset tiny] [--threads N] [--repeats 3] [--json PATH] [--mfu]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from _common import OtherLoad, environment, verdict, write_json  # noqa: E402

# Dense bf16 tensor-core peaks (TFLOP/s, no sparsity), from the vendors' data sheets.
PEAK_BF16_TFLOPS = {
    "H100 SXM": 989.0, "H100 PCIe": 756.0, "H100 NVL": 835.0, "H100": 989.0, "H200": 989.0,
    "A100": 312.0, "L40S": 362.0, "L4": 121.0, "A10": 125.0, "RTX 4090": 165.0,
}


def prepare_data(root: Path, seq_len: int):
    """A GPT-2 tokenizer and packed blocks of the Python docs, through the workbench's own pipeline."""
    from engine.pretrain.corpus import CorpusSpec, corpus_lines, python_docs_corpus
    from engine.pretrain.dataset import prepare_dataset
    from engine.pretrain.tokenizer_training import train_tokenizer
    from engine.progress import run_to_completion

    corpus = python_docs_corpus(root)
    tokenizer = train_tokenizer("gpt2", corpus_lines([str(corpus)]), root / "tokenizer", vocab_size=8000)
    data = run_to_completion(prepare_dataset(CorpusSpec([str(corpus)]), tokenizer, "gpt2", seq_len, root / "data"))
    blocks = [data.train[i] for i in range(len(data.train))]
    blocks = [b for b in blocks if len(b) == seq_len]  # full blocks only: no padding in either contender
    return tokenizer, blocks


def make_model(tokenizer, preset: str, seq_len: int):
    import torch

    from engine.pretrain.architectures import ArchitectureSpec, build_config, build_model

    config = build_config(ArchitectureSpec("gpt2", preset, max_positions=seq_len), tokenizer)
    torch.manual_seed(0)
    return build_model(config, "causal-lm")


def step_times_engine(tokenizer, blocks, args) -> list[float]:
    import numpy as np

    from engine.training import train
    from engine.training.config import TrainingConfig
    from engine.training.events import StepMetrics
    from engine.training.task import TrainingTask
    from engine.plugin_api import LossContext
    from plugins.objectives.clm import CausalLM

    objective = CausalLM()
    config = objective.default_config()
    model = make_model(tokenizer, args.preset, args.seq_len)

    def make_batch(indices: list[int], rng: np.random.Generator):
        return objective.make_batch([blocks[i] for i in indices], tokenizer, rng, config)

    validation = [make_batch(list(range(args.batch)), np.random.default_rng(0))]
    task = TrainingTask(
        model=model, heads={}, train_size=len(blocks), make_batch=make_batch,
        loss=lambda m, h, b: objective.loss(m, b, LossContext(config, heads=h)), validation_batches=lambda: validation)
    total = args.warmup + args.steps
    training = TrainingConfig(
        steps=total, batch_size=args.batch, lr=5e-4, weight_decay=0.01, warmup_steps=args.warmup,
        schedule="linear", max_grad_norm=1.0, eval_every=10 * total, eval_batches=1, log_every=1,
        precision="fp32" if args.device == "cpu" else "auto", device=args.device, threads=args.threads, seed=0)
    stamps: list[float] = []
    with tempfile.TemporaryDirectory() as ckpt:
        gen = train(task, training, checkpoint_dir=Path(ckpt))
        try:
            while True:
                event = next(gen)
                if isinstance(event, StepMetrics):
                    stamps.append(time.perf_counter())
        except StopIteration:
            pass
    return stamps


def step_times_trainer(tokenizer, blocks, args) -> list[float]:
    import torch
    from transformers import Trainer, TrainerCallback, TrainingArguments

    class Blocks(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return len(blocks)

        def __getitem__(self, i: int) -> dict:
            ids = torch.tensor(blocks[i], dtype=torch.long)
            return {"input_ids": ids, "labels": ids}

    stamps: list[float] = []

    class Stamp(TrainerCallback):
        def on_step_end(self, *_args, **_kwargs):
            stamps.append(time.perf_counter())

    model = make_model(tokenizer, args.preset, args.seq_len)
    with tempfile.TemporaryDirectory() as out:
        targs = TrainingArguments(
            output_dir=out, per_device_train_batch_size=args.batch, max_steps=args.warmup + args.steps,
            learning_rate=5e-4, weight_decay=0.01, warmup_steps=args.warmup, lr_scheduler_type="linear",
            max_grad_norm=1.0, logging_strategy="no", save_strategy="no", eval_strategy="no", report_to=[],
            use_cpu=args.device == "cpu", bf16=args.device != "cpu", dataloader_num_workers=0, seed=0,
            disable_tqdm=True)
        Trainer(model=model, args=targs, train_dataset=Blocks(), callbacks=[Stamp()]).train()
    return stamps


def tokens_per_s(stamps: list[float], args) -> float:
    timed = stamps[args.warmup:]  # stamps[w - 1] ends the warm-up; the next `steps` steps are timed
    seconds = timed[-1] - stamps[args.warmup - 1]
    return len(timed) * args.batch * args.seq_len / seconds


def model_flops_per_token(n_params: int, layers: int, hidden: int, seq_len: int) -> float:
    """Training FLOPs per token: 6N for the weight matmuls (forward 2N, backward 4N) plus attention's
    score and value matmuls, 12 x L x H x T (Kaplan et al. 2020; PaLM's MFU definition)."""
    return 6.0 * n_params + 12.0 * layers * hidden * seq_len


def run_mfu(args, result: dict) -> None:
    import torch

    if not torch.cuda.is_available():
        print("--mfu needs CUDA; skipped")
        return
    from transformers import BertConfig, BertForMaskedLM

    name = torch.cuda.get_device_name(0)
    peak = args.peak_tflops or next((v for k, v in PEAK_BF16_TFLOPS.items() if k in name), None)
    seq, batch, steps = 512, 32, 30
    config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                        intermediate_size=3072, max_position_embeddings=seq)
    model = BertForMaskedLM(config).cuda()
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    from engine.training.optimizer import build_adamw

    opt = build_adamw([model], lr=1e-4, weight_decay=0.01, device=torch.device("cuda"))
    ids = torch.randint(5, 30000, (batch, seq), device="cuda")
    labels = ids.masked_fill(torch.rand(ids.shape, device="cuda") > 0.15, -100)
    times = []
    for step in range(steps + 5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        if step >= 5:
            times.append(time.perf_counter() - t0)
    tps = batch * seq / statistics.median(times)
    flops = model_flops_per_token(n_params, 12, 768, seq) * tps
    mfu = None if peak is None else flops / (peak * 1e12)
    print(f"MFU  {name}: {tps:,.0f} tokens/s, {flops / 1e12:.1f} TFLOP/s achieved, peak {peak} TFLOP/s bf16 "
          f"-> MFU {'?' if mfu is None else f'{100 * mfu:.1f}%'} (goal >= 40%: "
          f"{'?' if mfu is None else verdict(mfu >= 0.40)})")
    print("     formula: MFU = tokens/s x (6 N + 12 L H T) / peak, N = trainable parameters")
    result["mfu"] = {"device": name, "tokens_per_s": tps, "peak_tflops": peak, "mfu": mfu, "params": n_params}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--preset", default="tiny")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mfu", action="store_true")
    parser.add_argument("--peak-tflops", type=float, default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    args.threads = torch.get_num_threads()
    result: dict = {"settings": vars(args).copy(), "environment": environment()}
    with tempfile.TemporaryDirectory() as root:
        tokenizer, blocks = prepare_data(Path(root), args.seq_len)
        print(f"{len(blocks)} blocks of {args.seq_len} tokens; GPT-2 {args.preset}; batch {args.batch}; "
              f"{args.threads} threads; {args.steps} timed steps after {args.warmup}")
        rates: dict[str, list[float]] = {"engine": [], "trainer": []}
        load = OtherLoad()
        load.start()
        for r in range(args.repeats):
            for name, fn in (("engine", step_times_engine), ("trainer", step_times_trainer)):
                rates[name].append(tokens_per_s(fn(tokenizer, blocks, args), args))
                print(f"  repeat {r + 1} {name:8s} {rates[name][-1]:10,.0f} tokens/s")
        others = load.stop()
    med = {k: statistics.median(v) for k, v in rates.items()}
    ratio = med["engine"] / med["trainer"]
    print(f"engine {med['engine']:,.0f} tokens/s, trainer {med['trainer']:,.0f} tokens/s -> ratio {ratio:.2f} "
          f"(goal >= 1.0: {verdict(ratio >= 1.0)}; aim 1.3)   other load {others} CPUs, steal {load.steal}")
    result.update(rates=rates, median=med, ratio=ratio, others=others, steal=load.steal)
    if args.mfu:
        run_mfu(args, result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
