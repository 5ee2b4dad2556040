"""Requests of the commands that read one model (``info`` ... ``retrieval-eval``): one frozen dataclass each,
the CLI's arguments and defaults (``lm_workbench.requests.base`` says the rules). Each field's comment names its
flag; the CLI's help (``lm-workbench COMMAND --help``) says what it means."""

from __future__ import annotations

from lm_workbench.requests.base import ModelRequest


class InfoRequest(ModelRequest, command="info"):
    """``lm-workbench info``: what a model is: family, layers, heads, heads present"""


class EncodeRequest(ModelRequest, command="encode"):
    """``lm-workbench encode``: tokens, hidden states and attentions of a text, to an .npz file"""

    text: str | None = None  # --text
    text_file: str | None = None  # --text-file
    pair: str | None = None  # --pair
    target: str | None = None  # --target
    out: str  # --out
    no_attentions: bool = False  # --no-attentions


class AttentionRequest(ModelRequest, command="attention"):
    """``lm-workbench attention``: one head's attention weights for a text"""

    text: str  # --text
    pair: str | None = None  # --pair
    target: str | None = None  # --target
    kind: str = "encoder"  # --kind
    layer: int  # --layer
    head: int  # --head
    hide_special: bool = False  # --hide-special


class FillMaskRequest(ModelRequest, command="fill-mask"):
    """``lm-workbench fill-mask``: top-k tokens for every [MASK] (models with an MLM head)"""

    text: str  # --text
    k: int = 5  # --k


class NextTokenRequest(ModelRequest, command="next-token"):
    """``lm-workbench next-token``: top-k next tokens after a text (decoders)"""

    text: str  # --text
    k: int = 5  # --k


class LensRequest(ModelRequest, command="lens"):
    """``lm-workbench lens``: logit lens: the top token of every layer at every position"""

    text: str  # --text
    target: str | None = None  # --target
    k: int = 1  # --k
    tuned: str | None = None  # --tuned


class TunedLensRequest(ModelRequest, command="tuned-lens"):
    """``lm-workbench tuned-lens``: train a tuned lens: an affine translator per layer, the model frozen"""

    corpus: tuple[str, ...]  # --corpus
    steps: int | None = None  # --steps
    batch_size: int | None = None  # --batch-size
    seq_len: int | None = None  # --seq-len
    lr: float | None = None  # --lr
    seed: int | None = None  # --seed
    validation_windows: int | None = None  # --validation-windows
    checkpoint_every: int | None = None  # --checkpoint-every
    out: str | None = None  # --out
    name: str | None = None  # --name


class AttributeRequest(ModelRequest, command="attribute"):
    """``lm-workbench attribute``: which input tokens a prediction rests on (decoders: the next token; masked LMs: the
    masked token; encoder-decoders: an output token)"""

    text: str  # --text
    target: str | None = None  # --target
    contrast: str | None = None  # --contrast
    output_position: int = 0  # --output-position
    method: str = "grad-input"  # --method
    steps: int = 32  # --steps
    attention_layer: int | None = None  # --attention-layer


class PatchRequest(ModelRequest, command="patch"):
    """``lm-workbench patch``: activation patching (causal tracing): restore one layer's activation at one position
    from a clean run into a corrupted one, for every layer and position"""

    clean: str  # --clean
    corrupt: str | None = None  # --corrupt
    subject: str | None = None  # --subject
    noise_scale: float = 3.0  # --noise-scale
    noise_samples: int = 10  # --noise-samples
    seed: int = 0  # --seed
    target: str  # --answer, --target
    contrast: str | None = None  # --wrong, --contrast
    site: str = "resid"  # --site
    output_position: int = 0  # --output-position
    approx: bool = False  # --approx
    compare_exact: bool = False  # --compare-exact


class DlaRequest(ModelRequest, command="dla"):
    """``lm-workbench dla``: direct logit attribution: the logit (difference) split into the embeddings, each attention
    head and each MLP (pre-norm models: GPT-2, Llama-style, T5)"""

    text: str  # --text
    target: str | None = None  # --target
    contrast: str | None = None  # --contrast
    output_position: int = 0  # --output-position


class AblateRequest(ModelRequest, command="ablate"):
    """``lm-workbench ablate``: take attention heads or MLPs out (zero, mean or resample ablation) and see logit(X) (-
    logit(Y)) move"""

    text: str  # --text
    target: str  # --target
    contrast: str | None = None  # --contrast
    output_position: int = 0  # --output-position
    heads: str | None = None  # --heads
    all_heads: bool = False  # --all-heads
    mlps: str | None = None  # --mlps
    how: str = "zero"  # --how
    corpus: str | None = None  # --corpus
    seed: int = 0  # --seed


