"""Small files in the exact shape the field publishes them (the sentences are ours, the layout theirs).

GLUE's TSVs are tab-separated with no quoting at all: a sentence may hold a lone ``"``; STS-B has ten columns
with the pair in 8 and 9 and the score in 10; test files have an index and no label. CoNLL-2003 is
``word POS chunk NER`` in IOB1 (an entity starts with I- unless it follows one of its own type), with
``-DOCSTART-`` lines; CoNLL-U has ten tab-separated columns, comment lines, multiword ranges and empty nodes.
"""

SST2_TRAIN = (
    "sentence\tlabel\n"
    "a warm , funny and \" honest \" little film \t1\n"
    "the plot 's \" twist is visible from the first reel \t0\n"
    "it never quite earns its \" big \" ending \t0\n"
    "\" a delight , \" says everyone who sees it \t1\n"
    "dull , slow and far too long \t0\n"
    "the cast is having a \" ball \" and so are we \t1\n"
)

SST2_TEST = "index\tsentence\n0\tan \" odd \" little film \n1\ta pleasure from start to finish \n"

RTE_DEV = (
    "index\tsentence1\tsentence2\tlabel\n"
    "0\tThe \"Blue Ferry\" sails from Oslo to Kiel every night.\tA ferry sails to Kiel.\tentailment\n"
    "1\tAnna said \"no\" to the offer.\tAnna accepted the offer.\tnot_entailment\n"
    "2\tThe museum opened in 1901.\tThe museum is more than a century old.\tentailment\n"
    "3\tHe wrote \"6\" on the board.\tHe wrote a letter.\tnot_entailment\n"
)

STSB_HEADER = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n"
STSB_PAIRS = [
    ("A man is playing a guitar.", "A man plays the guitar.", "4.800"),
    ("He said \"no.", "He said \"yes.\"", "1.200"),
    ("A woman is slicing an onion.", "A woman is cutting an onion.", "4.200"),
    ("\"Stop,\" she shouted.", "She shouted at them to stop.", "3.800"),
    ("A dog runs in the park.", "A cat sleeps on the sofa.", "0.400"),
    ("The \"new\" bridge opened today.", "A bridge opened today.", "3.600"),
    ("Two kids play football.", "Children are playing soccer.", "4.000"),
    ("The market fell 3%.", "Stocks dropped sharply.", "2.500"),
]


def stsb_dev(pairs=STSB_PAIRS) -> str:
    rows = [f"{i}\tmain-captions\tMSRvid\t2012test\t{i:04d}\tnone\tnone\t{a}\t{b}\t{s}\n"
            for i, (a, b, s) in enumerate(pairs)]
    return STSB_HEADER + "".join(rows)


# CoNLL-2003 as published: IOB1, a -DOCSTART- line and a blank line before each document.
CONLL2003_IOB1 = (
    "-DOCSTART- -X- -X- O\n"
    "\n"
    "Oslo NNP I-NP I-LOC\n"
    "hosts VBZ I-VP O\n"
    "Nordic JJ I-NP I-MISC\n"
    "chess NN I-NP O\n"
    "week NN I-NP O\n"
    ". . O O\n"
    "\n"
    "They PRP I-NP O\n"
    "gave VBD I-VP O\n"
    "Anna NNP I-NP I-PER\n"
    "Berg NNP I-NP I-PER\n"
    "Ola NNP I-NP B-PER\n"
    "a DT I-NP O\n"
    "prize NN I-NP O\n"
    ". . O O\n"
    "\n"
    "-DOCSTART- -X- -X- O\n"
    "\n"
    "Bergen NNP I-NP I-LOC\n"
    "won VBD I-VP O\n"
    ". . O O\n"
)
CONLL2003_WORDS = [["Oslo", "hosts", "Nordic", "chess", "week", "."],
                   ["They", "gave", "Anna", "Berg", "Ola", "a", "prize", "."],
                   ["Bergen", "won", "."]]
CONLL2003_NER_IOB2 = [["B-LOC", "O", "B-MISC", "O", "O", "O"],
                      ["O", "O", "B-PER", "I-PER", "B-PER", "O", "O", "O"],
                      ["B-LOC", "O", "O"]]
CONLL2003_POS = [["NNP", "VBZ", "JJ", "NN", "NN", "."],
                 ["PRP", "VBD", "NNP", "NNP", "NNP", "DT", "NN", "."],
                 ["NNP", "VBD", "."]]

# CoNLL-U: comments, a multiword range (2-3) and an empty node (5.1, an elided verb).
CONLLU = (
    "# sent_id = s1\n"
    "# text = I can't swim.\n"
    "1\tI\tI\tPRON\tPRP\tCase=Nom|Number=Sing|Person=1\t4\tnsubj\t_\t_\n"
    "2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "2\tca\tcan\tAUX\tMD\tVerbForm=Fin\t4\taux\t_\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n"
    "4\tswim\tswim\tVERB\tVB\tVerbForm=Inf\t0\troot\t_\tSpaceAfter=No\n"
    "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n"
    "\n"
    "# sent_id = s2\n"
    "# text = Sue likes tea and Bob coffee.\n"
    "1\tSue\tSue\tPROPN\tNNP\tNumber=Sing\t2\tnsubj\t_\t_\n"
    "2\tlikes\tlike\tVERB\tVBZ\tNumber=Sing\t0\troot\t_\t_\n"
    "3\ttea\ttea\tNOUN\tNN\tNumber=Sing\t2\tobj\t_\t_\n"
    "4\tand\tand\tCCONJ\tCC\t_\t5\tcc\t_\t_\n"
    "5\tBob\tBob\tPROPN\tNNP\tNumber=Sing\t2\tconj\t5.1:nsubj\t_\n"
    "5.1\tlikes\tlike\tVERB\tVBZ\t_\t_\t_\t2:conj\tCopyOf=2\n"
    "6\tcoffee\tcoffee\tNOUN\tNN\tNumber=Sing\t5\torphan\t5.1:obj\tSpaceAfter=No\n"
    "7\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n"
    "\n"
)
CONLLU_WORDS = [["I", "ca", "n't", "swim", "."], ["Sue", "likes", "tea", "and", "Bob", "coffee", "."]]
CONLLU_UPOS = [["PRON", "AUX", "PART", "VERB", "PUNCT"], ["PROPN", "VERB", "NOUN", "CCONJ", "PROPN", "NOUN", "PUNCT"]]

# Rows of GLUE's SST-2 and STS-B validation splits as the datasets library holds them (label ids, float scores).
SST2_ROWS = [('a " bold " and funny film', 1), ("dull , slow and long", 0), ("a delight", 1), ("not worth it", 0)]
STSB_ROWS = [("A man plays a guitar.", "A man is playing guitar.", 4.8), ("A dog runs.", "A cat sleeps.", 0.4),
        ("Kids play football.", "Children play soccer.", 4.0), ('He said "no.', "He agreed.", 1.0)]
