"""The Retrieval tab's title and About text."""

TITLE = "Retrieval"

HTML = """
<p><b>Encoders for information retrieval.</b> Every passage of a corpus is encoded once into one vector (the
last layer's token vectors pooled: mean, first token [CLS], element-wise max, or the model's own pooling) and
normalised; a query is encoded the same way, and the passages are ranked by cosine, exactly (one matrix
product). <b>BM25</b> (the <code>bm25s</code> library; its k1, b and variant are shown) ranks the same corpus
by the query's words, beside it. The query's words are highlighted in both lists.</p>
<p>Raw BERT vectors are poor at this: in the S-BERT paper (Reimers &amp; Gurevych 2019) averaged BERT embeddings
reach 46.35 and the [CLS] vector 16.50 Spearman on STS-B, against 77&ndash;79 for S-BERT, which fine-tunes BERT
as a siamese network (e.g. with the triplet objective max(&#8214;s<sub>a</sub> &minus; s<sub>p</sub>&#8214; &minus;
&#8214;s<sub>a</sub> &minus; s<sub>n</sub>&#8214; + &epsilon;, 0)) so that similar sentences lie close.
all-MiniLM-L6-v2, the built-in model, is such a sentence encoder.</p>
<p>A <b>BEIR folder</b> (<code>corpus.jsonl</code>, <code>queries.jsonl</code>, <code>qrels/test.tsv</code>) or the
demo adds <b>Evaluate</b>: nDCG@10 (linear gain, as trec_eval), MRR@10 and Recall@1/10/100 for the model and
BM25 side by side, and the queries where the model wins or loses against BM25. The index is cached on disk by
model, pooling and corpus, so indexing again is instant, and a cancelled indexing resumes where it stopped.
With <b>Compare with…</b> (model B), B searches the same corpus beside A.</p>
"""
