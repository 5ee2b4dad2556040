"""The Logit lens tab's "About this view" text (HTML)."""

TITLE = "Logit lens"

HTML = """
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
<p><b>Tuned lens.</b> The last layer's basis need not be an earlier layer's, so the logit lens can be
unfair to early layers. The tuned lens learns one affine translator per layer,
<span class="f">T<sub>l</sub>(h) = h + W<sub>l</sub>h + b<sub>l</sub></span>, starting at the identity (so an
untrained tuned lens <i>is</i> the logit lens), by minimising
KL(p<sub>L</sub> &#8214; p<sub>l</sub>) to the model's own output over a corpus, the model frozen. "Train tuned
lens" fits them (a recorded run, saved next to the model); the switch then shows either lens, and the chart
below the grid gives each layer's KL to the output for both. A guide page or lecture step that asks for the
tuned lens trains it once; visited again with the same model, steps and corpus it loads that recorded run
(while its translators are still there) instead of training again.</p>
<p class="ref">nostalgebraist, <i>interpreting GPT: the logit lens</i>, LessWrong, 2020
(<a href="https://www.lesswrong.com/posts/AcKRB8wDpdaN6v6ru/interpreting-gpt-the-logit-lens">lesswrong.com</a>);
Belrose et al., <i>Eliciting Latent Predictions from Transformers with the Tuned Lens</i>, 2023
(<a href="https://arxiv.org/abs/2303.08112">arXiv:2303.08112</a>).</p>
"""
