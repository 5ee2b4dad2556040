"""One torch thread while the retrieval tests run (restored after): their models are tiny, and on a shared
2-core machine two threads of such small matrices wait on each other far more than they gain."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


