"""Maths more than one feature uses, with no model in it (numpy and the standard library only; no Qt, no torch).

    metrics.py     scores of predictions against gold answers: classification (accuracy, macro F1, MCC), BIO
                   entities, SQuAD exact match / F1, ROUGE (fine-tuning's validation, prompting's evaluation)
    similarity.py  how alike two representations of the same items are: linear CKA, mean cosine
                   (fine-tuning's layer shift, the Compare tab's layer x layer CKA)
"""
