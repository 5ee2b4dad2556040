"""Shared helpers for the benchmarks in tests/bench (not a test module)."""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from pathlib import Path
from typing import Any

_SENTENCE_END = re.compile(r'(?<=[.!?])\s+(?=["(\[]?[A-Z])')
_RULE = re.compile(r"^[*=\-~^]{3,}$")
_WORDISH = re.compile(r"[A-Za-z\u2019'\-,;:.()\"]+")


def prose_sentences(n: int = 2000, min_words: int = 5, max_words: int = 60) -> list[str]:
    """``n`` real English sentences from the stdlib's ``pydoc_data.topics``.

    Deterministic: topics in sorted order, paragraphs in order; headings,
    interactive examples, grammar rules and code-like lines are skipped;
    sentences of ``min_words``..``max_words`` words are kept once each (about
    2,030 with Python 3.11's topics). If the corpus has
    fewer than ``n`` such sentences, it is cycled.
    """
    from pydoc_data.topics import topics

    seen: set[str] = set()
    out: list[str] = []
    for key in sorted(topics):
        for para in re.split(r"\n\s*\n", topics[key]):
            lines = [ln.strip() for ln in para.split("\n") if ln.strip()]
            if not lines or any(_RULE.match(ln) for ln in lines):
                continue  # headings
            text = " ".join(lines)
            if ">>>" in text or "::=" in text:
                continue  # interactive examples, grammar rules
            text = re.sub(r"^(\* |\d+\. )", "", text)  # list bullets
            for s in _SENTENCE_END.split(text):
                s = s.strip()
                words = s.split()
                if not (s[-1:] in ".!?" and min_words <= len(words) <= max_words and s[0].isupper()):
                    continue
                if s in seen or sum(1 for w in words if _WORDISH.fullmatch(w)) < 0.7 * len(words):
                    continue  # duplicates; code-like lines
                seen.add(s)
                out.append(s)
    if not out:
        raise RuntimeError("no sentences found in pydoc_data.topics")
    if len(out) < n:
        out = (out * (n // len(out) + 1))
    return out[:n]


def environment() -> dict[str, Any]:
    import torch
    import transformers

    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "cpu_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
    }


def write_json(path: str | None, data: dict[str, Any]) -> None:
    if not path:
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {p}")


class OtherLoad:
    """CPUs' worth of work other processes did between start() and stop() (Linux; else None)."""

    def __init__(self) -> None:
        self._t0 = self._j0 = self._c0 = None

    @staticmethod
    def _jiffies() -> tuple[int, int] | None:
        """(busy, steal) over all CPUs; steal = time the hypervisor ran something else."""
        try:
            fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        except OSError:
            return None
        values = [int(v) for v in fields]
        steal = values[7] if len(values) > 7 else 0
        return sum(values[:7]) - values[3] - values[4], steal  # user..softirq minus idle, iowait

    @staticmethod
    def _own_cpu() -> float:
        t = os.times()
        return t.user + t.system

    def start(self) -> None:
        import time

        self._j0, self._c0, self._t0 = self._jiffies(), self._own_cpu(), time.perf_counter()

    def stop(self) -> float | None:
        """Other processes' CPUs (and, in ``self.steal``, CPUs the hypervisor took away)."""
        import time

        elapsed = time.perf_counter() - self._t0
        j1 = self._jiffies()
        self.steal: float | None = None
        if self._j0 is None or j1 is None or elapsed <= 0:
            return None
        hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        other = max(0.0, (j1[0] - self._j0[0]) / hz - (self._own_cpu() - self._c0))
        self.steal = round((j1[1] - self._j0[1]) / hz / elapsed, 2)
        return round(other / elapsed, 2)


def verdict(ok: bool) -> str:
    return "goal met" if ok else "goal missed"
