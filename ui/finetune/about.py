"""The Fine-tune tab's title and About text."""

TITLE = "Fine-tune"

HTML = """
<p><b>Pre-train once, fine-tune many times.</b> Choose a task (sentence or token classification, extractive
QA, sequence to sequence) and a <b>method</b>: full fine-tuning trains every weight; the parameter-efficient
methods freeze the pre-trained model and train a little next to it: <b>LoRA</b> adds a low-rank update
B·A to chosen matrices (Hu et al. 2021), <b>prefix</b> and <b>prompt tuning</b> learn extra key/value vectors
or input embeddings, <b>adapters</b> (Houlsby 2019, Pfeiffer 2021) insert small bottleneck layers, <b>BitFit</b>
trains only the biases, and the <b>feature-based</b> method mixes frozen layers (ELMo's scalar mix).
He et al. (2022)'s <b>parallel adapter</b> and <b>MAM adapter</b> (prefix tuning on attention + a scaled parallel
adapter on the FFN; their defaults are He et al.'s BART-large summarisation setting, and both attach to BART and
T5 for sequence to sequence, to Llama-style decoders and GPT-2, and to BERT-style encoders) and the methods since (<b>DoRA</b>, <b>rsLoRA</b>, <b>IA³</b>, <b>VeRA</b>, <b>LoHa</b>,
<b>LoKr</b>, <b>OFT</b>, from peft) are here too. Under the diagram each method is shown as its row of He et al.'s
<b>unified view</b>: a change Δh of a hidden representation, told apart by its functional form, its insertion
(sequential or parallel), the representation it modifies and how it joins h; <i>All methods side by side…</i>
puts every row in one table (CSV or picture).
Prefix tuning attaches as a prefilled key/value cache: peft makes the n keys and values of every layer, and
the workbench hands them to the model's attention with the mask widened by n (so it works whatever a
transformers release calls that argument).</p>
<p>The form shows how many parameters each method trains on the loaded model, and the diagram where it
attaches inside a transformer block. Each method brings its own learning rate: small for full fine-tuning
(~2e-5), about a hundred times larger for the added modules. He et al. (2022) find the methods on par with
full fine-tuning on classification at 0.1&ndash;1% of the parameters, but behind on generation tasks at
those budgets.</p>
<p><b>Preference tuning (DPO)</b>, the lecture's step after instruction tuning (Rafailov et al. 2023): pairs of a
prompt with a <i>chosen</i> and a <i>rejected</i> answer teach a language model to prefer the first, with no reward
model: the loss is &minus;log&nbsp;&sigma;(&beta;&middot;[(log&nbsp;&pi;(chosen) &minus; log&nbsp;&pi;<sub>ref</sub>(chosen)) &minus;
(log&nbsp;&pi;(rejected) &minus; log&nbsp;&pi;<sub>ref</sub>(rejected))]), each log-probability summed over the answer's
tokens; the reference &pi;<sub>ref</sub> is the model as it started (a frozen copy, or for LoRA the same model with the
adapter switched off). A decoder (GPT-2, Llama-style) reads the prompt through the chat template; an encoder-decoder
(BART, T5) has none: the prompt goes to the encoder as it is and the answer is the decoder's target. The curves show the loss (log&nbsp;2 at the start), the reward margin and the share of pairs
with a positive margin; after the run, how often the model itself prefers the chosen answer on held-out pairs,
before and after, per category.</p>
<p><b>Bench</b>: tick several methods and run them one after another on the same task; the table compares
trainable share, best validation metric, time, peak memory and the size of the saved adapter.
<b>Before/after</b>: per layer, linear CKA (Kornblith et al. 2019) and mean cosine between the base and the
tuned model's hidden states on the validation texts show which layers fine-tuning moved. Every run is stored
in the Runs tab; a demo set for each task lets a fresh machine press Start.</p>
<p><b>Sentence embedding (S-BERT)</b>: out of the box, averaged BERT vectors and the [CLS] vector rank sentence
pairs poorly (Reimers &amp; Gurevych 2019: 46.35 and 16.50 Spearman on STS-B). The task trains the encoder as a
siamese network so that similar sentences lie close: the <b>triplet</b> loss max(‖s<sub>a</sub> − s<sub>p</sub>‖
− ‖s<sub>a</sub> − s<sub>n</sub>‖ + ε, 0), the <b>cosine</b> loss (cos(u, v) regressed to score / max, S-BERT's
STS recipe), <b>CoSENT</b>, or <b>in-batch negatives</b> (MNRL). Data: scored pairs (GLUE's STS-B TSV),
(anchor, positive[, negative]) triplets, or NLI (entailment = positive, contradiction = negative). After the run,
<b>Before/after</b> shows the STS table (Spearman per layer) of the base and the trained encoder side by side;
full, BitFit and LoRA save a sentence-transformers folder, the others open in the workbench only.</p>
<p><b>Instruction tuning</b> (the task "Instruction tuning"): a decoder or an encoder-decoder learns from
demonstrations (Alpaca-style or chat JSONL) written through a chat template, the model's own or a plain
"### Instruction / ### Response" one. The loss covers the answers only: the <b>Instruct</b> page colours one
example's tokens trained / not trained (label &minus;100, as in the masking lab), counts the trained tokens per
batch, and after a run puts held-out prompts answered by the base and the tuned model side by side (greedy and
sampled), with exact match per category: rules generalise to new prompts, facts never seen do not.</p>
"""
