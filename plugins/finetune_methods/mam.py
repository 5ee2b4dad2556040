"""The Mix-and-Match adapter (He et al. 2022): prefix tuning on attention + a scaled parallel adapter on the FFN.

He et al.'s setting on BART-large (d = 1024): prefix length 30, FFN bottleneck 512, scale 4, about 6.7% of
the parameters, on par with full fine-tuning on XSum and WMT16 En-Ro. Those are the defaults here; a model
narrower than BART-large keeps their ratio m = d/2 (MiniLM, d = 384: m = 192), which the form, the help and
the saved folder say. The prefix is peft's (as ``--method prefix``), handed to the model as a prefilled
key/value cache; the parallel adapters are the workbench's (as ``--method parallel-adapter``). MAM attaches
where both parts do: BERT-style encoders, GPT-2 and Llama-style decoders (classification tasks, instruct),
BART and T5 (sequence to sequence, instruct; He et al.'s own setting is BART's summarisation). Elsewhere it is
refused naming the part that cannot (e.g. BART's classification head: prefix tuning covers only the
sequence-to-sequence task on an encoder-decoder).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, Attachment, FineTuneMethod, UnifiedRow, WorkbenchError, adapter_parameters, add_parallel_adapters,
    load_peft, parallel_sites, peft_task_type, supply_prefix, wrap_with_peft,
)
from lm_workbench.plugins.finetune_methods.peft_io import PeftIO

PAPER_HIDDEN, PAPER_BOTTLENECK = 1024, 512  # BART-large's width and He et al.'s FFN bottleneck there
SETUP_FILE = "mam_config.json"
ADAPTERS_FILE = "mam_parallel_adapters.safetensors"


@dataclass
class MAMConfig:
    prefix_length: int = setting(
        30, "l, the prefix length on every attention layer (He et al.: 30). peft counts the prefix as positions: l "
        "plus the longest input must fit the model's position table.", min=1, max=256)
    ffn_bottleneck: int = setting(
        PAPER_BOTTLENECK, "The FFN parallel adapter's bottleneck m (He et al.: 512 on BART-large, d = 1024). A model "
        "narrower than that gets at most d/2, their ratio (MiniLM: 192).", min=1, max=8192)
    scale: float = setting(4.0, "s, the parallel adapter's scale (He et al.: 4).", min=0.001, max=100.0)
    prefix_projection: bool = setting(
        True, "Reparameterise the prefix through an MLP while training (Li & Liang; He et al. kept it); the saved "
        "prefix is the MLP's output.")
    encoder_hidden_size: int = setting(128, "Hidden width of the prefix's reparameterisation MLP.", min=1, max=4096)
    init_scale: float = setting(
        1e-3, "Standard deviation of the adapter's up-projection at the start (0 = zeros). The bench's sweep "
        "(tests/bench/bench_mam.py): 0 and 1e-3 learn alike at lr 3e-4; 1e-2 stalled there.", min=0.0, max=1.0)


def scaled_bottleneck(requested: int, hidden: int) -> int:
    """m for a model of width ``hidden``: ``requested``, at most hidden/2 (He et al.'s 512 of 1024)."""
    return max(1, min(requested, hidden * PAPER_BOTTLENECK // PAPER_HIDDEN))


def sizes_note(config: MAMConfig, hidden: int) -> str:
    m = scaled_bottleneck(config.ffn_bottleneck, hidden)
    if m == config.ffn_bottleneck:
        return f"prefix length {config.prefix_length}, FFN bottleneck {m}, scale {config.scale:g}"
    return (f"prefix length {config.prefix_length}, FFN bottleneck {m} (He et al.'s {config.ffn_bottleneck} scaled "
            f"to d/2 for this {hidden}-wide model), scale {config.scale:g}")


class MAMAdapter(PeftIO, FineTuneMethod):
    api_version = API_VERSION
    name = "mam"
    title = "MAM adapter (He et al. 2022)"
    description = ("Mix-and-Match: prefix tuning (l = 30) on every attention layer plus a scaled parallel "
                   "adapter (m = 512, s = 4) beside every feed-forward block, He et al.'s BART-large setting. "
                   "On a narrower model the bottleneck is scaled to d/2 (MiniLM: 192).")
    Config = MAMConfig
    tasks = frozenset({"seq-cls", "token-cls", "qa", "seq2seq", "instruct"})  # where its prefix part goes too
    default_lr = 3e-4
    lr_reason = ("3e-4: swept in tests/bench/bench_mam.py on MiniLM with SST-2-shaped sentiment data (issue 49.3): "
                 "at 3e-4 MAM learned in every seed (final accuracy 1.00 and 0.99; LoRA at its default 0.74 and "
                 "0.54, Houlsby adapters 1.00 and 0.85); at 1e-3 one run in four unlearned to the other class; at "
                 "1e-4 it did not move in 3 epochs.")
    attachment = Attachment(sites=("prefix", "parallel_ffn", "head"),
                            formula="attention over [P_k; K], [P_v; V];  FFN: h ← h + s·ReLU(x·W_down)·W_up",
                            residual="inside attention (extra keys and values) and beside the FFN (adds to its "
                                     "output before the residual add): no new residual path")
    unified = UnifiedRow(
        functional_form="attention: softmax(x·W_q·P_kᵀ)·P_v;  FFN: ReLU(x·W_down)·W_up",
        insertion="parallel", representation="both",
        composition="attention: h ← (1 − λ)h + λΔh;  FFN: h ← h + s·Δh",
        formula="attention: h ← (1 − λ)h + λ·softmax(x·W_q·P_kᵀ)·P_v;  FFN: h ← h + s·ReLU(x·W_down)·W_up",
        formula_html=("attention: <i>h</i> ← (1 − λ)<i>h</i> + λ·softmax(<i>x</i><i>W</i><sub>q</sub>"
                      "<i>P</i><sub>k</sub><sup>T</sup>)<i>P</i><sub>v</sub>;&nbsp; FFN: <i>h</i> ← <i>h</i> + "
                      "<i>s</i>·ReLU(<i>x</i><i>W</i><sub>down</sub>)<i>W</i><sub>up</sub>"),
        note="He et al.'s Mix-and-Match: prefix l = 30 + scaled parallel adapter m = 512, s = 4 (BART-large)")

    def sizes_for(self, config: MAMConfig, hidden: int) -> str | None:
        return sizes_note(config, hidden)

    def apply(self, model: nn.Module, config: MAMConfig, task: str) -> nn.Module:
        return self._build(model, config, task, None)

    def _build(self, model: nn.Module, config: MAMConfig, task: str, bottleneck: int | None) -> nn.Module:
        from peft import PrefixTuningConfig

        self.check_task(task)
        self.check_config(config)
        sites = parallel_sites(model, ("feed_forward",), self.name)  # refuses a family without the FFN site
        hidden = sites[0].hidden
        m = bottleneck if bottleneck is not None else scaled_bottleneck(config.ffn_bottleneck, hidden)
        heads = self.trained_heads(model)
        add_parallel_adapters(model, sublayers=("feed_forward",), bottleneck=m, scale=config.scale,
                              init_scale=config.init_scale, method=self.name, modules_to_save=heads)
        peft_config = PrefixTuningConfig(
            task_type=peft_task_type(task, model), num_virtual_tokens=config.prefix_length,
            prefix_projection=config.prefix_projection, encoder_hidden_size=config.encoder_hidden_size,
            modules_to_save=heads)
        try:
            tuned = supply_prefix(wrap_with_peft(model, peft_config, self.name))
        except WorkbenchError as error:
            raise WorkbenchError(f"mam cannot attach to {type(model).__name__}: its prefix part cannot: {error}") \
                from None
        for parameter in adapter_parameters(tuned).values():
            parameter.requires_grad_(True)  # peft froze the base model, adapters included
        object.__setattr__(tuned, "workbench_mam", {"config": asdict(config), "task": task, "ffn_bottleneck": m,
                                                    "hidden": hidden, "sizes": sizes_note(config, hidden)})
        return tuned

    def save(self, model: nn.Module, folder: Path) -> None:
        from safetensors.torch import save_file

        setup = getattr(model, "workbench_mam", None)
        if setup is None:
            raise WorkbenchError("mam: save the model that apply() returned")
        super().save(model, folder)  # peft's prefix and the head
        folder = Path(folder)
        tensors = {name: p.detach().cpu().contiguous().clone() for name, p in adapter_parameters(model).items()}
        save_file(tensors, str(folder / ADAPTERS_FILE))
        (folder / SETUP_FILE).write_text(json.dumps(setup, indent=2) + "\n", encoding="utf-8")

    def load(self, base_model: nn.Module, folder: Path) -> nn.Module:
        from safetensors.torch import load_file

        folder = Path(folder)
        try:
            setup = json.loads((folder / SETUP_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise WorkbenchError(f"{folder} is not a saved MAM adapter ({SETUP_FILE}: {error})") from None
        config = self.config_from_dict(setup["config"])
        add_parallel_adapters(base_model, sublayers=("feed_forward",), bottleneck=int(setup["ffn_bottleneck"]),
                              scale=config.scale, init_scale=0.0, method=self.name)
        model = supply_prefix(load_peft(base_model, folder))
        tensors = load_file(str(folder / ADAPTERS_FILE))
        parameters = adapter_parameters(model)
        if set(tensors) != set(parameters):
            raise WorkbenchError(f"{folder}: the saved parallel adapters do not match this base model's layers")
        with torch.no_grad():
            for name, tensor in tensors.items():
                parameters[name].copy_(tensor)
                parameters[name].requires_grad_(False)
        object.__setattr__(model, "workbench_mam", setup)
        return model.eval()
