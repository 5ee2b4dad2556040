"""Load a resolved model folder for analysis: ``load_source(source)``.

A user's spec (any kind: ``course:<family>``, a run folder, an adapted encoder...) resolves in the one
loader, ``lm_workbench.models.loader.load_model``, which calls this with the folder it resolved. This reads
the config, detects the family, estimates memory from the weight headers and refuses a model that does not fit,
then loads weights (safetensors preferred; pickle only when the user allows it; remote code only when asked)
with the head the family uses, and records whether that head was really in the checkpoint — a head that
``transformers`` had to initialise at random is reported as absent, so no view ever shows predictions from
random weights.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterator

from lm_workbench.engine.errors import InsufficientMemoryError, ModelFormatError, WorkbenchError
from lm_workbench.engine.models.attention_switch import attention_switched
from lm_workbench.engine.models.device import DeviceChoice, choose_device
from lm_workbench.engine.models.families import (
    Family, detect_family, hidden_size, max_positions, num_decoder_layers, num_heads, num_layers,
)
from lm_workbench.engine.models.memory import available_bytes, estimate_load_bytes, format_bytes
from lm_workbench.engine.models.sources import ResolvedSource, resolve_model
from lm_workbench.engine.models.weights import pickle_weight_files, safetensors_files, weight_entries


def quiet_transformers() -> None:
    """Silence load reports and progress bars; our own messages say what matters."""
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    logging.getLogger("transformers").setLevel(logging.ERROR)


@dataclass(frozen=True)
class ModelInfo:
    """What the model panel and ``lm-workbench info`` show."""

    spec: str
    folder: str
    source: str
    family: str
    model_type: str
    layers: int
    decoder_layers: int | None
    heads: int
    hidden_size: int
    parameters: int
    vocab_size: int
    has_mlm_head: bool
    has_lm_head: bool
    max_positions: int | None
    device: str
    dtype: str
    memory_bytes: int
    words: str | None = None  # an ELMo's words mode ("as-given" or "split"); None for subword models

    def to_dict(self) -> dict[str, Any]:
        """The facts as a dict; ``words`` only for a model that reads words (an ELMo)."""
        data = asdict(self)
        if data["words"] is None:
            del data["words"]
        return data


class LoadedModel:
    """A model, its tokenizer and what we know about them.

    ``model`` carries the family's head when the checkpoint has one (MLM for
    encoders, LM for decoders and encoder-decoders). Not thread-safe: one job
    at a time uses it (the interactive lane guarantees that).
    """

    def __init__(self, model: Any, tokenizer: Any, config: Any, info: ModelInfo, device: DeviceChoice):
        self.model = model
        self.tokenizer = tokenizer
        self.config = config
        self.info = info
        self.device = device
        self.family = Family(info.family)
        self._attn_lock = threading.Lock()

    @property
    def base_model(self) -> Any:
        """The bare transformer under the head (returns hidden states, no logits)."""
        if self.family is Family.ENCODER_DECODER:
            return self.model
        return getattr(self.model, "base_model", self.model)

    @contextlib.contextmanager
    def attention_implementation(self, name: str) -> Iterator[None]:
        """Run a block with another attention implementation (``eager`` for attentions).

        transformers 5's fast paths (sdpa) return no attention weights, so calls
        that need them switch to eager for their duration only (``attention_switch``: every config in the
        model, an encoder-decoder's stacks' copies included).
        """
        if self.family is Family.BILM:  # an LSTM has no attention to switch
            yield
            return
        with self._attn_lock, attention_switched(self.model, name):
            yield


def _read_config(folder: Path, trust_remote_code: bool) -> Any:
    from transformers import AutoConfig

    try:
        return AutoConfig.from_pretrained(folder, trust_remote_code=trust_remote_code)
    except ValueError as exc:
        text = str(exc)
        if "trust_remote_code" in text:
            raise ModelFormatError(
                f"{folder.name} needs its own code to load; enable 'trust remote code' only if you trust its author"
            ) from None
        raise ModelFormatError(f"cannot read config.json in {folder}: {text.splitlines()[0]}") from None
    except OSError as exc:
        raise ModelFormatError(f"cannot read config.json in {folder}: {str(exc).splitlines()[0]}") from None


def _head_class(family: Family) -> Any:
    import transformers as tf

    return {
        Family.ENCODER: tf.AutoModelForMaskedLM,
        Family.DECODER: tf.AutoModelForCausalLM,
        Family.ENCODER_DECODER: tf.AutoModelForSeq2SeqLM,
    }[family]


def _wants_head(config: Any, family: Family) -> bool:
    """Whether the checkpoint claims the family's head (a base 'BertModel' does not)."""
    archs = getattr(config, "architectures", None) or []
    if not archs:
        return True  # unknown: try, and let the loading report decide
    suffixes = {
        Family.ENCODER: ("ForMaskedLM", "ForPreTraining"),
        Family.DECODER: ("ForCausalLM", "LMHeadModel"),
        Family.ENCODER_DECODER: ("ForConditionalGeneration", "ForSeq2SeqLM"),
    }[family]
    return any(a.endswith(suffixes) for a in archs)


