"""Independent computations for the tuned-lens tests (tests/lens): plain transformers and torch, none of the engine's code."""

from __future__ import annotations

from pathlib import Path

import torch


def corpus_file(folder: Path, lines: int = 300) -> Path:
    """The first ``lines`` lines (over 20 characters) of Python's pydoc topics, as a text file."""
    from pydoc_data.topics import topics

    out: list[str] = []
    for text in topics.values():
        out.extend(line.strip() for line in text.splitlines() if len(line.strip()) > 20)
        if len(out) >= lines:
            break
    path = folder / "corpus.txt"
    path.write_text("\n".join(out[:lines]) + "\n", encoding="utf-8")
    return path


def reference_kl(model, ids: torch.Tensor, weight: torch.Tensor | None = None, bias: torch.Tensor | None = None
                 ) -> list[float]:
    """Per hidden state l of a GPT-2 ``model`` on ``ids`` [1, T]: mean over positions of KL(p_L || p_l), where
    p_l = softmax(lm_head(ln_f(T_l(h_l)))) for l < L (T_l(h) = h + h W_l^T + b_l, the identity without
    ``weight``) and p_L = softmax(lm_head(h_L)), h_L being already normed by transformers (checked against the
    model's own logits here)."""
    with torch.no_grad():
        out = model(input_ids=ids, output_hidden_states=True)
        hidden = out.hidden_states
        n = len(hidden)
        final = torch.log_softmax(model.lm_head(hidden[-1][0]).double(), -1)
        assert torch.allclose(final, torch.log_softmax(out.logits[0].double(), -1), atol=1e-5)
        kl = []
        for i in range(n - 1):
            h = hidden[i][0].double()
            if weight is not None:
                h = h + h @ weight[i].double().T + bias[i].double()
            logits = model.lm_head(model.transformer.ln_f(h.float())).double()
            q = torch.log_softmax(logits, -1)
            kl.append(float((final.exp() * (final - q)).sum(-1).mean()))
        return kl + [0.0]
