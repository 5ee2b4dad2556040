"""The Masking lab's "About this view" text (HTML)."""

TITLE = "Masking lab"

HTML = """
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
