"""Training throughput: the workbench's loop (with its speed levers) against transformers' ``Trainer``, fairly.

Cases (``--cases``): ``clm`` a GPT-2 on packed blocks of the Python docs (byte-level BPE, 8k) in fp32;
``clm-bf16`` the same in bf16 autocast, run only where the engine would use bf16 (a CPU with native
bf16: AVX512-BF16 or AMX; or CUDA); ``mlm`` a BERT (WordPiece, 8k) with BERT's 15% 80/10/10 masking.

Contenders, each in its own fresh process (``--child``), alternating in order round by round,
``--repeats`` rounds, medians reported:

  engine          ``lm_workbench.engine.training.train`` with the objective plugin (``clm`` / ``mlm``) and the default
                  levers: chunked LM head + loss and fused gelu_new (CLM), sparse MLM head (MLM), freed memory
                  reused
  engine-plain    the same loop with every lever off (the loop as it was before issue 37)
  trainer         ``transformers.Trainer`` with the SAME allocator setting as the engine (the engine's
                  ``reuse_freed_memory`` applied to its process): the fair comparison, and ``ratio``
  trainer-glibc   the Trainer with glibc's default allocator settings (what a Trainer user gets)
  engine-compiled / trainer-compiled (``--compile``): ``compile=on`` / ``torch_compile=True``

Same for every contender: model config and initial weights (one seed), dropout 0 (so the losses can be
compared step by step), the same blocks in the same order (the Trainer reads the engine's sampler order
through a sequential sampler; MLM batches are masked by the objective with the engine loop's generator),
full blocks only (every token is a non-pad token and counts), batch, AdamW (fused), learning rate, the
engine's warm-up + linear schedule (a LambdaLR in the Trainer: transformers' own schedule starts at lr 0),
weight decay (not on biases and norms), clipping at 1.0, precision, threads, and the loss as the mean over
the scored positions (the Trainer's default divides a causal LM's loss by the unshifted label count, 1/128
less; it is given the mean here so the losses match). Only the last ``--steps``
steps are timed (a timestamp at the end of each step). The first 20 losses of each contender are compared
with the Trainer's: they must agree within float rounding. Page faults per timed step come from
``resource.getrusage``. Goals (reported, never asserted): engine / trainer >= 1.3 on ``clm`` (fp32), and
as high as the sparse head takes ``mlm``.

With ``--mfu`` on CUDA: a BERT-base MLM (L12/H768, 30522 tokens, or padded to a multiple of ``--pad-vocab``)
in bf16, batch ``--mfu-batch`` x ``--mfu-seq`` (default 64 x 512), the vocabulary head only at the masked
positions (a fixed 15% per row, so no shape depends on data), no host sync inside the timed steps; MFU by
the 6N formula and by the FLOPs actually computed (``mfu_flops``). Goal >= 40%.

    .venv/bin/python tests/bench/bench_training.py [--cases clm,clm-bf16,mlm] [--steps 40] [--warmup 10]
        [--batch 16] [--seq-len 128] [--preset tiny] [--threads N] [--repeats 3] [--compile] [--json PATH]
        [--mfu [--mfu-batch 64] [--mfu-seq 512] [--pad-vocab 64] [--peak-tflops T]]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from _common import OtherLoad, environment, verdict, write_json  # noqa: E402

FAMILY = {"clm": "gpt2", "clm-bf16": "gpt2", "mlm": "bert"}
COMPARED_LOSSES = 20
SEED = 0


# -- data (in the parent, once) ------------------------------------------------------------------------------------

def prepare_data(root: Path, family: str, seq_len: int) -> Path:
    """A tokenizer and full packed blocks of the Python docs, through the workbench's pipeline; saved in ``root``."""
    import numpy as np

    from lm_workbench.engine.pretrain.corpus import CorpusSpec, corpus_lines, python_docs_corpus
    from lm_workbench.engine.pretrain.dataset import prepare_dataset
    from lm_workbench.engine.pretrain.tokenizer_training import train_tokenizer
    from lm_workbench.engine.progress import run_to_completion

    folder = root / family
    corpus = python_docs_corpus(root)
    tokenizer = train_tokenizer(family, corpus_lines([str(corpus)]), folder / "tokenizer", vocab_size=8000)
    data = run_to_completion(prepare_dataset(CorpusSpec([str(corpus)]), tokenizer, family, seq_len, folder / "data",
                                             keep_documents=False))
    blocks = [list(data.train[i]) for i in range(len(data.train))]
    blocks = [b for b in blocks if len(b) == seq_len]  # full blocks only: no padding anywhere
    np.save(folder / "blocks.npy", np.asarray(blocks, dtype=np.int64))
    return folder


