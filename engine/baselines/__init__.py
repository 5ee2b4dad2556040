"""Baselines the lectures compare pre-trained models against: TF-IDF features + logistic regression
(``tfidf``) and a BiLSTM sentence classifier trained from scratch (``bilstm``). Both take lists of texts and
labels; reading files is the caller's (``lm_workbench.baselines``)."""
