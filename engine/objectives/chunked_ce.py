"""A linear head and its cross-entropy computed in chunks of rows, without a full logits tensor.

``linear_cross_entropy(hidden, weight, bias, labels)`` equals
``F.cross_entropy(hidden @ weight.T + bias, labels, ignore_index=-100)`` (the
mean over the scored rows; 0 when none is scored) and has the same gradients
within float rounding. The logits of ``chunk_rows`` rows at a time are
computed, turned into that chunk's loss and its gradient (softmax minus the
one-hot label, over the number of scored rows), and the gradient is pushed
through the head at once: ``grad_hidden = g @ W`` and ``grad_W += g.T @ h``.
So the forward pass does the three matrix products the backward pass would
have done, nothing is recomputed, and the largest temporary is one chunk's
logits (a few MB, which the allocator reuses from chunk to chunk instead of
mapping and zero-filling a fresh [rows, vocab] block every step). The saved
gradients are scaled by the incoming gradient in ``backward``.

Under autocast (bf16) the products run in the autocast dtype and the softmax
in float32; gradients come back in the dtypes of the inputs. With no gradient
wanted (validation) only the loss is computed.
"""

from __future__ import annotations

import torch

from lm_workbench.engine.objectives.preview import IGNORE_INDEX

# float32 logits per chunk: under glibc's 32 MB mmap threshold. On the 2-core VM (one thread, tiny GPT-2, 8k
# vocabulary) 256-512 rows a chunk took ~7% less CPU time a step than 128 rows; 1024 gained nothing more.
CHUNK_BYTES = 8 * 2**20
MIN_CHUNK_ROWS = 128  # matrix products over fewer rows lose efficiency (large vocabularies)


def default_chunk_rows(vocab_size: int) -> int:
    """Rows per chunk so one chunk's float32 logits take about ``CHUNK_BYTES`` (at least ``MIN_CHUNK_ROWS``)."""
    return max(MIN_CHUNK_ROWS, CHUNK_BYTES // (4 * max(1, int(vocab_size))))


def _compute_dtype(device_type: str) -> torch.dtype:
    if torch.is_autocast_enabled(device_type):
        return torch.get_autocast_dtype(device_type)
    return torch.float32


def _chunks(n: int, rows: int) -> range:
    return range(0, n, max(1, rows))


def _chunk_logits(h: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
    logits = h @ w.t() if b is None else torch.addmm(b.to(h.dtype), h, w.t())
    return logits.float()


def _loss_only(hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, labels: torch.Tensor,
               rows: int) -> torch.Tensor:
    dtype = _compute_dtype(hidden.device.type)
    with torch.autocast(hidden.device.type, enabled=False):
        w = weight.to(dtype)
        total = torch.zeros((), dtype=torch.float32, device=hidden.device)
        for start in _chunks(hidden.shape[0], rows):
            y = labels[start:start + rows]
            logits = _chunk_logits(hidden[start:start + rows].to(dtype), w, bias)
            valid = y != IGNORE_INDEX
            picked = logits.gather(1, y.clamp(min=0)[:, None]).squeeze(1)
            total += ((torch.logsumexp(logits, dim=-1) - picked) * valid).sum()
        return total / (labels != IGNORE_INDEX).sum().clamp(min=1)


class _LinearCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, weight, bias, labels, rows):  # noqa: ANN001
        device_type = hidden.device.type
        dtype = _compute_dtype(device_type)
        with torch.autocast(device_type, enabled=False):
            w = weight.to(dtype)
            count = (labels != IGNORE_INDEX).sum().clamp(min=1).float()
            grad_hidden = torch.empty(hidden.shape, dtype=hidden.dtype, device=hidden.device)
            grad_weight = torch.zeros(weight.shape, dtype=torch.float32, device=weight.device)
            grad_bias = None if bias is None else torch.zeros(bias.shape, dtype=torch.float32, device=bias.device)
            total = torch.zeros((), dtype=torch.float32, device=hidden.device)
            for start in _chunks(hidden.shape[0], rows):
                h = hidden[start:start + rows].to(dtype)
                y = labels[start:start + rows]
                valid = (y != IGNORE_INDEX)
                target = y.clamp(min=0)[:, None]
                logits = _chunk_logits(h, w, bias)
                picked = logits.gather(1, target).squeeze(1)
                top = logits.amax(dim=1)
                e = logits.sub_(top[:, None]).exp_()  # exp(logits - max), in the logits' own buffer
                norm = e.sum(dim=1)
                total += ((top + norm.log() - picked) * valid).sum()  # logsumexp - the label's logit
                coef = valid.float() / count
                g = e.mul_((coef / norm)[:, None])  # softmax x (scored / count): one pass
                g.scatter_add_(1, target, -coef[:, None])  # minus the one-hot label
                g = g.to(dtype)
                if dtype == torch.float32 and hidden.dtype == torch.float32:  # straight into the buffers
                    torch.mm(g, w, out=grad_hidden[start:start + rows])
                    grad_weight.addmm_(g.t(), h)
                else:
                    grad_hidden[start:start + rows] = (g @ w).to(hidden.dtype)
                    grad_weight += (g.t() @ h).float()
                if grad_bias is not None:
                    grad_bias += g.float().sum(0)
        ctx.save_for_backward(grad_hidden, grad_weight.to(weight.dtype),
                              None if grad_bias is None else grad_bias.to(bias.dtype))
        return total / count

    @staticmethod
    def backward(ctx, grad_output):  # noqa: ANN001
        grad_hidden, grad_weight, grad_bias = ctx.saved_tensors
        scale = grad_output.to(torch.float32)
        return (grad_hidden * scale.to(grad_hidden.dtype), grad_weight * scale.to(grad_weight.dtype),
                None if grad_bias is None else grad_bias * scale.to(grad_bias.dtype), None, None)


def linear_cross_entropy(hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                         labels: torch.Tensor, chunk_rows: int = 0) -> torch.Tensor:
    """Mean cross-entropy of ``labels`` [N] under ``hidden`` [N, H] @ ``weight`` [V, H].T (+ ``bias`` [V]).

    Labels of -100 are not scored; 0 (with a graph) when none is. See the
    module docstring for how it is computed.
    """
    hidden = hidden.reshape(-1, hidden.shape[-1])
    labels = labels.reshape(-1)
    rows = int(chunk_rows) or default_chunk_rows(weight.shape[0])
    wants_grad = torch.is_grad_enabled() and any(
        t is not None and t.requires_grad for t in (hidden, weight, bias))
    if not wants_grad:
        return _loss_only(hidden, weight, bias, labels, rows)
    return _LinearCrossEntropy.apply(hidden, weight, bias, labels, rows)


__all__ = ["CHUNK_BYTES", "MIN_CHUNK_ROWS", "default_chunk_rows", "linear_cross_entropy"]
