"""The Heads tab's "About this view" text (HTML)."""

TITLE = "Heads"

HTML = """
<h3>Which heads move the answer: direct logit attribution and ablation</h3>
<p>The metric is the logit of the <b>target</b> X at the predicted position (a decoder: after the last token;
a masked LM: at the mask; an encoder-decoder: at the <b>output position</b> chosen, after the model's own
greedy output before it; empty: the model's top token), minus the logit of the token typed in
<b>instead of</b> (Y) when there is one: <i>why X and not Y</i>.</p>
<p><b>Direct logit attribution</b> splits that metric into what the embeddings, every attention head and every
MLP write directly into the residual stream, read through the final norm <i>with its scale frozen at this
run's value</i> and the unembedding. In a pre-norm model (GPT-2, Llama-style, T5's decoder, whose
cross-attention heads are rows of their own) the parts then add up to the model's own metric: the line above
the map shows the residual (the approximation gap). In post-norm BERT and BART a LayerNorm after every
sub-layer rescales the stream, so the split is not a sum; ablate the heads there.</p>
<p><b>Ablate every head</b> takes one head out at a time (its output before the output projection set to
zero, to its mean over a corpus, or at each position to its value at a random corpus token) and shows how
far the metric moves: blue where the head was holding the answer up, red where it was pulling it down. Rows
fill in as they come; Cancel keeps the rows done.</p>
"""
