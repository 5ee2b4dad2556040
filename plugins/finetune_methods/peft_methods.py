"""Methods since LoRA, from ``peft``: DoRA, rsLoRA, IA³, VeRA, LoHa, LoKr and OFT.

Each names its target layers as LoRA does (layer names, dotted tails, or the roles query/key/value, which
also find GPT-2's fused ``c_attn``), is wrapped by ``peft`` and saved and reloaded as peft saves it. DoRA and
rsLoRA are peft's LoRA with ``use_dora`` / ``use_rslora``. LoHa, LoKr and OFT adapt ``nn.Linear`` only in
peft 0.21: GPT-2's ``Conv1D`` projections are refused before training, naming the layer type.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from torch import nn

from lm_workbench.engine.plugin_api import (
    setting,
    API_VERSION, FFN_OUT_NAMES, LORA_SITES_OF_TARGET, SITES, TASKS, Attachment, FineTuneMethod, UnifiedRow,
    WorkbenchError, ffn_out_layers, merge_peft, peft_task_type, resolve_lora_targets,
    with_representation, wrap_with_peft,
)
from lm_workbench.plugins.finetune_methods.peft_io import PeftIO

_TARGETS_HELP = ("Comma-separated names of the linear layers to adapt (as for LoRA): query,value, or "
                 "query,key,value,dense; query/key/value also find q_proj/q (BART, T5) and GPT-2's fused c_attn.")


def target_sites(target_modules: str) -> tuple[str, ...]:
    """The diagram's sites for a comma-separated target list, in block order, then the head."""
    names = [name.strip() for name in target_modules.split(",") if name.strip()]
    sites = {site for name in names for site in LORA_SITES_OF_TARGET.get(name, ())}
    return tuple(site for site in SITES if site in sites) + ("head",)


class _TargetedPeftMethod(PeftIO, FineTuneMethod):
    """A peft method on named target layers; subclasses make the peft config (``peft_config``)."""

    api_version = API_VERSION
    tasks = frozenset(TASKS)
    default_lr = 1e-3
    linear_only = False  # True: peft 0.21 adapts nn.Linear only (LoHa, LoKr, OFT)

    def peft_config(self, config, task: str, targets, heads):
        raise NotImplementedError

    def apply(self, model: nn.Module, config, task: str) -> nn.Module:
        self.check_task(task)
        self.check_config(config)
        heads = self.trained_heads(model)
        targets = resolve_lora_targets(model, config.target_modules, exclude=tuple(heads or ()))
        if self.linear_only and targets.fan_in_fan_out:
            conv = sorted({layer.name.rsplit(".", 1)[-1] for layer in targets.layers if layer.conv1d})
            raise WorkbenchError(
                f"{self.name} cannot attach to {type(model).__name__}: its target layers ({', '.join(conv)}) are "
                "transformers' Conv1D, a layer type peft's " + self.title.split(" (")[0] + " does not adapt (only "
                "nn.Linear); use lora, dora, rslora, ia3 or vera on this model")
        return wrap_with_peft(model, self.peft_config(config, task, targets, heads), self.name)

    def attachment_for(self, config) -> Attachment:
        return replace(self.attachment, sites=target_sites(config.target_modules))

    def unified_for(self, config) -> UnifiedRow:
        return with_representation(self.unified, target_sites(config.target_modules))


# ------------------------------------------------------------------------------------------- LoRA family
@dataclass
class DoRAConfig:
    rank: int = setting(8, "r, the rank of the direction's update B·A.", min=1, max=1024)
    alpha: float = setting(16.0, "α: the update B·A is scaled by α/r, as in LoRA.", min=0.0, max=10000.0)
    dropout: float = setting(
        0.1, "Dropout on the input of the low-rank path while training.", min=0.0, max=0.9)
    target_modules: str = setting("query,value", _TARGETS_HELP)


@dataclass
class RsLoRAConfig(DoRAConfig):
    alpha: float = setting(
        16.0, "α: the update is scaled by α/√r (rank-stabilised), not LoRA's α/r, so a larger r learns as well.",
        min=0.0, max=10000.0)