# -- one contender, in a child process ----------------------------------------------------------------------------

def load(folder: Path):
    import numpy as np
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder / "tokenizer"), np.load(folder / "blocks.npy")


def make_model(tokenizer, family: str, preset: str, seq_len: int):
    import torch

    from lm_workbench.engine.pretrain.architectures import ArchitectureSpec, build_config, build_model

    config = build_config(ArchitectureSpec(family, preset, max_positions=seq_len), tokenizer)
    for name in ("resid_pdrop", "embd_pdrop", "attn_pdrop", "hidden_dropout_prob", "attention_probs_dropout_prob"):
        if hasattr(config, name):
            setattr(config, name, 0.0)
    torch.manual_seed(SEED)
    return build_model(config, "causal-lm" if family == "gpt2" else "mlm")


def objective_of(case: str):
    from lm_workbench.plugins.objectives.clm import CausalLM
    from lm_workbench.plugins.objectives.mlm import MaskedLM

    objective = CausalLM() if FAMILY[case] == "gpt2" else MaskedLM()
    return objective, objective.default_config()


def engine_order(n: int, batch: int, steps: int) -> list[list[int]]:
    """The example indices of each step as the engine's loop draws them (its default sampler, seed 0)."""
    from lm_workbench.engine.training.sampler import SeededSampler

    sampler = SeededSampler(n, batch, SEED)
    return [sampler.next_indices() for _ in range(steps)]


def run_engine(job: dict, tokenizer, blocks) -> dict:
    import numpy as np

    from lm_workbench.engine.plugin_api import LossContext
    from lm_workbench.engine.training import train
    from lm_workbench.engine.training.allocator import page_faults
    from lm_workbench.engine.training.config import TrainingConfig
    from lm_workbench.engine.training.events import StepMetrics
    from lm_workbench.engine.training.task import TrainingTask

    objective, config = objective_of(job["case"])
    model = make_model(tokenizer, FAMILY[job["case"]], job["preset"], job["seq_len"])

    def make_batch(indices, rng):
        return objective.make_batch([blocks[i].tolist() for i in indices], tokenizer, rng, config)

    validation = [make_batch(list(range(job["batch"])), np.random.default_rng(0))]
    task = TrainingTask(model=model, heads={}, train_size=len(blocks), make_batch=make_batch,
                        loss=lambda m, h, b: objective.loss(m, b, LossContext(config, heads=h)),
                        validation_batches=lambda: validation)
    plain = job["contender"] == "engine-plain"
    total = job["warmup"] + job["steps"]
    training = TrainingConfig(
        steps=total, batch_size=job["batch"], lr=5e-4, weight_decay=0.01, warmup_steps=job["warmup"],
        schedule="linear", max_grad_norm=1.0, eval_every=10 * total, eval_batches=1, log_every=1,
        precision=job["precision"], device=job["device"], threads=job["threads"], seed=SEED,
        compile="on" if job["contender"] == "engine-compiled" else "off",
        chunked_loss=not plain, sparse_mlm_head=not plain, fused_gelu=not plain, reuse_memory=not plain)
    stamps, cpu, faults = [], [], []
    with tempfile.TemporaryDirectory() as ckpt:
        gen = train(task, training, checkpoint_dir=Path(ckpt))
        try:
            while True:
                if isinstance(next(gen), StepMetrics):
                    stamps.append(time.perf_counter())
                    cpu.append(time.process_time())
                    faults.append(page_faults())
        except StopIteration as stop:
            result = stop.value
    return {"stamps": stamps, "cpu": cpu, "faults": faults, "losses": result.losses[:COMPARED_LOSSES],
            "speed": result.speed,
            "precision": result.precision}


