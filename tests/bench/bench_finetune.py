"""Fine-tuning: LoRA steps/s of the workbench's path against a plain peft + torch loop, and the peak
memory of LoRA against full fine-tuning.

Speed. Both train LoRA (r 8, α 16, dropout 0.1 on query and value, Hu et al.'s default) on
all-MiniLM-L6-v2 with a new 2-class head, AdamW (lr 1e-3, weight decay 0.01), linear decay, gradient
clipping at 1.0, float32, the same thread count, on the same examples: chunks of the Python docs'
prose, each exactly ``--seq-len`` tokens (so padding cannot favour either), random labels.

  workbench  ``lm_workbench.engine.finetune.train.finetune_job`` with the ``lora`` plugin (the job the CLI and the
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

Methods (``--only methods``; not part of the default run). Every fine-tuning method registered (or
``--methods a,b``) trains MiniLM on SST-2-shaped data (a sentence and a binary label: the shipped
sentiment demo, 400 rows: the first ``--train-rows`` for training, the last ``--validation-rows`` for validation) through the real run
(``lm_workbench.finetune.train.run_finetune``), one after another in this process, each with its own
default learning rate. The row per method is the Fine-tune tab's bench row (``FineTuneState``):
trainable %, best validation accuracy, wall time, tokens/s, training memory (CUDA
``max_memory_allocated`` on a GPU; on the CPU the counted parameter + gradient + AdamW-state bytes,
``lm_workbench.engine.finetune.footprint``, labelled as such, not the resident set), the checkpoint's size on disk
and forgetting (``lm_workbench.engine.finetune.forgetting``: MiniLM has no LM head, so that column says so).
``--csv PATH`` writes the table, ``--png PATH`` the columns as bar charts (the tab's ``BenchBars``).

    .venv/bin/python tests/bench/bench_finetune.py [--steps 20] [--warmup 3] [--batch 16] [--seq-len 128]
        [--threads N] [--repeats 3] [--memory-batch 32] [--memory-steps 3] [--device cpu|cuda]
        [--only speed|memory|methods] [--json PATH]
        [--model SPEC] [--methods a,b] [--train-rows 320] [--validation-rows 80] [--epochs 1] [--csv PATH] [--png PATH]
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
    from lm_workbench.engine.data.tasks import ClassificationExample

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
    from lm_workbench.engine.finetune.train import FineTuneSettings

    return FineTuneSettings(epochs=steps * args.batch / train_size, batch_size=args.batch, lr=lr,
                            max_length=args.seq_len, seed=0,
                            training={"threads": args.threads, "warmup_steps": 0, "device": args.device,
                                      "precision": "fp32", "log_every": 1000})


def workbench_times(args, folder, tokenizer, data) -> list[float]:
    import torch

    from lm_workbench.engine.finetune.train import FineTuneData, finetune_job
    from lm_workbench.engine.finetune.task_model import build_task_model
    from lm_workbench.engine.progress import Progress
    from lm_workbench.finetune.methods import finetune_method

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

    from lm_workbench.engine.finetune.train import FineTuneData, finetune_job
    from lm_workbench.engine.models.default import default_model_folder
    from lm_workbench.engine.progress import Progress
    from lm_workbench.finetune.methods import finetune_method
    from lm_workbench.engine.finetune.task_model import build_task_model, load_task_tokenizer

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

    from lm_workbench.engine.finetune.task_model import load_task_tokenizer
    from lm_workbench.engine.models.default import default_model_folder

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


def methods_part(args, result: dict) -> None:
    """Every method on SST-2-shaped data through the real run; the bench's columns; CSV and PNG."""
    import csv

    import torch

    from lm_workbench.engine.finetune.demo import demo_path
    from lm_workbench.finetune.methods import finetune_methods
    from lm_workbench.finetune.train import run_finetune
    from lm_workbench.finetune.spec import FineTuneSpec
    from lm_workbench.finetune.state import BENCH_COLUMNS, read_result

    if args.train_rows + args.validation_rows > 400:
        raise SystemExit("--train-rows + --validation-rows must be at most 400 (the demo's rows)")
    torch.set_num_threads(args.threads)
    names = [m.strip() for m in args.methods.split(",")] if args.methods else list(finetune_methods())
    lines = demo_path("seq-cls").read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], lines[1:]
    load = OtherLoad()
    load.start()
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        train, validation = Path(tmp) / "train.tsv", Path(tmp) / "validation.tsv"
        train.write_text("\n".join([header] + rows[:args.train_rows]) + "\n", encoding="utf-8")
        validation.write_text("\n".join([header] + rows[-args.validation_rows:]) + "\n", encoding="utf-8")
        for i, name in enumerate(names):
            spec = FineTuneSpec(model=args.model, task="seq-cls", train=str(train), validation=str(validation), method=name,
                                out_dir=str(Path(tmp) / name), epochs=args.epochs, batch_size=args.batch,
                                max_length=args.seq_len, seed=0,
                                training={"threads": args.threads, "device": args.device, "log_every": 1000})
            run_finetune(spec)
            row = read_result(i, name, spec.out_dir).bench_row("seq-cls")
            table.append(row)
            print(f"{name:9s} trainable {row['trainable_percent']:8.4f}%  accuracy {row['best_value']:.3f}  "
                  f"{row['wall_s']:6.1f} s  {row['tokens_per_s']:7.0f} tokens/s  memory "
                  f"{row['training_memory_mb']:7.1f} MB ({row['memory_kind']})  checkpoint "
                  f"{row['checkpoint_bytes'] / 1e6:8.3f} MB  forgetting "
                  f"{row['forgetting'] if row['forgetting'] is not None else row['forgetting_note']}", flush=True)
    others = load.stop()
    result["methods"] = {"rows": table, "others": others, "steal": load.steal,
                         "train_rows": args.train_rows, "validation_rows": args.validation_rows}
    print(f"(other load {others} CPUs, steal {load.steal})")
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(BENCH_COLUMNS)
            writer.writerows([[r.get(c) for c in BENCH_COLUMNS] for r in table])
        print(f"wrote {args.csv}")
    if args.png:
        save_columns_figure(table, args.png, f"{args.model or 'MiniLM'}, SST-2-shaped sentiment ({args.train_rows} train, "
                                             f"{args.validation_rows} validation, {args.epochs:g} epoch(s), "
                                             f"{args.device})")
        print(f"wrote {args.png}")


