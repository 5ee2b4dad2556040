"""ELMo's hyper-parameters, mirroring AllenNLP / bilm-tf's ``options.json``.

An ``options.json`` looks like::

    {"lstm": {"dim": 4096, "projection_dim": 512, "n_layers": 2,
              "cell_clip": 3, "proj_clip": 3, "use_skip_connections": true},
     "char_cnn": {"activation": "relu", "embedding": {"dim": 16},
                  "filters": [[1, 32], [2, 32], ...], "n_highway": 2,
                  "max_characters_per_token": 50, "n_characters": 262}}

``ElmoConfig`` holds the same fields flat, plus ``vocab_size`` for the biLM
softmax (bilm-tf's training options call it ``n_tokens_vocab``; the published
weight files carry no softmax, so a loaded model has ``vocab_size = 0``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lm_workbench.engine.setting import setting

# The character CNN of every published ELMo: 7 widths, 2048 filters in all.
PUBLISHED_FILTERS: tuple[tuple[int, int], ...] = (
    (1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512), (7, 1024),
)

ACTIVATIONS = ("relu", "tanh")


@dataclass(frozen=True)
class ElmoConfig:
    # --- character CNN (options["char_cnn"]) ---
    char_embedding_dim: int = setting(16, "Width of each character's embedding.")
    filters: tuple[tuple[int, int], ...] = setting(
        PUBLISHED_FILTERS, "Convolutions over the characters of a token, as (width, count) pairs.")
    n_highway: int = setting(2, "Highway layers after the convolutions (0: none).")
    activation: str = setting("relu", "Applied to each max-pooled filter: relu or tanh.")
    max_characters_per_token: int = setting(50, "Characters per token, markers included; longer tokens are cut.")
    n_characters: int = setting(262, "Rows of the character embedding: 0 = padding, then byte+1 and markers.")
    # --- LSTMs (options["lstm"]) ---
    lstm_dim: int = setting(4096, "LSTM memory-cell size (options' lstm.dim).")
    projection_dim: int = setting(512, "Width of the token representation and of each LSTM's projected output.")
    n_layers: int = setting(2, "LSTM layers per direction.")
    cell_clip: float | None = setting(3.0, "Clip the memory cell to [-c, c]; None: no clip.")
    proj_clip: float | None = setting(3.0, "Clip the projected output to [-p, p]; None: no clip.")
    use_skip_connections: bool = setting(True, "Add each LSTM layer's input to its output, from the second layer on.")
    # --- biLM softmax ---
    vocab_size: int = setting(0, "Words in the softmax shared by both directions (0: no softmax).")

    def __post_init__(self) -> None:
        object.__setattr__(self, "filters", tuple((int(w), int(n)) for w, n in self.filters))
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"char_cnn activation must be one of {ACTIVATIONS}, not {self.activation!r}")
        if not self.filters or any(w < 1 or n < 1 for w, n in self.filters):
            raise ValueError("char_cnn filters must be a non-empty list of [width, count] with both >= 1")
        if max(w for w, _ in self.filters) > self.max_characters_per_token:
            raise ValueError("a filter is wider than max_characters_per_token")
        if self.max_characters_per_token < 3:
            raise ValueError("max_characters_per_token must be >= 3 (begin, one byte, end of word)")
        if self.n_characters < 262:
            raise ValueError("n_characters must be >= 262 (padding, 256 bytes, 5 markers)")
        if self.projection_dim > self.lstm_dim:
            raise ValueError("lstm projection_dim cannot exceed lstm dim")
        if self.n_layers < 1:
            raise ValueError("lstm n_layers must be >= 1")
        if self.vocab_size < 0:
            raise ValueError("vocab_size must be >= 0")

    @property
    def n_filters(self) -> int:
        """Width of the concatenated, max-pooled convolutions (= highway width)."""
        return sum(n for _, n in self.filters)

    @property
    def output_dim(self) -> int:
        """Width of every returned layer: [forward; backward] or [x; x]."""
        return 2 * self.projection_dim

    @property
    def num_output_layers(self) -> int:
        """Layer 0 (token representation) plus one per biLSTM layer."""
        return self.n_layers + 1

    # ---------------------------------------------------------------- options.json
    @classmethod
    def from_options_json(cls, options: dict[str, Any], vocab_size: int | None = None) -> ElmoConfig:
        """Config from a parsed AllenNLP/bilm-tf ``options.json`` (a KeyError names a missing field)."""
        cnn, lstm = options["char_cnn"], options["lstm"]
        if vocab_size is None:
            vocab_size = int(options.get("n_tokens_vocab", 0) or 0)
        return cls(
            char_embedding_dim=int(cnn["embedding"]["dim"]),
            filters=tuple(tuple(f) for f in cnn["filters"]),
            n_highway=int(cnn.get("n_highway") or 0),
            activation=cnn["activation"],
            max_characters_per_token=int(cnn["max_characters_per_token"]),
            # bilm-tf's training options say 261 (no padding row); inference adds row 0.
            n_characters=max(int(cnn["n_characters"]), 262),
            lstm_dim=int(lstm["dim"]),
            projection_dim=int(lstm["projection_dim"]),
            n_layers=int(lstm.get("n_layers", 1)),
            cell_clip=_optional_float(lstm.get("cell_clip")),
            proj_clip=_optional_float(lstm.get("proj_clip")),
            use_skip_connections=bool(lstm.get("use_skip_connections", False)),
            vocab_size=vocab_size,
        )

    def to_options_json(self) -> dict[str, Any]:
        """The ``options.json`` dict AllenNLP would read (plus ``n_tokens_vocab`` when there is a softmax)."""
        options: dict[str, Any] = {
            "lstm": {
                "dim": self.lstm_dim,
                "projection_dim": self.projection_dim,
                "n_layers": self.n_layers,
                "cell_clip": self.cell_clip,
                "proj_clip": self.proj_clip,
                "use_skip_connections": self.use_skip_connections,
            },
            "char_cnn": {
                "activation": self.activation,
                "embedding": {"dim": self.char_embedding_dim},
                "filters": [list(f) for f in self.filters],
                "n_highway": self.n_highway,
                "max_characters_per_token": self.max_characters_per_token,
                "n_characters": self.n_characters,
            },
        }
        if self.vocab_size:
            options["n_tokens_vocab"] = self.vocab_size
        return options

    def with_vocab_size(self, vocab_size: int) -> ElmoConfig:
        return replace(self, vocab_size=vocab_size)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


# ---------------------------------------------------------------- presets
# The four published AllenNLP models (their options.json files), and a course size
# that pre-trains on two CPU cores in minutes.
PRESETS: dict[str, ElmoConfig] = {
    # elmo_2x1024_128_2048cnn_1xhighway
    "small": ElmoConfig(lstm_dim=1024, projection_dim=128, n_highway=1),
    # elmo_2x2048_256_2048cnn_1xhighway
    "medium": ElmoConfig(lstm_dim=2048, projection_dim=256, n_highway=1),
    # elmo_2x4096_512_2048cnn_2xhighway
    "original": ElmoConfig(lstm_dim=4096, projection_dim=512, n_highway=2),
    # elmo_2x4096_512_2048cnn_2xhighway_5.5B: same shapes, trained on 5.5B tokens
    "original-5.5b": ElmoConfig(lstm_dim=4096, projection_dim=512, n_highway=2),
    # a tiny biLM for the course: 2 x 256-cell LSTMs projected to 64
    "course": ElmoConfig(
        char_embedding_dim=8,
        filters=((1, 16), (2, 16), (3, 32), (4, 64)),
        n_highway=1,
        lstm_dim=256,
        projection_dim=64,
    ),
}


def preset(name: str, vocab_size: int = 0) -> ElmoConfig:
    """A named size (see ``PRESETS``), optionally with a softmax of ``vocab_size`` words."""
    try:
        return PRESETS[name].with_vocab_size(vocab_size)
    except KeyError:
        raise ValueError(f"unknown ELMo size {name!r}; known: {', '.join(PRESETS)}") from None
