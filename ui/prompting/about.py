"""The Prompting tab's title and About text."""

TITLE = "Prompting"

HTML = """
<h3>Pre-train, prompt, predict</h3>
<p>A <b>template</b> turns an input into a question the model already knows how to answer. <code>[x]</code>
is the input (<code>[x2]</code> the second text of a pair) and <code>[z]</code> the answer slot. For a
masked LM the slot becomes the mask token (a <b>cloze</b> prompt: <i>&ldquo;I loved it. Overall, it was a
[z] movie.&rdquo;</i>); for a left-to-right LM the slot must come last (a <b>prefix</b> prompt:
<i>&ldquo;&hellip; Overall, this movie is [z]&rdquo;</i>) and the answer is scored as its continuation.</p>
<p>A <b>verbalizer</b> maps each label to answer words: <span class="f">pos=great,good;neg=terrible,bad</span>.
A label's score is the log of its answers' summed probabilities; the probabilities shown are the softmax over
the labels' scores. An answer of several tokens is scored by the summed log-probability of its tokens (for a
masked LM: one mask per subword, filled left to right, or the pseudo-log-likelihood), optionally divided by
its length. <b>Score</b> (Ctrl+Enter) shows the prompt as the model reads it, each label's score and the
model's own top-k at the answer position: what it &ldquo;wanted&rdquo; to say.</p>
<p><b>Evaluate</b> runs one or more prompts over a labelled file: accuracy, macro-F1 and the confusion
matrix, side by side, because small changes of wording move accuracy a lot. <b>Contextual
calibration</b> (Zhao et al. 2021) measures the model's bias with content-free inputs (&ldquo;N/A&rdquo;,
&ldquo;&rdquo;, the mask token) in the same prompt, averages their label probabilities into
<i>p</i><sub>cf</sub>, and rescales every prediction: <span class="f">q = normalise(diag(p<sub>cf</sub>)<sup>-1</sup>
p)</span>. <b>Few-shot</b> puts <i>k</i> solved examples (random, balanced per label, or the most similar
by sentence embedding) before the input; accuracy against <i>k</i> over several seeds shows how much the
choice of demonstrations matters. <b>Generate</b> continues a prompt token by token, each token's
probability on hover.</p>
<p>The tiny course models have seen too little text for prompting to work: expect accuracy near chance.
Load a larger model (a folder or a cached hub model) to see it work.</p>
<p class="ref">Liu et al., <i>Pre-train, Prompt, and Predict</i>, ACM Computing Surveys 2023
(<a href="https://arxiv.org/abs/2107.13586">arXiv:2107.13586</a>);
Schick &amp; Sch&uuml;tze, <i>Exploiting Cloze Questions for Few Shot Text Classification</i>, EACL 2021;
Brown et al., <i>Language Models are Few-Shot Learners</i>, NeurIPS 2020;
Zhao et al., <i>Calibrate Before Use</i>, ICML 2021
(<a href="https://arxiv.org/abs/2102.09690">arXiv:2102.09690</a>);
Salazar et al., <i>Masked Language Model Scoring</i>, ACL 2020.</p>
"""
