"""The Predictions tab's "About this view" text (HTML)."""

TITLE = "Predictions"

HTML = """
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
