"""The "About this view" texts (HTML) of the attention, predictions, logit-lens and masking-lab tabs."""

ATTENTION_TITLE = "Attention"

ATTENTION_HTML = """
<h3>Where each token looks: attention weights</h3>
<p>In every layer, each <b>head</b> turns each token into a query <i>q</i>, a key <i>k</i> and a value
<i>v</i> (learned linear maps), and mixes the values by how well queries match keys:
<span class="f">Attention(Q, K, V) = softmax(QK<sup>T</sup> / &radic;d<sub>k</sub>) V</span>.
Row <i>i</i> of the softmax is a probability distribution: how much token <i>i</i> (the query) takes from
every token <i>j</i> (the key); it sums to 1. Decoders mask the future, so their rows have zeros to the
right of the diagonal (<b>causal</b>); an encoder-decoder also has <b>cross-attention</b>, where decoder
queries look at the encoder's tokens.</p>
<p><b>Head view</b> (left): queries on the left, keys on the right, one line per weight at or above the
threshold, thicker and darker for larger weights, one colour per head. Hover a token to see only its
lines. <b>Model grid</b> (middle): every layer &times; head as a thumbnail (each scaled to its own
maximum) and the mean over heads; click one to select it. <b>Heatmap</b> (right): the selected head (or
the mean of the selected heads), row = query, column = key; hover a cell for its value.</p>
<p>Much of the weight lands on special tokens such as <code>[CLS]</code> and <code>[SEP]</code>, often as a
&ldquo;no-op&rdquo; when a head has nothing to do. <b>Hide special tokens</b> drops them on both sides and
renormalises each row: <span class="f">a&prime;<sub>ij</sub> = a<sub>ij</sub> / &Sigma;<sub>j&prime; not
special</sub> a<sub>ij&prime;</sub></span>. Attention shows where information may flow, not why the model
decides what it does.</p>
<p class="ref">Vaswani et al., <i>Attention Is All You Need</i>, NeurIPS 2017
(<a href="https://arxiv.org/abs/1706.03762">arXiv:1706.03762</a>);
Vig, <i>A Multiscale Visualization of Attention in the Transformer Model</i> (BertViz), ACL 2019 demos
(<a href="https://arxiv.org/abs/1906.05714">arXiv:1906.05714</a>);
Clark, Khandelwal, Levy &amp; Manning, <i>What Does BERT Look At?</i>, BlackboxNLP 2019
(<a href="https://arxiv.org/abs/1906.04341">arXiv:1906.04341</a>).</p>
"""

PREDICTIONS_TITLE = "Predictions"

PREDICTIONS_HTML = """
<h3>What the pre-trained model predicts</h3>
<p>Every model ends in a <b>head</b> that turns the last hidden state <i>h</i> into a score (logit) for each
of the <i>V</i> vocabulary entries, <span class="f">p(w | context) = softmax(W h + b)<sub>w</sub></span>;
the tables list the <i>k</i> most probable tokens.</p>
<p><b>Fill-mask</b> (BERT-style encoders): pre-training chose 15% of the tokens
(80% of them replaced by <code>[MASK]</code>, 10% by a random token, 10% kept) and asked the model to recover them from both sides (masked language
modelling). Write <code>[MASK]</code>
where a word is missing; each mask gets its own distribution.
<b>Next token</b> (GPT-style decoders): the model was trained to predict token <i>t</i>+1 from tokens
1..<i>t</i>, <span class="f">p(x) = &prod;<sub>t</sub> p(x<sub>t</sub> | x<sub>&lt;t</sub>)</span>. Accept a
candidate to append it: the exact token ids are kept, so the next prediction sees that token, not a
re-tokenization of the text. <b>Infilling</b> (BART): pre-training replaced spans with one
<code>&lt;mask&gt;</code> and trained the decoder to write the original text back.</p>
<p>A checkpoint saved without its head (e.g. all-MiniLM-L6-v2, a sentence encoder) cannot predict tokens;
this view says so rather than show the output of a randomly initialised head.</p>
<p class="ref">Devlin, Chang, Lee &amp; Toutanova, <i>BERT: Pre-training of Deep Bidirectional
Transformers for Language Understanding</i>, NAACL 2019
(<a href="https://arxiv.org/abs/1810.04805">arXiv:1810.04805</a>);
Radford et al., <i>Language Models are Unsupervised Multitask Learners</i>, 2019;
Lewis et al., <i>BART</i>, ACL 2020 (<a href="https://arxiv.org/abs/1910.13461">arXiv:1910.13461</a>).</p>
"""

LENS_TITLE = "Logit lens"