class DoRA(_TargetedPeftMethod):
    name = "dora"
    title = "DoRA (Liu et al. 2024)"
    description = ("Weight-decomposed LoRA: each chosen W₀ becomes a trained magnitude m (one per output) times "
                   "the direction of W₀ + (α/r)·B·A, column-normalised; B starts at zero, m at ‖W₀‖, so training "
                   "starts from the base model. peft's LoRA with use_dora.")
    Config = DoRAConfig
    lr_reason = "A LoRA update plus a magnitude vector: LoRA's steps (1e-3 on small data; Liu et al. 1e-4 to 2e-4)."
    attachment = Attachment(sites=("query", "value", "head"), formula="W = m ⊙ (W₀ + (α/r)·B·A) / ‖W₀ + (α/r)·B·A‖_c",
                            residual="inside the chosen projections (a re-parameterised weight); no new residual path")
    unified = UnifiedRow(
        functional_form="(m ⊙ (W₀ + s·BA)/‖W₀ + s·BA‖_c − W₀)·x", insertion="parallel", representation="attention",
        composition="h ← m ⊙ V·x/‖V‖_c,  V = W₀ + s·BA", formula="h ← m ⊙ ((W₀ + s·B·A)·x) / ‖W₀ + s·B·A‖_c,  s = α/r",
        formula_html=("<i>h</i> ← <i>m</i> ⊙ (<i>W</i><sub>0</sub> + <i>s</i><i>BA</i>)<i>x</i> / "
                      "‖<i>W</i><sub>0</sub> + <i>s</i><i>BA</i>‖<sub>c</sub>,&nbsp; <i>s</i> = α/<i>r</i>"),
        note="LoRA's row with the weight split into magnitude and direction (outside He et al.'s paper)")
    can_merge = True

    def peft_config(self, config, task, targets, heads):
        from peft import LoraConfig

        return LoraConfig(task_type=peft_task_type(task), r=config.rank, lora_alpha=config.alpha,
                          lora_dropout=config.dropout, target_modules=targets.names,
                          fan_in_fan_out=targets.fan_in_fan_out, modules_to_save=heads, use_dora=True)

    def merge(self, model: nn.Module) -> nn.Module:
        return merge_peft(model)


class RsLoRA(DoRA):
    name = "rslora"
    title = "rsLoRA (Kalajdzievski 2023)"
    description = ("LoRA with the rank-stabilised scale α/√r instead of α/r, so higher ranks keep learning; "
                   "peft's LoRA with use_rslora.")
    Config = RsLoRAConfig
    lr_reason = "LoRA's steps: the update starts at zero and is small (1e-3 trains small data)."
    attachment = Attachment(sites=("query", "value", "head"), formula="h = W₀x + (α/√r)·B·A·x",
                            residual="inside the chosen projections, parallel to the frozen W₀; no new residual path")
    unified = UnifiedRow(
        functional_form="x·W_down·W_up", insertion="parallel", representation="attention", composition="h ← h + s·Δh",
        formula="h ← h + (α/√r)·x·W_down·W_up",
        formula_html=("<i>h</i> ← <i>h</i> + (α/√<i>r</i>)·<i>x</i><i>W</i><sub>down</sub><i>W</i><sub>up</sub>"),
        note="LoRA's row with s = α/√r (rank-stabilised)")

    def peft_config(self, config, task, targets, heads):
        from peft import LoraConfig

        return LoraConfig(task_type=peft_task_type(task), r=config.rank, lora_alpha=config.alpha,
                          lora_dropout=config.dropout, target_modules=targets.names,
                          fan_in_fan_out=targets.fan_in_fan_out, modules_to_save=heads, use_rslora=True)


# ------------------------------------------------------------------------------------------------- IA³
@dataclass
class IA3Settings:
    target_modules: str = setting(
        "key,value", "The layers whose outputs are rescaled by a trained vector l (Liu et al.: key,value). GPT-2's "
        "fused c_attn rescales queries too.")
    feedforward: bool = setting(
        True, "Also rescale the feed-forward block's inner activations (the input of its second matrix), as Liu et "
        "al. do.")


