"""Fine-tuning: LoRA steps/s of the workbench's path against a plain peft + torch loop, and the peak
memory of LoRA against full fine-tuning.

Speed. Both train LoRA (r 8, α 16, dropout 0.1 on query and value, Hu et al.'s default) on
all-MiniLM-L6-v2 with a new 2-class head, AdamW (lr 1e-3, weight decay 0.01), linear decay, gradient
clipping at 1.0, float32, the same thread count, on the same examples: chunks of the Python docs'
prose, each exactly ``--seq-len`` tokens (so padding cannot favour either), random labels.

  workbench  ``engine.finetune.job.finetune_job`` with the ``lora`` plugin (the job the CLI and the
             window run: the method's ``apply``, the one training loop, its batches); evaluation
             only at the start and the end, outside the timed steps
  plain      ``peft.get_peft_model`` + ``torch.optim.AdamW`` + ``LambdaLR``, batches sliced from
             tensors tokenized once, ``model(**batch, labels=...).loss.backward()``

Each runs ``--warmup + --steps`` optimizer steps; the last ``--steps`` are timed (a timestamp after
every step: the loop's ``Progress``, the plain loop's own). They alternate ``--repeats`` times; the
median steps/s is reported. Goal (reported, never asserted): workbench / plain >= 0.95.

Memory. LoRA and full fine-tuning each run in their own process (``--memory-child``) through the
workbench's job, batch ``--memory-batch`` x ``--seq-len``, AdamW: peak = ``ru_maxrss`` at the last
training step minus ``ru_maxrss`` right after the task model is loaded (CPU), or
``max_memory_allocated`` minus the memory allocated with the model on the GPU (CUDA). Goal:
LoRA / full <= 0.6.

    .venv/bin/python tests/bench/bench_finetune.py [--steps 20] [--warmup 3] [--batch 16] [--seq-len 128]
        [--threads N] [--repeats 3] [--memory-batch 32] [--memory-steps 3] [--device cpu|cuda]
        [--only speed|memory] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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

from _common import OtherLoad, environment, prose_sentences, verdict, write_json  # noqa: E402

LABELS = ("a", "b")


def examples(tokenizer, n: int, seq_len: int):
    """``n`` classification examples whose texts are each exactly ``seq_len`` tokens (with [CLS]/[SEP])."""
    from engine.data.tasks import ClassificationExample

    words = " ".join(prose_sentences(2000)).split()
    out, at = [], 0
    for i in range(n):
        text = " ".join(words[at:at + seq_len])
        at = (at + seq_len) % (len(words) - seq_len)
        ids = tokenizer(text, truncation=True, max_length=seq_len)["input_ids"]
        assert len(ids) == seq_len, "a chunk of seq_len words is at least seq_len tokens"
        out.append(ClassificationExample(tokenizer.decode(ids[1:-1]), LABELS[(i * 7919) % 2]))
    return out


def settings(args, lr: float, steps: int, train_size: int):
    from engine.finetune.job import FineTuneSettings

    return FineTuneSettings(epochs=steps * args.batch / train_size, batch_size=args.batch, lr=lr,
                            max_length=args.seq_len, seed=0,
                            training={"threads": args.threads, "warmup_steps": 0, "device": args.device,
                                      "precision": "fp32", "log_every": 1000})


def workbench_times(args, folder, tokenizer, data) -> list[float]:
    import torch

    from engine.finetune.job import FineTuneData, finetune_job
    from engine.finetune.task_model import build_task_model
    from engine.progress import Progress
    from workbench.finetune.methods import finetune_method

    method = finetune_method("lora")
    torch.manual_seed(0)
    model = build_task_model(folder, "seq-cls", LABELS)
    total = args.warmup + args.steps
    train = data[: total * args.batch]
    job = FineTuneData("seq-cls", train, data[-args.batch:], LABELS)
    stamps = []
    with tempfile.TemporaryDirectory() as tmp:
        run = finetune_job(model, tokenizer, method, method.default_config(), job,
                             settings(args, 1e-3, total, len(train)), checkpoint_dir=Path(tmp))
        for event in run:
            if isinstance(event, Progress) and event.total == total and event.message.startswith("step"):
                stamps.append(time.perf_counter())
    return stamps


def plain_times(args, folder, tokenizer, data) -> list[float]:
    import torch
    from peft import LoraConfig, TaskType, get_peft_model
    from transformers import AutoModelForSequenceClassification

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device(args.device)
    model = AutoModelForSequenceClassification.from_pretrained(folder, num_labels=2).to(device)
    model = get_peft_model(model, LoraConfig(task_type=TaskType.SEQ_CLS, r=8, lora_alpha=16, lora_dropout=0.1,
                                             target_modules=["query", "value"]))
    total = args.warmup + args.steps
    encoded = tokenizer([e.text for e in data[: total * args.batch]], truncation=True, max_length=args.seq_len,
                        padding=True, return_tensors="pt")
    labels = torch.tensor([LABELS.index(e.label) for e in data[: total * args.batch]])
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-3, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / total))
    model.train()
    stamps = []
    for step in range(total):
        rows = slice(step * args.batch, (step + 1) * args.batch)
        batch = {k: v[rows].to(device) for k, v in encoded.items()}
        loss = model(**batch, labels=labels[rows].to(device)).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
        if device.type == "cuda":
            torch.cuda.synchronize()
        stamps.append(time.perf_counter())
    return stamps


def steps_per_s(stamps: list[float], args) -> float:
    timed = stamps[args.warmup - 1:]  # from the end of the last warm-up step to the end of the last step
    return (len(timed) - 1) / (timed[-1] - timed[0])


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory_child(args) -> None:
    """One method's peak training memory over the post-load baseline, as JSON on stdout."""
    import torch

    from engine.finetune.job import FineTuneData, finetune_job
    from engine.models.default import default_model_folder
    from engine.progress import Progress
    from workbench.finetune.methods import finetune_method
    from engine.finetune.task_model import build_task_model, load_task_tokenizer

    torch.set_num_threads(args.threads)
    folder = default_model_folder()
    tokenizer = load_task_tokenizer(folder)
    data = examples(tokenizer, args.memory_batch * args.memory_steps + 4, args.seq_len)
    method = finetune_method(args.memory_child)
    torch.manual_seed(0)
    model = build_task_model(folder, "seq-cls", LABELS)
    cuda = args.device == "cuda"
    if cuda:
        model.to("cuda")
        torch.cuda.reset_peak_memory_stats()
        baseline = torch.cuda.memory_allocated() / 2**20
    else:
        baseline = _rss_mb()
    train = data[: args.memory_batch * args.memory_steps]
    job = FineTuneData("seq-cls", train, data[-4:], LABELS)
    run_args = argparse.Namespace(**{**vars(args), "batch": args.memory_batch})
    peak = None
    with tempfile.TemporaryDirectory() as tmp:
        for event in finetune_job(model, tokenizer, method, method.default_config(), job,
                                    settings(run_args, method.default_lr, args.memory_steps, len(train)),
                                    checkpoint_dir=Path(tmp)):
            if isinstance(event, Progress) and event.total == args.memory_steps and event.done == args.memory_steps \
                    and event.message.startswith("step"):
                peak = (torch.cuda.max_memory_allocated() / 2**20) if cuda else _rss_mb()
    print(json.dumps({"method": args.memory_child, "baseline_mb": baseline, "peak_over_baseline_mb": peak - baseline}))


