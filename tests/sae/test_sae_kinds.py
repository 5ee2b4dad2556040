"""Each SAE kind's forward and loss against the formulas written here (SAELens v6's definitions), the decoder's
unit norm where the kind requires it, and folding the normalisation into the weights."""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sae.kinds import SparseAutoencoder


def _sae(kind, sparsity, d_in=6, d_sae=10, seed=1):
    sae = SparseAutoencoder(kind, d_in, d_sae, sparsity, seed=seed)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():  # every parameter random, so no term is trivially zero
        for p in sae.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
    return sae


def _expected(kind, sae, x, sparsity):
    w_enc, b_enc, w_dec, b_dec = (t.detach() for t in (sae.W_enc, sae.b_enc, sae.W_dec, sae.b_dec))
    pre = (x - b_dec) @ w_enc + b_enc
    if kind == "standard":
        f = pre.clamp(min=0)
    elif kind == "topk":
        f = torch.zeros_like(pre)
        for n in range(len(pre)):
            order = sorted(range(pre.shape[1]), key=lambda i: -float(pre[n, i]))[: int(sparsity)]
            for i in order:
                f[n, i] = max(float(pre[n, i]), 0.0)
    else:
        theta = sae.log_threshold.detach().exp()
        f = torch.where(pre > theta, pre, torch.zeros_like(pre))
    recon = f @ w_dec + b_dec
    mse = ((recon - x) ** 2).sum(1).mean()
    if kind == "standard":
        penalty = sparsity * (f * w_dec.norm(dim=1)).sum(1).mean()
    elif kind == "topk":
        penalty = torch.tensor(0.0)
    else:
        penalty = sparsity * (pre > sae.log_threshold.detach().exp()).float().sum(1).mean()
    return f, recon, mse + penalty, mse


@pytest.mark.parametrize("kind, sparsity", [("standard", 0.3), ("topk", 3), ("jumprelu", 0.05)])
def test_forward_and_loss_follow_the_formulas(kind, sparsity):
    sae = _sae(kind, sparsity)
    x = torch.randn(7, 6, generator=torch.Generator().manual_seed(5))
    f, recon, total, mse = _expected(kind, sae, x, sparsity)
    assert torch.allclose(sae.encode(x), f, atol=1e-6)
    assert torch.allclose(sae(x), recon, atol=1e-5)
    loss = sae.loss(x)
    assert float(loss.total.detach()) == pytest.approx(float(total), rel=1e-5)
    assert float(loss.mse) == pytest.approx(float(mse), rel=1e-5)
    assert float(loss.l0) == pytest.approx(float((f > 0).float().sum(1).mean()))
    if kind == "topk":
        assert ((sae.encode(x) > 0).sum(1) <= 3).all()


def test_jumprelu_threshold_gets_the_straight_through_gradient():
    """d loss / d theta_i of the L0 term is -(c/eps) * #{n: |pre_ni - theta_i| < eps/2} / N (rectangle kernel)."""
    sae = SparseAutoencoder("jumprelu", 4, 3, 1.0, bandwidth=0.5)
    with torch.no_grad():
        sae.W_enc.copy_(torch.eye(4)[:, :3])
        sae.b_dec.zero_(), sae.b_enc.zero_()
        sae.log_threshold.fill_(0.0)  # theta = 1
    x = torch.tensor([[1.1, 0.5, 2.0, 0.0], [0.9, 1.2, 1.0, 0.0]])  # pre = x[:, :3]
    pre = x[:, :3]
    sae.W_dec.requires_grad_(False), sae.W_enc.requires_grad_(False)
    sparsity_term = (sae.loss(x).total - sae.loss(x).mse).detach()  # the L0 term
    (grad,) = torch.autograd.grad(sae.loss(x).total - sae.loss(x).mse.detach(), sae.log_threshold)
    theta = torch.ones(3)
    near = ((pre - theta).abs() < 0.25).float()
    # L0 term's d/dtheta, plus the MSE's through the JumpReLU: -(theta/eps) K * dMSE/df
    f = torch.where(pre > theta, pre, torch.zeros_like(pre))
    recon = f @ sae.W_dec + sae.b_dec
    d_f = (2 * (recon - x) @ sae.W_dec.t()) / 2  # d mean_n sum_d (.)^2 / d f, mean over the 2 rows
    expected_theta = -(1.0 / 0.5) * near.sum(0) / 2 - (theta / 0.5) * (near * d_f).sum(0)
    assert float(sparsity_term) == pytest.approx(float((pre > 1).float().sum(1).mean()))
    assert torch.allclose(grad, expected_theta * theta, atol=1e-5)  # chain rule through theta = exp(log theta)


@pytest.mark.parametrize("kind", ["topk", "jumprelu"])
def test_unit_norm_kinds_keep_decoder_rows_at_unit_norm(kind):
    sae = SparseAutoencoder(kind, 8, 16, 4 if kind == "topk" else 1e-3)
    opt = torch.optim.Adam(sae.parameters(), lr=0.1)
    x = torch.randn(32, 8, generator=torch.Generator().manual_seed(0))
    for _ in range(3):
        opt.zero_grad()
        sae.loss(x).total.backward()
        sae.remove_parallel_gradient()
        opt.step()
        sae.normalise_decoder()
    assert torch.allclose(sae.W_dec.norm(dim=1), torch.ones(16), atol=1e-5)


def test_folding_the_scaling_reads_raw_activations():
    sae = _sae("jumprelu", 0.1)
    x = torch.randn(5, 6, generator=torch.Generator().manual_seed(2)) * 7
    s = 0.37
    expected_f = sae.encode(x * s).detach()
    expected = (sae(x * s) / s).detach()
    sae.fold_scaling(s)
    assert torch.allclose(sae.encode(x), expected_f, atol=1e-5)
    assert torch.allclose(sae(x), expected, atol=1e-5)


@pytest.mark.parametrize("args, says", [(("relu2", 4, 8), "architecture"), (("topk", 4, 8, 9), "k <= d_sae")])
def test_bad_settings_are_one_line(args, says):
    with pytest.raises(WorkbenchError, match=says):
        SparseAutoencoder(*args)