def save_columns_figure(table: list[dict], path: str, title: str) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from lm_workbench.ui import theme
    from lm_workbench.ui.finetune.bench_bars import BenchBars
    from lm_workbench.ui.finetune.bench_table import memory_header
    from lm_workbench.ui.widgets.export import save_widget

    app = QApplication.instance() or QApplication([])
    figure = BenchBars()
    m = theme.current().metrics
    figure.resize(m.bench_figure_w, m.bench_figure_h)
    figure.show_rows(table, memory=memory_header(table), title=title)
    app.processEvents()
    save_widget(figure, path)


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
    parser.add_argument("--only", choices=["speed", "memory", "methods"],
                        help="run one part (methods runs only when asked)")
    parser.add_argument("--model", default="", help="--only methods: the base (default MiniLM; a base with an LM "
                                                     "head, e.g. course:bert, gets the forgetting column)")
    parser.add_argument("--methods", help="methods for --only methods (default: every registered one)")
    parser.add_argument("--train-rows", type=int, default=320, help="--only methods: training rows (of 400)")
    parser.add_argument("--validation-rows", type=int, default=80,
                        help="--only methods: validation rows, from the end (disjoint from --train-rows)")
    parser.add_argument("--epochs", type=float, default=1.0, help="--only methods: epochs per method")
    parser.add_argument("--csv", help="--only methods: write the table as CSV here")
    parser.add_argument("--png", help="--only methods: write the columns as bar charts (PNG or SVG) here")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args)
        return
    result: dict = {"settings": vars(args).copy(), "environment": environment()}
    if args.only == "methods":
        methods_part(args, result)
        write_json(args.json, result)
        return
    if args.only != "memory":
        speed_part(args, result)
    if args.only != "speed":
        memory_part(args, result)
    write_json(args.json, result)


if __name__ == "__main__":
    main()
