"""The Features tab's "About this view" text (HTML)."""

TITLE = "Features"

HTML = """
<h3>Sparse autoencoder features, and steering with them</h3>
<p>A <b>sparse autoencoder</b> (SAE) rewrites one site's activation (a hook point such as
<code>blocks.2.hook_resid_post</code>) as a sum of a few of many learned directions, its <b>features</b>. Name an
SAE folder (SAELens's layout: <code>cfg.json</code> + <code>sae_weights.safetensors</code>; train one with
<code>lm-workbench sae train</code>): the strip shows the features active on the text, strongest first, one column
per feature and one row per token. Comparing with a model B, name B's SAE under <b>SAE (B)</b>: B's features on
the same text show in a second strip.</p>
<p><b>Show feature</b> reads a corpus: the feature's top-activating contexts (each token shaded by the
feature's activation), how often it fires (density), a histogram of its activations, and its <b>logit
effect</b>: the decoder direction read through the unembedding (no final norm), the tokens it promotes and
suppresses.</p>
<p><b>Steer</b> adds the feature's unit decoder direction × strength at the SAE's site to every position and
shows the predictions (and a greedy continuation) steered beside unsteered, with KL(unsteered ‖ steered). A
strength that breaks the model (NaN) stops with a message. <b>Layer grid</b> steers at the same site of every
layer and several strengths: each cell's concept score (the logit gain of the tokens the feature promotes most)
and the largest KL to the unsteered model show where steering works and where it breaks the model.
<b>Search</b> finds features by a token they promote or fire on.</p>
<p><b>No SAE? Steer with contrastive pairs.</b> Set <b>Direction</b> to <i>Contrastive pairs</i>, type pairs one a
line as <code>positive&lt;Tab&gt;negative</code> (e.g. <i>I love this film</i> ⇥ <i>I hate this film</i>) or name a
pairs file (the same lines, or JSON, as <code>lm-workbench steer --pairs</code> reads), and pick a <b>Site</b> (the
middle block's <code>hook_resid_post</code> at first). The direction is the mean over the pairs of the site's
activation at the positive prompt's last token minus at the negative's (contrastive activation addition), added
× strength; <b>Layer grid</b> averages the pairs again at each block's own site, scoring the <b>Concept</b> words
(empty: the three tokens the direction promotes most).</p>
"""