def _head_missing(model: Any, loading_info: dict) -> bool:
    """True when weights outside the base model were initialised at random."""
    prefix = getattr(model, "base_model_prefix", "")
    for key in loading_info.get("missing_keys", ()) or ():
        if not prefix or not key.startswith(prefix + "."):
            return True
    return False


def load_source(
    spec: str | ResolvedSource,
    *,
    device: str = "auto",
    precision: str = "auto",
    trust_remote_code: bool = False,
    allow_pickle: bool = False,
    memory_headroom: float = 0.9,
    available: int | None = None,
    words: str | None = None,
) -> LoadedModel:
    """Load a model folder for analysis. Raises ``WorkbenchError`` with one-line messages.

    The engine's part of the one loader (``lm_workbench.models.loader.load_model``, which every caller uses):
    ``spec`` is a ``ResolvedSource`` the loader resolved, or (engine tests, engine-internal helpers) a folder,
    a cached hub id or ``minilm``, resolved here by ``lm_workbench.engine.models.sources`` alone.

    ``words`` is an ELMo's words mode ("as-given": whitespace-separated words as typed; "split": the
    workbench's word rule); None picks the folder's default (``lm_workbench.engine.elmo.checkpoint.default_words_mode``).
    Models that read subwords ignore it. ``spec`` is what the user typed, resolved here (a hub id not in the
    cache is downloaded without reports), or a source ``lm_workbench.engine.models.sources.resolve_job`` already resolved.
    """
    quiet_transformers()
    source = spec if isinstance(spec, ResolvedSource) else resolve_model(spec, allow_pickle=allow_pickle)
    folder = source.folder
    from lm_workbench.engine.elmo.checkpoint import is_elmo_folder

    if is_elmo_folder(folder):
        return _load_elmo(source, choose_device(device, precision), available, memory_headroom, words)
    config = _read_config(folder, trust_remote_code)
    try:
        family = detect_family(config)
    except ValueError as exc:
        raise ModelFormatError(f"{source.spec}: {exc}") from None
    choice = choose_device(device, precision)

    has_safetensors = bool(safetensors_files(folder))
    if not has_safetensors:
        if not pickle_weight_files(folder):
            raise ModelFormatError(f"{folder} has a config but no weights (*.safetensors)")
        if not allow_pickle:
            raise ModelFormatError(
                f"{folder.name} has only pickle weights (pytorch_model.bin); allow pickle weights "
                "(settings, or --allow-pickle) only if you trust where they came from"
            )
    else:
        weight_entries(folder)  # validates every header: corrupt files fail here, fast

    n_params, needed = estimate_load_bytes(folder if has_safetensors else None, config, choice.dtype_name)
    free = available if available is not None else available_bytes(choice.device)
    if needed > free * memory_headroom:
        raise InsufficientMemoryError(
            f"{source.spec} needs about {format_bytes(needed)} to load ({n_params / 1e6:.0f}M parameters) "
            f"but only {format_bytes(free)} is free on {choice.device}"
        )

    tokenizer = _load_tokenizer(folder, trust_remote_code)
    model, has_head = _load_weights(folder, config, family, choice, trust_remote_code, has_safetensors)
    model.eval()

    vocab = int(getattr(config, "vocab_size", 0) or len(tokenizer))
    window = max_positions(config, getattr(tokenizer, "model_max_length", None))
    info = ModelInfo(
        spec=source.spec,
        folder=str(folder),
        source=source.kind,
        family=family.value,
        model_type=str(getattr(config, "model_type", "")),
        layers=num_layers(config),
        decoder_layers=num_decoder_layers(config) if family is Family.ENCODER_DECODER else None,
        heads=num_heads(config),
        hidden_size=hidden_size(config),
        parameters=sum(p.numel() for p in model.parameters()),
        vocab_size=vocab,
        has_mlm_head=family is Family.ENCODER and has_head,
        has_lm_head=family is not Family.ENCODER and has_head,
        max_positions=window,
        device=choice.device,
        dtype=choice.dtype_name,
        memory_bytes=needed,
    )
    return LoadedModel(model, tokenizer, config, info, choice)


