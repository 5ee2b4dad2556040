"""Reading the data users bring, in the field's standard formats (no Qt).

    table.py   the one table reader: TSV, CSV (RFC 4180), JSON Lines; skipped rows reported
    tsv_quoting.py  how a TSV file quotes: GLUE's way (quotes are text) or the csv writers' (pandas, Excel),
               decided once per file from stated evidence (``--tsv-quoting auto|literal|csv``)
    rows.py    what the readers return: rows, a table, the report of what was kept and skipped
    conll.py   CoNLL-2003 and CoNLL-U word/tag files
    squad.py   SQuAD 1.1 and 2.0 question answering
    hub_datasets.py  datasets already in the local Hugging Face ``datasets`` cache, by name
    tasks.py   the task formats (sentence classification, BIO tags, QA, seq2seq) as examples, read with the
               readers above, and a seeded train/validation split: fine-tuning's data, and prompting's
"""
