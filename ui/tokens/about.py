"""The Tokens tab's "About this view" text (HTML)."""

TITLE = "Tokens"

HTML = """
<h3>How the model splits text into tokens</h3>
<p>A language model never sees characters or words, only ids from a fixed vocabulary of
<b>subword</b> pieces. Frequent words are one piece; rare words are spelled with several,
so any text can be written with a vocabulary of some 30&nbsp;000&ndash;50&nbsp;000 entries.
Each rounded box above is one word (as the tokenizer's pre-tokenizer cut the text); thin
lines separate the subwords inside it. Grey chips are <b>special tokens</b> the model expects
(<code>[CLS]</code>, <code>[SEP]</code>, <code>&lt;s&gt;</code>&hellip;); they cover no text.
Tokens of the second sentence of a pair are tinted amber.</p>
<p><b>WordPiece</b> (BERT, MiniLM) splits a word greedily, longest match first:
<span class="f">piece<sub>k</sub> = the longest prefix of the rest of the word that is in the
vocabulary</span>; pieces after the first are written with a <code>##</code> prefix
(<code>unbelievably</code> &rarr; <code>un ##bel ##ie ##va ##bly</code>).
Its vocabulary is built by adding the merge that most increases the training likelihood,
<span class="f">score(a,b) = count(ab) / (count(a)&middot;count(b))</span>.</p>
<p><b>Byte-pair encoding</b> (GPT-2, BART, Llama) starts from single bytes and applies learned
merges in order; training repeatedly merges the most frequent adjacent pair,
<span class="f">(a,b) = argmax count(a,b)</span>. Byte-level BPE marks a leading space inside
the token: <code>&#x120;</code> (shown as <code>&#x2423;</code>), so no text is ever unknown.
SentencePiece models (T5) use <code>&#x2581;</code> the same way.</p>
<p><b>Offsets</b>: every token keeps the character span <code>[start, end)</code> of the text it
came from, so views can map a token back to the words you typed (hover a chip to see it).
Texts longer than the model's window are truncated; a banner says how much was cut.</p>
<p class="ref">Schuster &amp; Nakajima, <i>Japanese and Korean Voice Search</i>, ICASSP 2012;
Wu et al., <i>Google's Neural Machine Translation System</i>, 2016
(<a href="https://arxiv.org/abs/1609.08144">arXiv:1609.08144</a>);
Sennrich, Haddow &amp; Birch, <i>Neural Machine Translation of Rare Words with Subword Units</i>,
ACL 2016 (<a href="https://arxiv.org/abs/1508.07909">arXiv:1508.07909</a>);
Kudo &amp; Richardson, <i>SentencePiece</i>, EMNLP 2018
(<a href="https://arxiv.org/abs/1808.06226">arXiv:1808.06226</a>).</p>
"""