def _load_elmo(source: ResolvedSource, choice: DeviceChoice, available: int | None,
               memory_headroom: float, words: str | None = None) -> LoadedModel:
    """An ELMo folder (ours: safetensors; AllenNLP's: hdf5, read with h5py; never pickle) as a LoadedModel.

    Its tokenizer is ``WordTokenizer`` (words, no subwords), its layers are the
    biLM's: hidden state 0 is the character-CNN token vector, 1..L the biLSTM
    layers, each [forward; backward] (2 x projection wide); it has no attention.
    """
    from lm_workbench.engine.elmo.checkpoint import default_words_mode, load_elmo
    from lm_workbench.engine.elmo.words import WORDS_MODES, WordTokenizer, read_vocabulary

    folder = source.folder
    if words is not None and words not in WORDS_MODES:
        raise WorkbenchError(f"the words mode is one of {', '.join(WORDS_MODES)}, not {words!r}")
    words = words or default_words_mode(folder)
    weight_bytes = sum(p.stat().st_size for p in folder.iterdir() if p.suffix in (".safetensors", ".hdf5"))
    needed = int(weight_bytes * 1.2) + 2**20  # float32 weights as stored, plus room for the activations
    free = available if available is not None else available_bytes(choice.device)
    if needed > free * memory_headroom:
        raise InsufficientMemoryError(
            f"{source.spec} needs about {format_bytes(needed)} to load but only {format_bytes(free)} "
            f"is free on {choice.device}"
        )
    try:
        model = load_elmo(folder)
    except WorkbenchError:
        raise
    except Exception as exc:  # a bad options.json, a missing or mis-shaped weight
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelFormatError(f"cannot load the ELMo in {folder}: {first}") from None
    import torch

    dtype = torch.float32 if choice.dtype == torch.float16 else choice.dtype  # bf16 keeps float32's range
    model = model.to(device=choice.torch_device, dtype=dtype).eval()
    config = model.config
    tokenizer = WordTokenizer(read_vocabulary(folder), name_or_path=str(folder), words=words)
    info = ModelInfo(
        spec=source.spec, folder=str(folder), source=source.kind, family=Family.BILM.value, model_type="elmo",
        layers=config.n_layers, decoder_layers=None, heads=0, hidden_size=config.output_dim,
        parameters=sum(p.numel() for p in model.parameters()), vocab_size=config.vocab_size,
        has_mlm_head=False, has_lm_head=False, max_positions=None, device=choice.device,
        dtype=str(dtype).replace("torch.", ""), memory_bytes=needed, words=words,
    )
    return LoadedModel(model, tokenizer, config, info, choice)


def _load_tokenizer(folder: Path, trust_remote_code: bool) -> Any:
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=trust_remote_code)
    except Exception as exc:  # transformers raises many types here
        raise ModelFormatError(f"cannot load the tokenizer in {folder}: {str(exc).splitlines()[0]}") from None
    if not getattr(tokenizer, "is_fast", False):
        raise ModelFormatError(
            f"the tokenizer in {folder.name} has no fast (tokenizers) version; character offsets need one"
        )
    return tokenizer


def _load_weights(
    folder: Path, config: Any, family: Family, choice: DeviceChoice, trust_remote_code: bool, safetensors: bool
) -> tuple[Any, bool]:
    from transformers import AutoModel

    kwargs = dict(
        config=config,
        dtype=choice.dtype,
        use_safetensors=safetensors,
        trust_remote_code=trust_remote_code,
        output_loading_info=True,
    )
    try:
        has_head = False
        model = None
        if _wants_head(config, family) or family is not Family.ENCODER:
            model, loading_info = _head_class(family).from_pretrained(folder, **kwargs)
            has_head = not _head_missing(model, loading_info)
        if model is None:
            model, _info = AutoModel.from_pretrained(folder, **kwargs)
    except WorkbenchError:
        raise
    except Exception as exc:  # corrupt data, size mismatches, unknown architectures
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelFormatError(f"cannot load the weights in {folder}: {first}") from None
    return model.to(choice.torch_device), has_head