class IA3(_TargetedPeftMethod):
    name = "ia3"
    title = "IA³ (Liu et al. 2022)"
    description = ("Infused Adapter by Inhibiting and Amplifying Inner Activations: trained vectors rescale the "
                   "keys, the values and the feed-forward block's inner activations elementwise; they start at 1.")
    Config = IA3Settings
    default_lr = 3e-3
    lr_reason = ("Only a few vectors starting at 1 train, so they take large steps (Liu et al. used 3e-3).")
    attachment = Attachment(sites=("key", "value", "ffn_in", "head"), formula="k ← l_k ⊙ k,  v ← l_v ⊙ v,  "
                            "a ← l_ff ⊙ a  (a = the FFN's inner activation)",
                            residual="multiplies existing activations: no new residual path")
    unified = UnifiedRow(
        functional_form="(l − 1) ⊙ h", insertion="sequential", representation="both", composition="h ← l ⊙ h",
        formula="k ← l_k ⊙ k,  v ← l_v ⊙ v,  a ← l_ff ⊙ a",
        formula_html=("<i>k</i> ← <i>l</i><sub>k</sub> ⊙ <i>k</i>,&nbsp; <i>v</i> ← <i>l</i><sub>v</sub> ⊙ <i>v</i>,"
                      "&nbsp; <i>a</i> ← <i>l</i><sub>ff</sub> ⊙ <i>a</i>"),
        note="a multiplicative composition, beyond He et al.'s additive ones")
    can_merge = True

    def apply(self, model: nn.Module, config: IA3Settings, task: str) -> nn.Module:
        from peft import IA3Config

        self.check_task(task)
        self.check_config(config)
        heads = self.trained_heads(model)
        exclude = tuple(heads or ())
        targets = resolve_lora_targets(model, config.target_modules, exclude=exclude)
        ffn = ffn_out_layers(model, exclude) if config.feedforward else []
        if config.feedforward and not ffn:
            raise WorkbenchError(f"ia3 cannot attach to {type(model).__name__}: it has no feed-forward second matrix "
                                 f"it knows ({', '.join(FFN_OUT_NAMES)}); set feedforward off")
        names = sorted(set(targets.names) | set(ffn))
        peft_config = IA3Config(task_type=peft_task_type(task), target_modules=names, feedforward_modules=ffn,
                                fan_in_fan_out=targets.fan_in_fan_out, modules_to_save=heads)
        return wrap_with_peft(model, peft_config, self.name)

    def attachment_for(self, config: IA3Settings) -> Attachment:
        sites = target_sites(config.target_modules)[:-1] + (("ffn_in",) if config.feedforward else ()) + ("head",)
        return replace(self.attachment, sites=sites)

    def unified_for(self, config: IA3Settings) -> UnifiedRow:
        return with_representation(self.unified, self.attachment_for(config).sites)

    def merge(self, model: nn.Module) -> nn.Module:
        return merge_peft(model)


# ------------------------------------------------------------------------------------------------ VeRA
@dataclass
class VeRASettings:
    rank: int = setting(
        256, "r, the rank of the frozen random matrices A (r × d_in) and B (d_out × r) all layers share (Kopiczko et "
        "al.: 256 to 1024); only the scaling vectors train: r + d_out per layer.", min=1, max=4096)
    target_modules: str = setting("query,value", _TARGETS_HELP)
    dropout: float = setting(0.0, "Dropout on the input of the VeRA path while training.", min=0.0, max=0.9)
    d_initial: float = setting(0.1, "The start value of every entry of Λ_d (Λ_b starts at 0).", min=0.0, max=10.0)


