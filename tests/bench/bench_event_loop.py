"""Event-loop responsiveness: the longest GUI-thread stall while a long encode runs.

A QApplication (offscreen unless QT_QPA_PLATFORM says otherwise) shows a small
window with a progress bar. A QTimer fires every --interval ms on the GUI
thread; each gap between consecutive timeouts minus the interval is a stall.
Three phases, the model loaded before any of them:

  idle     the event loop alone for a second (timer jitter of this machine)
  lane     encode_texts(--n sentences, attentions on) as one job on an
           InteractiveLane; on_progress (worker thread) emits a Qt signal
           delivered with a queued connection to a GUI-thread slot that
           updates the progress bar, as the app does. Ends when the job does,
           or after --seconds (then the job is cancelled through its token).
  on-gui   for contrast, --baseline-n sentences encoded in one call ON the GUI
           thread: what the user would feel without the lane.

Goal (reported, never asserted): max stall during the lane phase < 50 ms.

PROTOTYPES (flags below, off by default, clearly not what the app does today;
they try changes to the lane/engine without editing them):
  --worker-threads K   torch.set_num_threads(K) in the lane's thread (its
                       on_thread_start hook); the GUI thread keeps all cores
  --worker-nice N      os.setpriority(+N) on the lane's thread (Linux; the
                       OpenMP threads it starts inherit it)
  --switch-interval S  sys.setswitchinterval(S) (the GIL hand-over time)
  --yield-ms X         time.sleep(X ms) after every item the job yields
  --gc-freeze          gc.collect(); gc.freeze() after loading: full collections
                       no longer walk the ~390k objects torch/transformers/Qt
                       and the model leave behind (~200 ms -> ~1 ms)
FAULT INJECTION (to show the in-process cause of >50 ms stalls found so far):
  --inject-full-gc     one gc.collect() in the worker half-way through the job:
                       the automatic generation-2 collection Python runs there
                       now and then (it holds the GIL, so the GUI thread waits)

    python tests/bench/bench_event_loop.py [--n 2000] [--baseline-n 200] [--seconds 60] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal, qInstallMessageHandler  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QProgressBar, QVBoxLayout, QWidget  # noqa: E402

from _common import OtherLoad, environment, prose_sentences, verdict, write_json  # noqa: E402

GOAL_MS = 50.0


class StallMeter(QObject):
    """A GUI-thread QTimer; records the time of every timeout."""

    def __init__(self, interval_ms: int):
        super().__init__()
        self.interval_ms = interval_ms
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.ticks: list[float] = []

    def _tick(self) -> None:
        self.ticks.append(time.perf_counter())

    def start(self) -> None:
        self.load = OtherLoad()
        self.load.start()
        self.ticks = [time.perf_counter()]
        self.timer.start()

    def stop(self) -> dict[str, Any]:
        self.timer.stop()
        other = self.load.stop()
        self.ticks.append(time.perf_counter())  # a stall that runs to the end counts too
        gaps = [(b - a) * 1000.0 for a, b in zip(self.ticks, self.ticks[1:])]
        stalls = sorted(max(0.0, g - self.interval_ms) for g in gaps)
        worst = max(range(len(gaps)), key=gaps.__getitem__) if gaps else 0
        return {
            "ticks": len(self.ticks) - 2,
            "seconds": round(self.ticks[-1] - self.ticks[0], 3),
            "max_stall_ms": round(stalls[-1], 1) if stalls else 0.0,
            "p99_stall_ms": round(_quantile(stalls, 0.99), 1),
            "p50_stall_ms": round(_quantile(stalls, 0.50), 2),
            "stalls_over_16ms": sum(1 for s in stalls if s > 16.0),
            "stalls_over_50ms": sum(1 for s in stalls if s > GOAL_MS),
            "worst_at_s": round(self.ticks[worst] - self.ticks[0], 3),
            "other_processes_cpus": other,
            "steal_cpus": self.load.steal,
        }


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}"


def _quantile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[k]


class GcMonitor:
    """Times every garbage collection (gc.callbacks run in the thread that collects)."""

    def __init__(self) -> None:
        self.events: list[tuple[float, float, int, str]] = []  # (start, ms, generation, thread)
        self._start: dict[int, float] = {}
        self.active = False
        gc.callbacks.append(self._cb)

    def _cb(self, phase: str, info: dict[str, Any]) -> None:
        if not self.active:
            return
        tid = threading.get_ident()
        if phase == "start":
            self._start[tid] = time.perf_counter()
        elif tid in self._start:
            t0 = self._start.pop(tid)
            self.events.append((t0, (time.perf_counter() - t0) * 1000.0, info["generation"], threading.current_thread().name))

    def summary(self) -> dict[str, Any]:
        full = [e for e in self.events if e[2] == 2]
        return {
            "gc_collections": len(self.events),
            "gc_full_collections": len(full),
            "gc_full_ms": [round(e[1], 1) for e in full],
            "gc_full_threads": sorted({e[3] for e in full}),
            "gc_max_ms": round(max((e[1] for e in self.events), default=0.0), 1),
        }


class Bridge(QObject):
    """Worker-thread callbacks become GUI-thread calls (queued), as the app's JobBridge does."""

    progress = Signal(object)
    finished = Signal(str)


