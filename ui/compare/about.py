"""The Compare tab's "About this view" text (HTML)."""

TITLE = "Compare"

HTML = """
<h3>How alike two models' layers are: linear CKA, layer by layer</h3>
<p>Load a second model with <b>Compare with…</b> (the model panel, or a finished run's <b>Compare with this</b>
in the Runs tab). Each word of the text (each line is one text) gets, in each model, the mean of its subword
vectors at every layer, so models with different tokenizers (BERT and GPT-2, BERT and ELMo) compare the same
words. Cell (<i>i</i>, <i>j</i>) is the linear CKA (Kornblith et al. 2019) between model A's layer <i>i</i> and
model B's layer <i>j</i> over those words: 1 when the two layers arrange the words alike up to a rotation and
scale, near 0 when unrelated. Layer 0 is the embeddings. A handful of words gives a rough estimate; more text,
a steadier one. Meanwhile the Tokens, Attention, Predictions (and its <b>Explain</b>: B explains the same
word at the same place), Logit lens and Embeddings neighbours show A | B on the same input; a saved
workspace keeps model B.</p>
"""