class VeRA(_TargetedPeftMethod):
    name = "vera"
    title = "VeRA (Kopiczko et al. 2024)"
    description = ("Vector-based Random-matrix Adaptation: LoRA's A and B are frozen random matrices shared by "
                   "every layer; per layer only two scaling vectors train, Λ_b (starting at zero) and Λ_d.")
    Config = VeRASettings
    default_lr = 1e-2
    lr_reason = ("Only r + d_out scalars per layer train through frozen random projections, so they need large "
                 "steps (Kopiczko et al. used 4e-3 to 1e-2 for them).")
    attachment = Attachment(sites=("query", "value", "head"), formula="h = W₀x + Λ_b·B·Λ_d·A·x  (A, B frozen, shared)",
                            residual="inside the chosen projections, parallel to the frozen W₀; no new residual path")
    unified = UnifiedRow(
        functional_form="x·Aᵀ·Λ_d·Bᵀ·Λ_b", insertion="parallel", representation="attention", composition="h ← h + Δh",
        formula="h ← h + Λ_b·B·Λ_d·A·x,  A, B random, frozen and shared",
        formula_html=("<i>h</i> ← <i>h</i> + Λ<sub>b</sub><i>B</i>Λ<sub>d</sub><i>A</i><i>x</i>,&nbsp; "
                      "<i>A</i>, <i>B</i> random, frozen, shared"),
        note="LoRA's row with frozen random W_down, W_up and trained diagonal scalings")

    def peft_config(self, config, task, targets, heads):
        from peft import VeraConfig

        return VeraConfig(task_type=peft_task_type(task), r=config.rank, target_modules=targets.names,
                          vera_dropout=config.dropout, d_initial=config.d_initial,
                          fan_in_fan_out=targets.fan_in_fan_out, modules_to_save=heads)


# ------------------------------------------------------------------------------------------ LoHa, LoKr
@dataclass
class LoHaSettings:
    rank: int = setting(8, "r, the rank of each of the two factors B₁A₁ and B₂A₂.", min=1, max=1024)
    alpha: float = setting(8.0, "α: the update is scaled by α/r.", min=0.0, max=10000.0)
    target_modules: str = setting("query,value", _TARGETS_HELP + " nn.Linear only.")


@dataclass
class LoKrSettings(LoHaSettings):
    rank: int = setting(
        8, "r, the rank of the Kronecker product's second factor (full when r ≥ half its size).", min=1, max=1024)
    decompose_factor: int = setting(
        -1, "How each dimension is split into the two Kronecker factors: -1 = the divisors nearest its square root.",
        min=-1, max=65536)


class LoHa(_TargetedPeftMethod):
    name = "loha"
    title = "LoHa (Hyeon-Woo et al. 2022)"
    description = ("Low-rank Hadamard product: the update is the elementwise product of two rank-r products, "
                   "(B₁A₁) ⊙ (B₂A₂), which can reach rank r² with 2r(d_in + d_out) parameters per matrix.")
    Config = LoHaSettings
    linear_only = True
    lr_reason = "Like LoRA, a small update that starts at zero: PEFT-sized steps (1e-3)."
    attachment = Attachment(sites=("query", "value", "head"), formula="h = W₀x + (α/r)·((B₁A₁) ⊙ (B₂A₂))·x",
                            residual="inside the chosen projections, parallel to the frozen W₀; no new residual path")
    unified = UnifiedRow(
        functional_form="x·((B₁A₁) ⊙ (B₂A₂))ᵀ", insertion="parallel", representation="attention",
        composition="h ← h + s·Δh", formula="h ← h + (α/r)·((B₁·A₁) ⊙ (B₂·A₂))·x",
        formula_html=("<i>h</i> ← <i>h</i> + (α/<i>r</i>)·((<i>B</i><sub>1</sub><i>A</i><sub>1</sub>) ⊙ "
                      "(<i>B</i><sub>2</sub><i>A</i><sub>2</sub>))<i>x</i>"),
        note="LoRA's row with a Hadamard product of two low-rank factors")

    def peft_config(self, config, task, targets, heads):
        from peft import LoHaConfig

        return LoHaConfig(task_type=peft_task_type(task), r=config.rank, alpha=config.alpha,
                          target_modules=targets.names, modules_to_save=heads)


