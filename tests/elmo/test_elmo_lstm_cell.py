"""The LSTM with projection and clipping equals TensorFlow's LSTMCell equations, step by step."""

from __future__ import annotations

import numpy as np
import torch

from lm_workbench.engine.elmo.lstm_cell import LstmWithProjection, reverse_valid
from tests.support.elmo_reference import tf_lstm_step, one_torch_thread  # noqa: F401 (autouse fixture)

I, D, P = 3, 5, 4
CELL_CLIP, PROJ_CLIP = 0.5, 0.3


def _tf_weights(seed: int = 0):
    rng = np.random.default_rng(seed)
    kernel = rng.normal(0, 1.2, (I + P, 4 * D))  # TF's W_0: [x; h] rows, i j f o columns
    bias = rng.normal(0, 1.0, 4 * D)  # TF's B, without the forget bias
    w_proj = rng.normal(0, 1.0, (D, P))
    return kernel, bias, w_proj


def _cell(kernel, bias, w_proj, go_forward=True) -> LstmWithProjection:
    lstm = LstmWithProjection(I, D, P, CELL_CLIP, PROJ_CLIP, go_forward=go_forward)
    folded = bias.copy()
    folded[2 * D : 3 * D] += 1.0  # TF's forget_bias, folded into the bias
    with torch.no_grad():
        lstm.input_weight.copy_(torch.tensor(kernel[:I]))
        lstm.hidden_weight.copy_(torch.tensor(kernel[I:]))
        lstm.bias.copy_(torch.tensor(folded))
        lstm.projection.copy_(torch.tensor(w_proj))
    return lstm


def test_sequence_equals_tf_cell_steps_with_both_clips_active():
    kernel, bias, w_proj = _tf_weights()
    lstm = _cell(kernel, bias, w_proj)
    x = np.random.default_rng(1).normal(0, 2.0, (2, 6, I))
    got = lstm(torch.tensor(x, dtype=torch.float32), torch.ones(2, 6, dtype=torch.bool)).detach().numpy()

    h, c = np.zeros((2, P)), np.zeros((2, D))
    cell_clipped = proj_clipped = 0
    for t in range(6):
        h, c, c_raw, m_raw = tf_lstm_step(x[:, t], h, c, kernel, bias, w_proj, CELL_CLIP, PROJ_CLIP)
        cell_clipped += int((np.abs(c_raw) > CELL_CLIP).sum())
        proj_clipped += int((np.abs(m_raw) > PROJ_CLIP).sum())
        np.testing.assert_allclose(got[:, t], h, atol=1e-5, rtol=1e-5)
    assert cell_clipped > 0 and proj_clipped > 0  # both clips changed values in this run


def test_a_gate_order_other_than_ijfo_or_no_forget_bias_would_differ():
    kernel, bias, w_proj = _tf_weights()
    lstm = _cell(kernel, bias, w_proj)
    x = np.random.default_rng(2).normal(0, 1.0, (1, 4, I))
    got = lstm(torch.tensor(x, dtype=torch.float32), torch.ones(1, 4, dtype=torch.bool)).detach().numpy()[0]

    def reference(**kw):
        h, c, out = np.zeros((1, P)), np.zeros((1, D)), []
        for t in range(4):
            h, c, _, _ = tf_lstm_step(x[:, t], h, c, kernel, bias, w_proj, CELL_CLIP, PROJ_CLIP, **kw)
            out.append(h[0])
        return np.stack(out)

    np.testing.assert_allclose(got, reference(), atol=1e-5)
    assert np.abs(got - reference(gate_order="ifjo")).max() > 1e-2  # PyTorch's order
    assert np.abs(got - reference(gate_order="fjio")).max() > 1e-2  # i and f swapped
    assert np.abs(got - reference(forget_bias=0.0)).max() > 1e-2


def test_padded_batch_equals_each_sequence_alone_in_both_directions():
    kernel, bias, w_proj = _tf_weights(3)
    x = torch.randn(3, 7, I)
    lengths = [4, 7, 1]  # not sorted: rows are run longest first and put back
    mask = torch.arange(7).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    padded = x * mask.unsqueeze(-1) + 5.0 * (~mask).unsqueeze(-1)  # junk in the padding must not leak
    for go_forward in (True, False):
        lstm = _cell(kernel, bias, w_proj, go_forward)
        batch = lstm(padded, mask).detach()
        for b, n in enumerate(lengths):
            alone = lstm(x[b : b + 1, :n], torch.ones(1, n, dtype=torch.bool)).detach()
            torch.testing.assert_close(batch[b, :n], alone[0], atol=1e-6, rtol=1e-5)
            assert batch[b, n:].eq(0).all()


def test_backward_direction_reads_the_valid_part_reversed():
    kernel, bias, w_proj = _tf_weights(4)
    x = torch.randn(1, 5, I)
    backward = _cell(kernel, bias, w_proj, go_forward=False)
    forward = _cell(kernel, bias, w_proj, go_forward=True)
    ones = torch.ones(1, 5, dtype=torch.bool)
    torch.testing.assert_close(backward(x, ones), forward(x.flip(1), ones).flip(1))
    # reverse_valid leaves padding where it is and is its own inverse
    seq = torch.arange(10.0).view(2, 5, 1)
    rev = reverse_valid(seq, torch.tensor([5, 3]))
    assert rev[:, :, 0].tolist() == [[4, 3, 2, 1, 0], [7, 6, 5, 8, 9]]
    assert torch.equal(reverse_valid(rev, torch.tensor([5, 3])), seq)


def test_inference_path_equals_the_autograd_path():
    kernel, bias, w_proj = _tf_weights(5)
    lstms = [_cell(kernel, bias, w_proj, True), _cell(kernel, bias, w_proj, False)]
    x = torch.randn(2, 6, I)
    mask = torch.arange(6).unsqueeze(0) < torch.tensor([[3], [6]])
    with_grad = [lstm(x, mask) for lstm in lstms]
    assert all(t.requires_grad for t in with_grad)
    with torch.inference_mode():  # in-place steps
        without = [lstm(x, mask) for lstm in lstms]
    for a, b in zip(with_grad, without):
        torch.testing.assert_close(a.detach(), b)


def test_without_projection_the_output_is_the_clipped_cell_output():
    rng = np.random.default_rng(6)
    kernel, bias = rng.normal(0, 1.2, (I + D, 4 * D)), rng.normal(0, 1.0, 4 * D)
    lstm = LstmWithProjection(I, D, D, CELL_CLIP, PROJ_CLIP)
    assert lstm.projection is None and "projection" not in dict(lstm.named_parameters())
    folded = bias.copy()
    folded[2 * D : 3 * D] += 1.0
    with torch.no_grad():
        lstm.input_weight.copy_(torch.tensor(kernel[:I]))
        lstm.hidden_weight.copy_(torch.tensor(kernel[I:]))
        lstm.bias.copy_(torch.tensor(folded))
    x = rng.normal(0, 1.0, (1, 3, I))
    got = lstm(torch.tensor(x, dtype=torch.float32), torch.ones(1, 3, dtype=torch.bool)).detach().numpy()
    h, c = np.zeros((1, D)), np.zeros((1, D))
    for t in range(3):
        h, c, _, _ = tf_lstm_step(x[:, t], h, c, kernel, bias, None, CELL_CLIP, PROJ_CLIP)
        np.testing.assert_allclose(got[:, t], h, atol=1e-5)