class Window(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("event-loop bench")
        body = QWidget()
        lay = QVBoxLayout(body)
        self.label = QLabel("idle")
        self.bar = QProgressBar()
        lay.addWidget(self.label)
        lay.addWidget(self.bar)
        self.setCentralWidget(body)
        self.resize(420, 90)
        self.updates = 0

    def on_progress(self, p: Any) -> None:  # GUI thread
        self.bar.setMaximum(max(1, p.total))
        self.bar.setValue(p.done)
        self.label.setText(p.message)
        self.updates += 1


def _quiet_offscreen_notes(mode: Any, context: Any, message: str) -> None:
    if "propagateSizeHints" not in message:  # the offscreen plugin's harmless note
        sys.stderr.write(message + "\n")


def _spin(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def main(argv: list[str] | None = None) -> int:
    from lm_workbench.engine.analysis import encode_texts
    from lm_workbench.engine.models.device import default_cpu_threads, set_cpu_threads
    from lm_workbench.engine.models.loading import load_source as load_model
    from lm_workbench.engine.progress import run_to_completion
    from lm_workbench.lanes.interactive import InteractiveLane

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="minilm")
    ap.add_argument("--n", type=int, default=2000, help="sentences encoded on the lane (default 2000)")
    ap.add_argument("--baseline-n", type=int, default=200, help="sentences encoded on the GUI thread (default 200; 0 skips)")
    ap.add_argument("--seconds", type=float, default=60.0, help="cancel the lane job after this long (default 60)")
    ap.add_argument("--interval", type=int, default=5, help="timer interval, ms (default 5)")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--no-attentions", action="store_true", help="hidden states only (lighter job)")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: all cores)")
    ap.add_argument("--worker-threads", type=int, default=0, help="PROTOTYPE: torch threads in the lane's thread")
    ap.add_argument("--worker-nice", type=int, default=0, help="PROTOTYPE: niceness added to the lane's thread")
    ap.add_argument("--switch-interval", type=float, default=0.0, help="PROTOTYPE: sys.setswitchinterval, seconds")
    ap.add_argument("--yield-ms", type=float, default=0.0, help="PROTOTYPE: sleep after each item the job yields")
    ap.add_argument("--gc-freeze", action="store_true", help="PROTOTYPE: gc.collect(); gc.freeze() after loading")
    ap.add_argument("--inject-full-gc", action="store_true",
                    help="FAULT INJECTION: one gc.collect() in the worker half-way through the job, i.e. the "
                         "automatic generation-2 collection that happens there now and then")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    attentions = not args.no_attentions

    threads = set_cpu_threads(args.threads or default_cpu_threads())
    prototypes = {
        k: v for k, v in dict(
            worker_threads=args.worker_threads, worker_nice=args.worker_nice,
            switch_interval=args.switch_interval, yield_ms=args.yield_ms, gc_freeze=args.gc_freeze,
            inject_full_gc=args.inject_full_gc,
        ).items() if v
    }
    default_switch = sys.getswitchinterval()
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)

    qInstallMessageHandler(_quiet_offscreen_notes)
    app = QApplication.instance() or QApplication([])
    win = Window()
    win.show()
    bridge = Bridge()
    queued = Qt.ConnectionType.QueuedConnection
    bridge.progress.connect(win.on_progress, queued)

    print(f"loading {args.model} ...", flush=True)
    loaded = load_model(args.model)
    sentences = prose_sentences(max(args.n, args.baseline_n))
    # the first forward passes are slow (lazy init); not what this measures
    run_to_completion(encode_texts(loaded, sentences[:8], attentions=attentions))
    if args.gc_freeze:
        gc.collect()
        gc.freeze()
    meter = StallMeter(args.interval)
    results: dict[str, dict[str, Any]] = {}
    print(
        f"{args.model}: lane {args.n} sentences, on-GUI baseline {args.baseline_n}, attentions={attentions}, "
        f"batch {args.batch_size}, {threads} torch threads, timer {args.interval} ms, "
        f"platform {app.platformName()}" + (f", PROTOTYPES {prototypes}" if prototypes else ""),
        flush=True,
    )

    # -- idle ---------------------------------------------------------------
    meter.start()
    _spin(1000)
    results["idle"] = meter.stop()

    # -- lane ---------------------------------------------------------------
    def on_thread_start() -> None:
        if args.worker_threads:
            torch.set_num_threads(args.worker_threads)
        if args.worker_nice and hasattr(os, "setpriority"):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), args.worker_nice)

    lane = InteractiveLane(name="bench-lane", on_thread_start=on_thread_start)
    texts = sentences[: args.n]
    state: dict[str, Any] = {"last": None}

    def job(token: Any) -> Any:
        gen = encode_texts(loaded, texts, attentions=attentions, batch_size=args.batch_size, cancel=token)
        if not (args.yield_ms or args.inject_full_gc):
            return gen
        return _wrapped(gen, args.yield_ms / 1000.0, len(texts) // 2 if args.inject_full_gc else None)

    def on_progress(p: Any) -> None:  # worker thread
        state["last"] = p
        bridge.progress.emit(p)

    gcmon = GcMonitor()
    loop = QEventLoop()
    bridge.finished.connect(loop.quit, queued)
    cancelled_at: list[float] = []
    meter.start()
    gcmon.active = True
    t0 = time.perf_counter()
    handle = lane.submit(
        job, name="bench-encode", on_progress=on_progress,
        on_finally=lambda: bridge.finished.emit("end"),
    )

    def give_up() -> None:
        cancelled_at.append(time.perf_counter() - t0)
        handle.cancel()

    limit = QTimer()
    limit.setSingleShot(True)
    limit.timeout.connect(give_up)
    limit.start(int(args.seconds * 1000))
    loop.exec()
    lane_seconds = time.perf_counter() - t0
    gcmon.active = False
    limit.stop()
    results["lane"] = meter.stop()
    results["lane"].update(gcmon.summary())
    last = state["last"]
    results["lane"].update(
        job_state=handle.state.value,
        job_seconds=round(lane_seconds, 2),
        encoded=last.done if last else 0,
        progress_updates_shown=win.updates,
        cancelled_after_s=round(cancelled_at[0], 2) if cancelled_at else None,
    )
    t_free = time.perf_counter()
    handle.result = None  # drop the encodings (on the GUI thread, as a view replacing its data would)
    results["lane"]["free_results_ms"] = round((time.perf_counter() - t_free) * 1000.0, 1)
    t_gc = time.perf_counter()
    gc.collect()  # what an automatic full (generation-2) collection costs, on whichever thread triggers it
    results["lane"]["full_gc_ms"] = round((time.perf_counter() - t_gc) * 1000.0, 1)
    results["lane"]["gc_tracked_objects"] = len(gc.get_objects())
    lane.shutdown()

    # -- on the GUI thread ---------------------------------------------------
    if args.baseline_n:
        gc.collect()
        meter.start()
        QTimer.singleShot(
            0, lambda: run_to_completion(
                encode_texts(loaded, sentences[: args.baseline_n], attentions=attentions, batch_size=args.batch_size)
            ),
        )
        _spin(200)
        results["on-gui"] = meter.stop()
        results["on-gui"]["encoded"] = args.baseline_n

    win.close()

    lane_row = results["lane"]
    met = lane_row["max_stall_ms"] < GOAL_MS
    print()
    print(f"{'phase':<8} {'texts':>6} {'seconds':>8} {'ticks':>7} {'max ms':>8} {'p99 ms':>7} {'p50 ms':>7} {'>16ms':>6} {'>50ms':>6} {'others':>6} {'steal':>6}")
    for name, row in results.items():
        texts_n = row.get("encoded", "")
        print(
            f"{name:<8} {texts_n!s:>6} {row['seconds']:>8.2f} {row['ticks']:>7} {row['max_stall_ms']:>8.1f} "
            f"{row['p99_stall_ms']:>7.1f} {row['p50_stall_ms']:>7.2f} {row['stalls_over_16ms']:>6} {row['stalls_over_50ms']:>6} "
            f"{_num(row['other_processes_cpus']):>6} {_num(row['steal_cpus']):>6}"
        )
    print()
    print(f"lane job: {lane_row['job_state']}, {lane_row['encoded']}/{args.n} texts in {lane_row['job_seconds']:.1f} s, "
          f"{lane_row['progress_updates_shown']} progress updates shown; "
          f"dropping its results on the GUI thread: {lane_row['free_results_ms']:.0f} ms")
    print(f"garbage collections during the job: {lane_row['gc_collections']}, of them full (generation 2): "
          f"{lane_row['gc_full_collections']} {lane_row['gc_full_ms']} ms on {lane_row['gc_full_threads']}; "
          f"longest collection {lane_row['gc_max_ms']} ms")
    print(f"one full gc.collect() now: {lane_row['full_gc_ms']:.0f} ms over {lane_row['gc_tracked_objects']} "
          "tracked objects (an automatic generation-2 collection in the worker would block the GUI as long)")
    print(f"max stall while the lane works: {lane_row['max_stall_ms']:.1f} ms (goal < {GOAL_MS:.0f} ms: {verdict(met)})")

    write_json(args.json, {
        "benchmark": "event_loop",
        "model": args.model,
        "n": args.n,
        "baseline_n": args.baseline_n,
        "attentions": attentions,
        "batch_size": args.batch_size,
        "threads": threads,
        "interval_ms": args.interval,
        "seconds_limit": args.seconds,
        "switch_interval_default": default_switch,
        "prototypes": prototypes,
        "qt_platform": app.platformName(),
        "results": results,
        "goal_max_stall_ms": GOAL_MS,
        "goal_met": met,
        "environment": environment(),
    })
    return 0


def _wrapped(gen: Any, pause: float, gc_at: int | None) -> Any:
    """The job's generator with a sleep after every item (PROTOTYPE) and/or one
    full collection in the worker once ``gc_at`` texts are done (FAULT INJECTION)."""
    while True:
        try:
            item = next(gen)
        except StopIteration as stop:
            return stop.value
        yield item
        if gc_at is not None and getattr(item, "done", -1) >= gc_at and getattr(item, "total", 0):
            gc.collect()
            gc_at = None
        if pause:
            time.sleep(pause)


if __name__ == "__main__":
    sys.exit(main())