class LoKr(LoHa):
    name = "lokr"
    title = "LoKr (Edalati et al. 2022)"
    description = ("Low-rank Kronecker product: the update is C ⊗ (B·A), a small full matrix C times a "
                   "low-rank one, tiling the whole weight with few parameters.")
    Config = LoKrSettings
    attachment = Attachment(sites=("query", "value", "head"), formula="h = W₀x + (α/r)·(C ⊗ B·A)·x",
                            residual="inside the chosen projections, parallel to the frozen W₀; no new residual path")
    unified = UnifiedRow(
        functional_form="x·(C ⊗ B·A)ᵀ", insertion="parallel", representation="attention", composition="h ← h + s·Δh",
        formula="h ← h + (α/r)·(C ⊗ (B·A))·x",
        formula_html="<i>h</i> ← <i>h</i> + (α/<i>r</i>)·(<i>C</i> ⊗ <i>BA</i>)<i>x</i>",
        note="LoRA's row with a Kronecker-product update")

    def peft_config(self, config, task, targets, heads):
        from peft import LoKrConfig

        return LoKrConfig(task_type=peft_task_type(task), r=config.rank, alpha=config.alpha,
                          decompose_factor=config.decompose_factor, target_modules=targets.names,
                          modules_to_save=heads)


# ------------------------------------------------------------------------------------------------- OFT
@dataclass
class OFTSettings:
    block_size: int = setting(
        8, "b, the size of each orthogonal block: R is block-diagonal with d_in / b blocks, each from b(b−1)/2 "
        "trained numbers (b must divide every target's input width).", min=2, max=1024)
    target_modules: str = setting("query,value", _TARGETS_HELP + " nn.Linear only.")
    neumann_terms: int = setting(
        5, "Terms of the Neumann series peft uses for the Cayley transform (its default 5); 0 = the exact (I − Q)(I + "
        "Q)⁻¹.", min=0, max=50)


class OFT(_TargetedPeftMethod):
    name = "oft"
    title = "OFT (Qiu et al. 2023)"
    description = ("Orthogonal fine-tuning: each chosen W₀ is applied after a trained block-diagonal rotation R "
                   "of its input (a Cayley transform of a skew-symmetric Q, starting at the identity), which keeps "
                   "the angles between W₀'s neurons.")
    Config = OFTSettings
    linear_only = True
    default_lr = 1e-3
    lr_reason = "R starts at the identity and has few parameters: PEFT-sized steps (1e-3)."
    attachment = Attachment(sites=("query", "value", "head"), formula="h = W₀·(R·x) + b,  R = (I − Q)(I + Q)⁻¹",
                            residual="inside the chosen projections (their input is rotated); no new residual path")
    unified = UnifiedRow(
        functional_form="W₀·(R − I)·x", insertion="sequential", representation="attention",
        composition="h ← W₀·R·x + b", formula="h ← W₀·(R·x) + b,  R = (I − Q)(I + Q)⁻¹ block-diagonal, Qᵀ = −Q",
        formula_html=("<i>h</i> ← <i>W</i><sub>0</sub>(<i>R</i><i>x</i>) + <i>b</i>,&nbsp; <i>R</i> = "
                      "(<i>I</i> − <i>Q</i>)(<i>I</i> + <i>Q</i>)<sup>−1</sup>, <i>Q</i><sup>T</sup> = −<i>Q</i>"),
        note="a multiplicative (rotating) composition, beyond He et al.'s additive ones")

    def peft_config(self, config, task, targets, heads):
        from peft import OFTConfig

        bad = [layer for layer in targets.layers if layer.d_in % config.block_size]
        if bad:
            raise WorkbenchError(f"oft: block size {config.block_size} does not divide the input width of "
                                 f"{bad[0].name} ({bad[0].d_in}); choose a divisor")
        return OFTConfig(task_type=peft_task_type(task), r=0, oft_block_size=config.block_size,
                         target_modules=targets.names, modules_to_save=heads,
                         use_cayley_neumann=config.neumann_terms > 0,
                         num_cayley_neumann_terms=max(config.neumann_terms, 1))