LENS_HTML = """
<h3>The logit lens: reading every layer through the output head</h3>
<p>Each layer adds to a running hidden state (the residual stream). The logit lens asks what the model
would predict if it stopped after layer <i>l</i>: it applies the final norm and the output head to that
layer's hidden state, <span class="f">p<sub>l</sub> = softmax(W<sub>U</sub> &middot; norm(h<sub>l</sub>))</span>,
and shows the top token and its probability at every position. Rows are layers (the embeddings first),
columns the input positions; a decoder's column <i>t</i> predicts token <i>t</i>+1. Hover a cell for
the top 5.</p>
<p>Details that make the last row equal the model's own output: the last hidden state that
<code>transformers</code> returns is already normed, so it gets the head only (never normed twice); T5
rescales by d<sub>model</sub><sup>&minus;1/2</sup> before its tied head; BART adds its
<code>final_logits_bias</code>. Masked LMs are read through their MLM head (transform and decoder); for
encoder-decoders the lens reads the decoder's layers, fed a target you give or the model's own greedy
output. Early layers often predict the input token itself or frequent tokens; the answer sharpens in
later layers.</p>
<p class="ref">nostalgebraist, <i>interpreting GPT: the logit lens</i>, LessWrong, 2020
(<a href="https://www.lesswrong.com/posts/AcKRB8wDpdaN6v6ru/interpreting-gpt-the-logit-lens">lesswrong.com</a>);
Belrose et al., <i>Eliciting Latent Predictions from Transformers with the Tuned Lens</i>, 2023
(<a href="https://arxiv.org/abs/2303.08112">arXiv:2303.08112</a>).</p>
"""

MASKING_LAB_TITLE = "Masking lab"

MASKING_LAB_HTML = """
<h3>The masking &amp; noising lab: what a pre-training objective hides and asks back</h3>
<p>Self-supervised pre-training makes its own exercises from plain text: it <b>corrupts</b> the input and
scores the model on restoring what was hidden. The lab shows one draw, position by position: the
<b>original</b> tokens, the <b>input</b> the model is fed and the <b>labels</b> it is scored on (grey
&ldquo;&mdash;&rdquo; = &minus;100, not scored). The same seed and settings give the same draw;
<b>Resample</b> takes the next seed. <b>Draw N samples</b> measures how often each thing happens
against the configured rates.</p>
<p><b>mlm</b>: BERT selects 15% of the tokens and replaces 80% of those with <code>[MASK]</code>, 10% with a
random token and keeps 10% unchanged (still scored), so the model cannot rely on seeing
<code>[MASK]</code>; RoBERTa draws a new mask every time a sentence is seen (<i>dynamic</i> masking)
instead of once (<i>static</i>). <b>spanbert</b> masks contiguous spans of whole words with
geometrically distributed lengths. <b>bart</b> combines noising functions (token masking, token
deletion, text infilling with Poisson-length spans behind one <code>&lt;mask&gt;</code>, sentence
permutation, document rotation) and its decoder writes the whole original back: the target is a
sequence of its own. <b>t5-span</b> replaces each corrupted span with a sentinel
<code>&lt;extra_id_N&gt;</code>; the target lists the sentinels, each followed by the tokens it hid.</p>
<p>Colours: <span class="k-masked">&nbsp;masked&nbsp;</span> replaced by the mask token,
<span class="k-random">&nbsp;random&nbsp;</span> replaced by a random token,
<span class="k-kept">&nbsp;kept&nbsp;</span> selected but unchanged (scored),
<span class="k-deleted">&nbsp;deleted&nbsp;</span> removed from the input (shown struck out in
the original row), <span class="k-inserted">&nbsp;inserted&nbsp;</span> a token with no original,
<span class="k-moved">&nbsp;moved&nbsp;</span> the original token at another place,
<span class="k-sentinel">&nbsp;sentinel&nbsp;</span> a sentinel standing for a span. Hover an
input cell to outline the original token it came from. When the loaded model has the head to do it, the
<b>model</b> row shows its top-1 guess at each scored position (green right, red wrong), or for
BART its greedy reconstruction.</p>
<p class="ref">Devlin, Chang, Lee &amp; Toutanova, <i>BERT</i>, NAACL 2019
(<a href="https://arxiv.org/abs/1810.04805">arXiv:1810.04805</a>);
Liu et al., <i>RoBERTa: A Robustly Optimized BERT Pretraining Approach</i>, 2019
(<a href="https://arxiv.org/abs/1907.11692">arXiv:1907.11692</a>);
Joshi et al., <i>SpanBERT: Improving Pre-training by Representing and Predicting Spans</i>, TACL 2020
(<a href="https://arxiv.org/abs/1907.10529">arXiv:1907.10529</a>);
Lewis et al., <i>BART: Denoising Sequence-to-Sequence Pre-training</i>, ACL 2020
(<a href="https://arxiv.org/abs/1910.13461">arXiv:1910.13461</a>);
Raffel et al., <i>Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer</i>
(T5), JMLR 2020 (<a href="https://arxiv.org/abs/1910.10683">arXiv:1910.10683</a>).</p>
"""
