"""What a recorded ``retrieval-eval`` run is: ``RetrievalEvalSpec`` (no torch): the run's ``params`` in the run
store and the ``lm-workbench retrieval-eval`` command line that repeats it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.retrieval.names import BM25_B, BM25_K1, BM25_METHODS, DEFAULT_K, POOLINGS
from lm_workbench.runs.spec import RunSpec


@dataclass
class RetrievalEvalSpec(RunSpec):
    """A BEIR folder's judged queries ranked by the model (and BM25) and scored."""

    model: str
    data: str
    split: str = "test"
    k: int = DEFAULT_K
    pooling: str | None = None  # None: the model's own pooling when it declares one, else mean
    bm25: bool = False
    bm25_k1: float = BM25_K1
    bm25_b: float = BM25_B
    bm25_method: str = "lucene"
    keep_identical_ids: bool = False  # BEIR's ignore_identical_ids=False: a query's own passage is scored

    WHAT: ClassVar[str] = "retrieval evaluation"
    REQUIRED: ClassVar[tuple[str, ...]] = ("model", "data")

    def __post_init__(self) -> None:
        self.data, self.split, self.k = str(self.data), str(self.split), int(self.k)
        self.pooling = self.pooling or None
        self.bm25 = bool(self.bm25)
        self.keep_identical_ids = bool(self.keep_identical_ids)
        self.bm25_k1, self.bm25_b = float(self.bm25_k1), float(self.bm25_b)

    def check(self) -> None:
        if self.k < 1:
            raise WorkbenchError(f"--k must be at least 1, not {self.k}")
        if self.pooling is not None and self.pooling not in POOLINGS:
            raise WorkbenchError(f"--pooling must be one of {', '.join(POOLINGS)}, not {self.pooling!r}")
        if self.bm25_method not in BM25_METHODS:
            raise WorkbenchError(f"--bm25-method must be one of {', '.join(BM25_METHODS)}, not {self.bm25_method!r}")
        if self.bm25_k1 < 0 or not 0 <= self.bm25_b <= 1:
            raise WorkbenchError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, not k1={self.bm25_k1}, b={self.bm25_b}")

    def cli_args(self) -> list[str]:
        parts = ["lm-workbench", "retrieval-eval", self.model, "--data", self.data, "--split", self.split,
                 "--k", str(self.k)]
        if self.pooling:
            parts += ["--pooling", self.pooling]
        if self.bm25:
            parts += ["--bm25"]
            if (self.bm25_k1, self.bm25_b, self.bm25_method) != (BM25_K1, BM25_B, "lucene"):
                parts += ["--bm25-k1", f"{self.bm25_k1:g}", "--bm25-b", f"{self.bm25_b:g}",
                          "--bm25-method", self.bm25_method]
        if self.keep_identical_ids:
            parts += ["--keep-identical-ids"]
        return parts + ["--json"]