def memory(args, method: str) -> dict:
    command = [sys.executable, __file__, "--memory-child", method, "--threads", str(args.threads), "--seq-len",
               str(args.seq_len), "--memory-batch", str(args.memory_batch), "--memory-steps", str(args.memory_steps),
               "--device", args.device]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def speed_part(args, result: dict) -> None:
    import torch

    from engine.finetune.task_model import load_task_tokenizer
    from engine.models.default import default_model_folder

    torch.set_num_threads(args.threads)
    folder = default_model_folder()
    tokenizer = load_task_tokenizer(folder)
    data = examples(tokenizer, (args.warmup + args.steps) * args.batch + args.batch, args.seq_len)
    rates: dict[str, list[float]] = {"workbench": [], "plain": []}
    load = OtherLoad()
    load.start()
    for _ in range(args.repeats):
        rates["workbench"].append(steps_per_s(workbench_times(args, folder, tokenizer, data), args))
        rates["plain"].append(steps_per_s(plain_times(args, folder, tokenizer, data), args))
    others = load.stop()
    speed = {k: statistics.median(v) for k, v in rates.items()}
    ratio = speed["workbench"] / speed["plain"]
    result["steps_per_s"] = {"runs": rates, "median": speed, "ratio": ratio, "others": others, "steal": load.steal}
    print(f"LoRA steps/s (batch {args.batch} x {args.seq_len}, {args.threads} threads, {args.device}): "
          f"workbench {speed['workbench']:.3f}, plain peft {speed['plain']:.3f}; ratio {ratio:.3f} "
          f"(goal >= 0.95: {verdict(ratio >= 0.95)})   other load {others} CPUs, steal {load.steal}")


def memory_part(args, result: dict) -> None:
    peaks = {m: memory(args, m) for m in ("lora", "full")}
    share = peaks["lora"]["peak_over_baseline_mb"] / peaks["full"]["peak_over_baseline_mb"]
    result["memory"] = {"peaks": peaks, "ratio": share}
    print(f"peak training memory over the loaded model (batch {args.memory_batch} x {args.seq_len}, AdamW): "
          f"LoRA {peaks['lora']['peak_over_baseline_mb']:.0f} MB, full {peaks['full']['peak_over_baseline_mb']:.0f} MB; "
          f"ratio {share:.2f} (goal <= 0.6: {verdict(share <= 0.6)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-batch", type=int, default=32)
    parser.add_argument("--memory-steps", type=int, default=3)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--only", choices=["speed", "memory"], help="run one of the two parts")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args)
        return
    result: dict = {"settings": vars(args).copy(), "environment": environment()}
    if args.only != "memory":
        speed_part(args, result)
    if args.only != "speed":
        memory_part(args, result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
