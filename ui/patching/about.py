"""The Patching tab's "About this view" text (HTML)."""

TITLE = "Patching"

HTML = """
<h3>Where in the model the answer is made: activation patching</h3>
<p>Causal tracing (Meng et al. 2022). Run a <b>clean</b> text (<i>The Eiffel Tower is in</i>) and a
<b>corrupted</b> one of the same token length (<i>The Colosseum is in</i>). The metric is the logit of the
<b>answer</b> token at the predicted position (decoders: after the last token; masked LMs: at the mask;
encoder-decoders: at the chosen output token),
minus the logit of a <b>wrong</b> token when one is given. Then, for every layer <i>l</i> and token <i>t</i>,
run the corrupted text again with one activation at (<i>l</i>, <i>t</i>) restored from the clean run:
the block's output (<code>resid</code>), its attention's output (<code>attn</code>) or its MLP's output
(<code>mlp</code>). Each cell is the recovered fraction
<span class="f">(patched − corrupted) / (clean − corrupted)</span>: 1 (red) where that one activation gives
back the whole clean answer, 0 where it gives back nothing, negative (blue) where it pushes the other way.</p>
<p><b>Corrupt by noise on the subject</b> is the paper's own corruption: no second text; the clean text runs
with Gaussian noise added to the word embeddings of the subject's tokens (std 3 × the embedding matrix's std),
and every metric is the mean over 10 seeded noise draws.</p>
<p><b>Fast (gradient)</b> is attribution patching (Nanda 2023): instead of one patched run per cell, each
cell is <span class="f">(clean − corrupted activation) · ∂metric/∂activation</span> at the corrupted run, divided
by clean − corrupted like the exact cells, so the whole heatmap comes from one forward and one backward pass. It
is a first-order approximation: good where the metric is close to linear in that activation, off where attention
or a layer norm bends the path. <b>Refine exactly</b> then runs the exact sweep and the line under the heatmap
gives the two matrices' Pearson correlation and the 5 cells where they disagree most.</p>
<p><b>Encoder-decoders</b> (BART, T5): the metric is read at the decoder's <b>output position</b> (0: the first
output token), the decoder reading its start token and the model's own greedy output before it; the corrupted
run decodes that same output, so only the encoder's input differs. The sites are the decoder's block output
(<code>resid</code>), self-attention (<code>attn</code>), cross-attention (<code>cross-attn</code>: what the decoder
reads from the encoder) and MLP (<code>mlp</code>), with a column per decoder token, and the encoder's block
output (<code>enc-resid</code>), self-attention (<code>enc-attn</code>) and MLP (<code>enc-mlp</code>), with a
column per input token. Noise on the subject goes on the encoder's word embeddings.</p>
<p>Rows fill in layer by layer while it runs; Cancel keeps the layers done so far. When both texts give the
same metric there is nothing to recover and every cell is 0.</p>
"""
