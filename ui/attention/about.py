"""The Attention tab's "About this view" text (HTML)."""

TITLE = "Attention"

HTML = """
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
