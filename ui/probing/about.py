"""The Probing tab's title and About text."""

TITLE = "Probing"

HTML = """
<p><b>What does each layer encode?</b> A <b>linear probe</b> (logistic regression) is trained on one layer's
vectors to predict a label (a word's part of speech, a sentence's class) and scored on held-out sentences.
High accuracy says the label can be read off that layer linearly.</p>
<p>The <b>control task</b> (Hewitt &amp; Liang 2019) gives every word <i>type</i> a random label, drawn once
from the training labels' distribution. A probe that does well on it is memorising words, not reading the
property: <b>selectivity</b> = task accuracy &minus; control accuracy. For sentence tasks the control shuffles
the labels across sentences. The grey line is the majority-class rate.</p>
<p><b>Sentence similarity</b> (right): each pair of an STS file is scored by the cosine of the two pooled sentence
vectors at every layer; Spearman's &rho; against the gold scores says how well that layer ranks the pairs
(Reimers &amp; Gurevych 2019). The demo sets are built in: 400 sentences with Universal POS tags, and 66 scored
sentence pairs. Every sweep is stored as a run (see the Runs tab).</p>
"""
