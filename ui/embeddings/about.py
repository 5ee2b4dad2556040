"""The "About this view" text of the Embeddings tab."""

TITLE = "Embeddings"

HTML = """
<h3>Contextual embeddings: one vector per occurrence, not per word</h3>
<p>A <b>static</b> embedding (word2vec, GloVe, or a transformer's input embedding matrix) gives a word one
vector: the &ldquo;play&rdquo; of a baseball game and the &ldquo;play&rdquo; on Broadway are the same
point. A <b>contextual</b> model gives every <i>occurrence</i> its own vector, computed from the whole
sentence, so the two senses can land in different places. This tab embeds each occurrence of the chosen
words in a corpus (a word split into subwords is pooled: mean, first or last subword) and shows the
vectors as a map. <b>Static</b> here means the word's rows of the model's input embedding matrix, pooled
over its subwords: a true static baseline.</p>
<p><b>Layer 0 is not static.</b> It is the embedding layer's <i>output</i>: the token embedding plus the
position (and segment) embeddings, passed through LayerNorm, so the same word already differs by where it
stands. Meaning from the context enters in the layers above. The <b>scalar mix</b> of ELMo combines all
layers with learned weights:
<span class="f">h = &gamma; &middot; &Sigma;<sub>j</sub> softmax(s)<sub>j</sub> h<sub>j</sub></span>;
the sliders set the pre-softmax scalars s<sub>j</sub> (the weight beside each slider is
softmax(s)<sub>j</sub>, and the weights sum to 1) and &gamma; scales the result.</p>
<p>Hover a point to read its sentence, click it to list its nearest neighbours (cosine) next to the same
query on the static baseline: with static vectors every occurrence of a word ties at 1.0 (shown as ties,
never ordered by corpus position); with a contextual layer the nearest occurrences share the sense. While a
second model is compared (<b>Compare with…</b>), model B's neighbours of the same occurrence (the same
characters of the same line) show under A's. The
<b>layer sweep</b> scores each layer by leave-one-out 1-nearest-neighbour sense accuracy (ties count as
the expected accuracy under random tie-breaking) and silhouette. <b>Anisotropy</b> (Ethayarajh 2019) is
the mean cosine between random occurrences of <i>different</i> words: when it is high, all vectors share
one direction and raw cosines are inflated, which is one reason raw [CLS] vectors make poor sentence
embeddings (Reimers &amp; Gurevych 2019). The map (PCA, UMAP, t-SNE) is only a picture: distances on it
are not the cosines the neighbours use.</p>
<p class="ref">Peters et al., <i>Deep contextualized word representations</i> (ELMo), NAACL 2018
(<a href="https://arxiv.org/abs/1802.05365">arXiv:1802.05365</a>);
Ethayarajh, <i>How Contextual are Contextualized Word Representations?</i>, EMNLP 2019
(<a href="https://arxiv.org/abs/1909.00512">arXiv:1909.00512</a>);
Reimers &amp; Gurevych, <i>Sentence-BERT</i>, EMNLP 2019
(<a href="https://arxiv.org/abs/1908.10084">arXiv:1908.10084</a>);
McInnes et al., <i>UMAP</i>, 2018 (<a href="https://arxiv.org/abs/1802.03426">arXiv:1802.03426</a>);
van der Maaten &amp; Hinton, <i>Visualizing Data using t-SNE</i>, JMLR 2008.</p>
"""
