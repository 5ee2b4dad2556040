"""The settings of a bottleneck adapter; each field's help text builds the form and the CLI option."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.setting import setting

VARIANTS = ("houlsby", "pfeiffer")
NON_LINEARITIES = ("relu", "gelu", "tanh", "swish")


@dataclass
class BottleneckConfig:
    variant: str = setting(
        "houlsby", "houlsby: two adapters per layer, on the attention output and on the feed-forward output, each "
        "before the residual add (Houlsby et al. 2019); pfeiffer: one adapter per layer, after the feed-forward "
        "sublayer (Pfeiffer et al. 2021), half the adapter parameters.")
    reduction_factor: int = setting(
        16, "Bottleneck width m = hidden size // reduction factor; each adapter has 2*m*d + m + d parameters.")
    non_linearity: str = setting("relu", "Activation between the down- and up-projection: relu, gelu, tanh or swish.")
    init_scale: float = setting(
        1e-3, "Standard deviation of the up-projection's initial weights (0 = zeros); near 0 the adapter starts as "
        "the identity, so training begins from the base model's behaviour.")
    train_layer_norms: bool | None = setting(
        None, "Also train every LayerNorm's scale and shift; unset = on for houlsby (as in the paper), off for "
        "pfeiffer.")
    modules_to_save: list[str] | None = setting(
        None, "Module names trained and saved in full besides the adapters (the task head); unset = the model's "
        "classifier/score/qa_outputs.")

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise WorkbenchError(f"adapter variant must be one of {', '.join(VARIANTS)}, not {self.variant!r}")
        if self.non_linearity not in NON_LINEARITIES:
            raise WorkbenchError(
                f"adapter non-linearity must be one of {', '.join(NON_LINEARITIES)}, not {self.non_linearity!r}")
        if not isinstance(self.reduction_factor, int) or self.reduction_factor < 1:
            raise WorkbenchError(f"reduction factor must be a whole number >= 1, not {self.reduction_factor!r}")
        if self.init_scale < 0:
            raise WorkbenchError(f"init scale must be >= 0, not {self.init_scale}")
        if self.train_layer_norms is None:
            self.train_layer_norms = self.variant == "houlsby"

    def bottleneck_size(self, hidden: int) -> int:
        """m for a hidden size d: d // reduction_factor, at least 1."""
        return max(1, hidden // self.reduction_factor)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> BottleneckConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