def run_trainer(job: dict, tokenizer, blocks) -> dict:
    import contextlib

    import numpy as np
    import torch
    from torch.optim.lr_scheduler import LambdaLR
    from transformers import Trainer, TrainerCallback, TrainingArguments

    from lm_workbench.engine.training.allocator import page_faults, reuse_freed_memory
    from lm_workbench.engine.training.schedule import lr_factor

    total = job["warmup"] + job["steps"]
    order = engine_order(len(blocks), job["batch"], total)
    objective, config = objective_of(job["case"])
    rng = np.random.default_rng([SEED, 0])  # the engine loop's corruption generator
    rows: list[dict] = []
    for indices in order:  # the engine's batches, example by example, in its order
        batch = objective.make_batch([blocks[i].tolist() for i in indices], tokenizer, rng, config)
        for r in range(len(indices)):
            rows.append({"input_ids": batch.inputs["input_ids"][r], "attention_mask": batch.inputs["attention_mask"][r],
                         "labels": batch.labels[r]})

    class Rows(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return len(rows)

        def __getitem__(self, i: int) -> dict:
            return rows[i]

    stamps, cpu, faults, losses = [], [], [], []

    class Stamp(TrainerCallback):
        def on_step_end(self, *_args, **_kwargs):
            stamps.append(time.perf_counter())
            cpu.append(time.process_time())
            faults.append(page_faults())

    class SameOrderTrainer(Trainer):
        def _get_train_sampler(self, *args, **kwargs):
            return torch.utils.data.SequentialSampler(self.train_dataset)

        def create_scheduler(self, num_training_steps, optimizer=None):
            if self.lr_scheduler is None:  # the engine's schedule: the first step already learns
                self.lr_scheduler = LambdaLR(optimizer or self.optimizer, lambda s: lr_factor(
                    s, total=total, warmup=job["warmup"], kind="linear"))
            return self.lr_scheduler

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            # The mean over the scored positions, as the engine's loss: the Trainer's own count (the unshifted
            # labels) divides a causal LM's summed loss by 128 where 127 positions per row are scored.
            out = super().compute_loss(model, inputs, return_outputs=return_outputs)
            if len(losses) < COMPARED_LOSSES:
                losses.append((out[0] if isinstance(out, tuple) else out).detach())
            return out

    model = make_model(tokenizer, FAMILY[job["case"]], job["preset"], job["seq_len"])
    bf16 = job["precision"] == "bf16"
    reuse = contextlib.nullcontext() if job["contender"] == "trainer-glibc" else reuse_freed_memory()
    with tempfile.TemporaryDirectory() as out, reuse:
        targs = TrainingArguments(
            output_dir=out, per_device_train_batch_size=job["batch"], max_steps=total, learning_rate=5e-4,
            weight_decay=0.01, warmup_steps=job["warmup"], max_grad_norm=1.0, logging_strategy="no",
            save_strategy="no", eval_strategy="no", report_to=[], use_cpu=job["device"] == "cpu", bf16=bf16,
            dataloader_num_workers=0, seed=SEED, disable_tqdm=True, optim="adamw_torch_fused",
            torch_compile=job["contender"] == "trainer-compiled")
        SameOrderTrainer(model=model, args=targs, train_dataset=Rows(), callbacks=[Stamp()]).train()
    return {"stamps": stamps, "cpu": cpu, "faults": faults, "losses": [float(x) for x in losses],
            "precision": "bf16" if bf16 else "fp32"}


def child(spec: str) -> None:
    job = json.loads(spec)
    import torch

    torch.set_num_threads(job["threads"])
    tokenizer, blocks = load(Path(job["folder"]))
    fn = run_trainer if job["contender"].startswith("trainer") else run_engine
    out = fn(job, tokenizer, blocks)
    Path(job["out"]).write_text(json.dumps(out))


# -- the parent: rounds, medians, report ----------------------------------------------------------------------------

def contenders(case: str, args) -> list[str]:
    if case == "clm-bf16":
        return ["engine", "trainer"]
    names = ["engine", "engine-plain", "trainer"] + (["trainer-glibc"] if case == "clm" else [])
    if args.compile:
        names += ["engine-compiled", "trainer-compiled"]
    return names


def bf16_used(device: str) -> tuple[bool, str]:
    """Whether the engine trains in bf16 when asked, here (what ``choose_precision`` decides)."""
    import torch

    from lm_workbench.engine.training.precision import choose_precision

    plan = choose_precision("bf16", torch.device(device))
    return plan.name == "bf16", plan.note


def rate(out: dict, args) -> tuple[float, float, float]:
    """(tokens/s over the timed steps, tokens per CPU-second of the process, page faults per timed step).

    Tokens per CPU-second (user + system time, page faults' kernel time included) is what survives a machine
    shared with other work: wall time there measures the other processes as much as this one."""
    stamps, cpu, faults = out["stamps"], out["cpu"], out["faults"]
    w = args.warmup - 1
    steps = len(stamps) - args.warmup
    tokens = steps * args.batch * args.seq_len
    return tokens / (stamps[-1] - stamps[w]), tokens / (cpu[-1] - cpu[w]), (faults[-1] - faults[w]) / steps


def run_child(job: dict) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        job["out"] = f.name
    try:
        subprocess.run([sys.executable, __file__, "--child", json.dumps(job)], check=True)
        return json.loads(Path(job["out"]).read_text())
    finally:
        Path(job["out"]).unlink(missing_ok=True)


def bench_cases(args, root: Path, result: dict) -> None:
    cases = [c for c in args.cases.split(",") if c]
    if "clm-bf16" in cases:
        used, note = bf16_used(args.device)
        if not used:
            print(f"clm-bf16 skipped: {note}")
            cases.remove("clm-bf16")
    folders = {family: prepare_data(root, family, args.seq_len) for family in sorted({FAMILY[c] for c in cases})}
    runs: dict[str, dict[str, list]] = {c: {n: [] for n in contenders(c, args)} for c in cases}
    for r in range(args.repeats):
        for case in cases:
            names = contenders(case, args)
            for name in (names if r % 2 == 0 else names[::-1]):  # alternate the order round by round
                precision = "bf16" if case == "clm-bf16" else ("fp32" if args.device == "cpu" else "auto")
                job = {"case": case, "contender": name, "folder": str(folders[FAMILY[case]]), "preset": args.preset,
                       "seq_len": args.seq_len, "batch": args.batch, "steps": args.steps, "warmup": args.warmup,
                       "threads": args.threads, "device": args.device, "precision": precision}
                out = run_child(job)
                tps, tpc, faults = rate(out, args)
                runs[case][name].append({"tokens_per_s": tps, "tokens_per_cpu_s": tpc, "faults_per_step": faults,
                                         "losses": out["losses"], "speed": out.get("speed"),
                                         "precision": out["precision"]})
                print(f"  round {r + 1} {case:8s} {name:16s} {tps:10,.0f} tokens/s {tpc:10,.0f} tokens/CPU-s "
                      f"{faults:9,.0f} page faults/step", flush=True)
    result["cases"] = {case: summarise(case, runs[case]) for case in cases}


def summarise(case: str, runs: dict[str, list]) -> dict:
    med = {n: statistics.median(r["tokens_per_s"] for r in rs) for n, rs in runs.items()}
    cpu = {n: statistics.median(r["tokens_per_cpu_s"] for r in rs) for n, rs in runs.items()}
    faults = {n: statistics.median(r["faults_per_step"] for r in rs) for n, rs in runs.items()}
    reference = runs["trainer"][0]["losses"]
    loss_diff = {n: max(abs(a - b) for a, b in zip(rs[0]["losses"], reference)) for n, rs in runs.items()}
    out = {"median_tokens_per_s": med, "median_tokens_per_cpu_s": cpu, "page_faults_per_step": faults, "rates": {
        n: [r["tokens_per_s"] for r in rs] for n, rs in runs.items()}, "first_losses": {
        n: rs[0]["losses"] for n, rs in runs.items()}, "max_loss_difference_vs_trainer": loss_diff,
        "engine_speed": runs["engine"][0]["speed"], "precision": runs["engine"][0]["precision"],
        "speeds": {n: rs[0]["speed"] for n, rs in runs.items() if rs[0].get("speed")},  # compile_s of engine-compiled
        "ratio": med["engine"] / med["trainer"], "ratio_cpu": cpu["engine"] / cpu["trainer"]}
    if "engine-plain" in med:
        out["ratio_plain_vs_trainer"] = med["engine-plain"] / med["trainer"]
        out["ratio_cpu_plain_vs_trainer"] = cpu["engine-plain"] / cpu["trainer"]
    if "trainer-glibc" in med:
        out["ratio_vs_trainer_glibc"] = med["engine"] / med["trainer-glibc"]
        out["ratio_cpu_vs_trainer_glibc"] = cpu["engine"] / cpu["trainer-glibc"]
    if "engine-compiled" in med:
        out["ratio_compiled"] = med["engine-compiled"] / med["trainer-compiled"]
    return out


def report(result: dict) -> None:
    for case, s in result.get("cases", {}).items():
        print(f"\n{case} ({s['precision']}): median tokens/s, tokens per CPU-second, page faults per step, "
              f"largest |loss - trainer's| over the first {COMPARED_LOSSES} steps")
        for name, tps in s["median_tokens_per_s"].items():
            print(f"  {name:16s} {tps:10,.0f} {s['median_tokens_per_cpu_s'][name]:10,.0f}  "
                  f"{s['page_faults_per_step'][name]:9,.0f}  {s['max_loss_difference_vs_trainer'][name]:.2e}")
        goal = " (goal >= 1.3: " + verdict(s["ratio"] >= 1.3) + ")" if case == "clm" else ""
        print(f"  engine / trainer {s['ratio']:.2f}{goal}, by CPU time {s['ratio_cpu']:.2f}; "
              f"levers that ran: {s['engine_speed']}")
        if "ratio_plain_vs_trainer" in s:
            print(f"  engine without levers / trainer {s['ratio_plain_vs_trainer']:.2f} "
                  f"(CPU time {s['ratio_cpu_plain_vs_trainer']:.2f})")
        if "ratio_vs_trainer_glibc" in s:
            print(f"  engine / trainer with glibc defaults {s['ratio_vs_trainer_glibc']:.2f} "
                  f"(CPU time {s['ratio_cpu_vs_trainer_glibc']:.2f})")


# -- MFU on a GPU ------------------------------------------------------------------------------------------------

# Dense bf16 tensor-core peaks (TFLOP/s, no sparsity), from the vendors' data sheets.
PEAK_BF16_TFLOPS = {
    "H100 SXM": 989.0, "H100 PCIe": 756.0, "H100 NVL": 835.0, "H100": 989.0, "H200": 989.0,
    "A100": 312.0, "L40S": 362.0, "L4": 121.0, "A10": 125.0, "RTX 4090": 165.0,
}


def model_flops_per_token(n_params: int, layers: int, hidden: int, seq_len: int) -> float:
    """Training FLOPs per token by the 6N formula: 6N for the weight matmuls (forward 2N, backward 4N) plus
    attention's score and value matmuls, 12 x L x H x T (Kaplan et al. 2020; PaLM's MFU definition)."""
    return 6.0 * n_params + 12.0 * layers * hidden * seq_len


def computed_flops_per_token(layers: int, hidden: int, ffn: int, seq_len: int, vocab: int, head_share: float) -> float:
    """Training FLOPs per token actually computed: 3 x forward. Per layer the Q, K, V and output projections
    (8 H^2) and the feed-forward (4 H F), plus attention (4 T H); the MLM head (transform H^2 and decoder H V,
    2 FLOPs per multiply-add) only at the ``head_share`` of the positions that are masked."""
    body = layers * (8 * hidden * hidden + 4 * hidden * ffn + 4 * seq_len * hidden)
    head = head_share * (2 * hidden * hidden + 2 * hidden * vocab)
    return 3.0 * (body + head)


def run_mfu(args, result: dict) -> None:
    """BERT-base MLM steps on CUDA; ``--mfu-dry-run``: the same code on the CPU with a 2-layer, 128-wide BERT."""
    import torch

    dry = args.mfu_dry_run
    if not dry and not torch.cuda.is_available():
        print("--mfu needs CUDA; skipped")
        return
    from transformers import BertConfig, BertForMaskedLM

    from lm_workbench.engine.training.optimizer import build_adamw

    device = "cpu" if dry else "cuda"
    name = "CPU (dry run)" if dry else torch.cuda.get_device_name(0)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    peak = args.peak_tflops or next((v for k, v in PEAK_BF16_TFLOPS.items() if k in name), None)
    batch, seq, steps, warmup = (4, 64, 3, 1) if dry else (args.mfu_batch, args.mfu_seq, 30, 5)
    layers, hidden, ffn, heads = (2, 128, 512, 2) if dry else (12, 768, 3072, 12)
    vocab = 30522
    if args.pad_vocab:
        vocab = -(-vocab // args.pad_vocab) * args.pad_vocab
    config = BertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                        intermediate_size=ffn, max_position_embeddings=seq)
    torch.manual_seed(SEED)
    model = BertForMaskedLM(config).to(device).train()
    if args.compile:
        model.bert.compile()
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    opt = build_adamw([model], lr=1e-4, weight_decay=0.01, device=torch.device(device))
    masked = max(1, round(0.15 * seq))  # the same count in every row: shapes never depend on the data

    def step() -> torch.Tensor:
        ids = torch.randint(5, 30000, (batch, seq), device=device)
        cols = torch.rand(batch, seq, device=device).topk(masked, dim=1).indices  # [B, masked]
        rows = torch.arange(batch, device=device)[:, None].expand_as(cols)
        labels = ids[rows, cols]
        ids[rows, cols] = 103  # [MASK] at the predicted positions
        with torch.autocast(device, dtype=torch.bfloat16):
            hidden = model.bert(input_ids=ids)[0]
            logits = model.cls.predictions(hidden[rows, cols])  # the head at the masked positions only
        loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, vocab), labels.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss.detach()

    for _ in range(warmup):
        step()
    sync()
    start = time.perf_counter()
    losses = [step() for _ in range(steps)]  # no host sync inside: the losses stay on the device
    sync()
    seconds = time.perf_counter() - start
    tps = batch * seq * steps / seconds
    by_6n = model_flops_per_token(n_params, layers, hidden, seq) * tps
    by_computed = computed_flops_per_token(layers, hidden, ffn, seq, vocab, masked / seq) * tps
    mfu = None if peak is None else by_6n / (peak * 1e12)
    mfu_flops = None if peak is None else by_computed / (peak * 1e12)
    print(f"MFU  {name}: batch {batch} x {seq}, vocabulary {vocab}, {tps:,.0f} tokens/s, final loss "
          f"{float(losses[-1]):.3f}; by 6N {by_6n / 1e12:.1f} TFLOP/s -> MFU "
          f"{'?' if mfu is None else f'{100 * mfu:.1f}%'}; by FLOPs computed {by_computed / 1e12:.1f} TFLOP/s -> "
          f"{'?' if mfu_flops is None else f'{100 * mfu_flops:.1f}%'} of {peak} TFLOP/s bf16 (goal >= 40%: "
          f"{'?' if mfu is None else verdict(mfu >= 0.40)})")
    result["mfu"] = {"device": name, "tokens_per_s": tps, "peak_tflops": peak, "mfu": mfu, "mfu_flops": mfu_flops,
                     "params": n_params, "batch": batch, "seq_len": seq, "vocab": vocab, "compiled": args.compile}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return child(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="clm,clm-bf16,mlm")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--preset", default="tiny")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compile", action="store_true", help="add torch.compile rows (engine and Trainer)")
    parser.add_argument("--mfu", action="store_true")
    parser.add_argument("--mfu-only", action="store_true", help="only the GPU MFU measurement")
    parser.add_argument("--mfu-batch", type=int, default=64)
    parser.add_argument("--mfu-seq", type=int, default=512)
    parser.add_argument("--pad-vocab", type=int, default=64, help="pad the MFU vocabulary to a multiple (0: none)")
    parser.add_argument("--peak-tflops", type=float, default=None)
    parser.add_argument("--mfu-dry-run", action="store_true", help="the MFU code on the CPU with a tiny BERT")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    import torch

    args.threads = args.threads or torch.get_num_threads()
    result: dict = {"settings": vars(args).copy(), "environment": environment()}
    if not (args.mfu_only or args.mfu_dry_run):
        print(f"{args.cases}: {args.preset} models, batch {args.batch} x {args.seq_len}, {args.threads} threads, "
              f"{args.steps} timed steps after {args.warmup}, {args.repeats} rounds, each contender in a fresh process")
        load = OtherLoad()
        load.start()
        with tempfile.TemporaryDirectory() as root:
            bench_cases(args, Path(root), result)
        others = load.stop()
        report(result)
        print(f"\nother load {others} CPUs, steal {load.steal} (while measuring)")
        result.update(others=others, steal=load.steal)
        clm = result["cases"].get("clm")
        if clm:  # the top-level keys of the earlier versions: the fp32 CLM case
            result.update(ratio=clm["ratio"], median={"engine": clm["median_tokens_per_s"]["engine"],
                                                      "trainer": clm["median_tokens_per_s"]["trainer"]})
    if args.mfu or args.mfu_only or args.mfu_dry_run:
        run_mfu(args, result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