class _OccurrencesRequest(ModelRequest):
    """The corpus whose word occurrences ``neighbours`` and ``project`` embed, and how."""

    corpus: str  # --corpus
    text_column: str | None = None  # --text-column
    label_column: str | None = None  # --label-column
    tsv_quoting: str = "auto"  # --tsv-quoting
    layer: str  # --layer
    pooling: str = "mean"  # --pooling
    cache: bool = False  # --cache


class NeighboursRequest(_OccurrencesRequest, command="neighbours"):
    """``lm-workbench neighbours``: nearest occurrences of a word across a corpus (contextual embeddings)"""

    word: str  # --word
    k: int = 5  # --k


class ProjectRequest(_OccurrencesRequest, command="project"):
    """``lm-workbench project``: a 2-D map (PCA, UMAP, t-SNE) of word occurrences, to CSV"""

    word: tuple[str, ...] | None = None  # --word
    method: str = "pca"  # --method
    seed: int = 0  # --seed
    set: tuple[str, ...] = ()  # --set
    out: str  # --out


class _LabelledTaskRequest(ModelRequest):
    """A labelled task read layer by layer (``probe``, ``scalar-mix``): the file, its columns, the pooling."""

    task: str  # --task
    kind: str  # --kind
    tag_column: int | None = None  # --tag-column
    text_column: str | None = None  # --text-column
    label_column: str | None = None  # --label-column
    tsv_quoting: str = "auto"  # --tsv-quoting
    pooling: str = "mean"  # --pooling


class ProbeRequest(_LabelledTaskRequest, command="probe"):
    """``lm-workbench probe``: layer-wise linear probes with the Hewitt & Liang control task"""

    seed: int = 0  # --seed


class StsRequest(ModelRequest, command="sts"):
    """``lm-workbench sts``: sentence similarity per layer: Spearman's rho of cosines vs gold scores"""

    data: str  # --data
    columns: str | None = None  # --columns
    tsv_quoting: str = "auto"  # --tsv-quoting
    pooling: str = "mean"  # --pooling


class ScalarMixRequest(_LabelledTaskRequest, command="scalar-mix"):
    """``lm-workbench scalar-mix``: learn ELMo's scalar mix of a model's layers for a task"""

    steps: int = 300  # --steps
    seed: int = 0  # --seed


class PromptEvalRequest(ModelRequest, command="prompt-eval"):
    """``lm-workbench prompt-eval``: evaluate cloze or prefix prompts with a verbalizer on labelled data"""

    template: tuple[str, ...]  # --template
    verbalizer: tuple[str, ...]  # --verbalizer
    data: str  # --data
    tsv_quoting: str = "auto"  # --tsv-quoting
    mode: str = "auto"  # --mode
    k_shot: int = 0  # --k-shot
    selection: str = "random"  # --selection
    seed: int = 0  # --seed
    calibrate: bool = False  # --calibrate
    multi_token: str = "left-to-right"  # --multi-token
    length_normalise: bool = False  # --length-normalise
    limit: int | None = None  # --limit
    keep_unseen_labels: bool = False  # --keep-unseen-labels


class GenerateRequest(ModelRequest, command="generate"):
    """``lm-workbench generate``: generate text after a prompt (decoders, encoder-decoders)"""

    text: str  # --text
    greedy: bool = False  # --greedy
    temperature: float | None = None  # --temperature
    top_k: int | None = None  # --top-k
    top_p: float | None = None  # --top-p
    max_new_tokens: int = 40  # --max-new-tokens
    seed: int = 0  # --seed
    stop: tuple[str, ...] = ()  # --stop
    chat: bool = False  # --chat
    template: str | None = None  # --template


class RetrieveRequest(ModelRequest, command="retrieve"):
    """``lm-workbench retrieve``: the passages of a corpus nearest to a query (sentence-encoder search)"""

    corpus: str  # --corpus
    tsv_quoting: str = "auto"  # --tsv-quoting
    query: str  # --query
    k: int = 10  # --k
    pooling: str | None = None  # --pooling


class RetrievalEvalRequest(ModelRequest, command="retrieval-eval"):
    """``lm-workbench retrieval-eval``: nDCG@10, MRR@10, Recall@1/10/100 on a BEIR folder (and BM25's)"""

    data: str  # --data
    split: str = "test"  # --split
    k: int = 10  # --k
    pooling: str | None = None  # --pooling
    bm25: bool = False  # --bm25
    bm25_k1: float = 1.5  # --bm25-k1
    bm25_b: float = 0.75  # --bm25-b
    bm25_method: str = "lucene"  # --bm25-method
    keep_identical_ids: bool = False  # --keep-identical-ids
