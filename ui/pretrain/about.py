"""The Pre-train tab's "About this view" text (HTML)."""

TITLE = "Pre-train"

HTML = """
<h3>Pre-training a language model from scratch</h3>
<p>Pre-training fits the weights <i>&theta;</i> of a randomly initialised model to a corpus by minimising
the <b>cross-entropy</b> of the tokens the objective asks it to predict,
<span class="f">L(&theta;) = &minus;(1/N) &Sigma;<sub>i</sub> log p<sub>&theta;</sub>(y<sub>i</sub> | context<sub>i</sub>)</span>,
in nats per token. A causal LM (GPT-2) predicts every next token; a masked LM (BERT) the 15% of tokens it
hid; BART and T5 rebuild a corrupted text with their decoder. <b>Perplexity</b> = e<sup>L</sup> is the number
of equally likely tokens the model is as unsure as. A model that only learnt how often each token occurs
scores the corpus's <b>unigram entropy</b> <span class="f">H = &minus;&Sigma;<sub>w</sub> p(w) log p(w)</span>;
a validation loss below it means the model uses context.</p>
<p>First a <b>tokenizer</b> is trained on the corpus (WordPiece for BERT, byte-level BPE for GPT-2 and BART,
Unigram for T5) and the text is packed into sequences of the chosen length. The optimizer is <b>AdamW</b>
with the learning rate rising linearly over the warm-up steps and then decaying; gradients are clipped to
the given norm. The <b>presets</b> are the compact BERT sizes of Turc et al.: tiny (2 layers, 128 wide),
mini (4, 256), small (4, 512), base (12, 768), with one attention head per 64 dimensions; the parameter
count follows every edit.</p>
<p><b>The plot</b>: training loss (blue) at each logged step and validation loss (orange dots) on held-out
documents, the learning rate, and the throughput in tokens per second. Training loss falling while
validation loss rises means over-fitting: the corpus is too small for the model. The run executes in its
own process, so the window stays responsive; <b>Cancel</b> saves a checkpoint first. <b>Course models</b>
are tiny models of every family trained on Python's documentation, for demonstrations only.</p>
<p class="ref">Devlin et al., <i>BERT</i>, NAACL 2019 (<a href="https://arxiv.org/abs/1810.04805">arXiv:1810.04805</a>);
Radford et al., <i>Language Models are Unsupervised Multitask Learners</i> (GPT-2), 2019;
Loshchilov &amp; Hutter, <i>Decoupled Weight Decay Regularization</i> (AdamW), ICLR 2019
(<a href="https://arxiv.org/abs/1711.05101">arXiv:1711.05101</a>);
Turc et al., <i>Well-Read Students Learn Better</i>, 2019 (<a href="https://arxiv.org/abs/1908.08962">arXiv:1908.08962</a>).</p>
"""
