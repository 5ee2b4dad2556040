"""Reading the data users bring, in the field's standard formats (no Qt).

    table.py   the one table reader: TSV (quotes are text), CSV (RFC 4180), JSON Lines; skipped rows reported
    rows.py    what the readers return: rows, a table, the report of what was kept and skipped
    conll.py   CoNLL-2003 and CoNLL-U word/tag files
    squad.py   SQuAD 1.1 and 2.0 question answering
    hub_datasets.py  datasets already in the local Hugging Face ``datasets`` cache, by name
    tasks.py   the task formats (sentence classification, BIO tags, QA, seq2seq) as examples, read with the
               readers above, and a seeded train/validation split: fine-tuning's data, and prompting's
"""
