"""Data-parallel training under ``torchrun``: torch's own DDP, no home-made distribution layer.

``torchrun --nproc_per_node N script.py`` sets ``WORLD_SIZE``, ``RANK``,
``LOCAL_RANK`` and the rendezvous address; when ``WORLD_SIZE > 1`` the loop
joins the process group (gloo on CPU, nccl on CUDA; an already initialised
group, e.g. from Accelerate, is used as is and not destroyed), wraps the
trainable modules in ``DistributedDataParallel`` (gradients averaged across
ranks in backward), shards the data by rank, averages the logged losses
across ranks, and lets only rank 0 write checkpoints and report metrics.
Per-rank RNG states are gathered to rank 0 so a resume restores every rank.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from lm_workbench.engine.errors import WorkbenchError


def env_world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1") or 1)


@dataclass
class DistributedContext:
    """This process's place in the job; a single process is rank 0 of 1 and every collective is a no-op."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    comm_device: torch.device = torch.device("cpu")
    owns_group: bool = False

    @property
    def enabled(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def all_reduce_sum(self, values: list[float]) -> list[float]:
        """Element-wise sums over ranks (float64)."""
        if not self.enabled:
            return [float(v) for v in values]
        t = torch.tensor(values, dtype=torch.float64, device=self.comm_device)
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return t.tolist()

    def all_reduce_mean(self, values: list[float]) -> list[float]:
        return [v / self.world_size for v in self.all_reduce_sum(values)]

    def any(self, flag: bool) -> bool:
        """True on every rank when any rank's flag is set (a cancel on one rank stops them all together)."""
        return self.all_reduce_sum([1.0 if flag else 0.0])[0] > 0

    def gather_json(self, obj: Any) -> list[Any]:
        """Every rank's JSON-able ``obj``, in rank order (sent as UTF-8 bytes in uint8 tensors, no pickle)."""
        if not self.enabled:
            return [obj]
        data = torch.tensor(list(json.dumps(obj).encode("utf-8")), dtype=torch.uint8)
        sizes = self._lengths(data.numel())
        padded = torch.zeros(max(sizes), dtype=torch.uint8)
        padded[: data.numel()] = data
        parts = self.gather_tensor(padded)
        return [json.loads(bytes(p[:n].tolist()).decode("utf-8")) for p, n in zip(parts, sizes)]

    def _lengths(self, n: int) -> list[int]:
        t = torch.zeros(self.world_size, dtype=torch.float64, device=self.comm_device)
        t[self.rank] = n
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        return [int(x) for x in t.tolist()]

    def gather_tensor(self, tensor: torch.Tensor) -> list[torch.Tensor]:
        """Every rank's ``tensor`` (same shape and dtype on all ranks), on the CPU, in rank order."""
        if not self.enabled:
            return [tensor.cpu()]
        local = tensor.to(self.comm_device).contiguous()
        parts = [torch.empty_like(local) for _ in range(self.world_size)]
        dist.all_gather(parts, local)
        return [p.cpu() for p in parts]

    def barrier(self) -> None:
        if self.enabled:
            dist.barrier()

    def close(self) -> None:
        """Leave the process group if this context created it."""
        if self.owns_group and dist.is_initialized():
            dist.destroy_process_group()
            self.owns_group = False


def pick_device(preference: str, local_rank: int = 0) -> torch.device:
    """The training device from the config's ``device`` ("auto", "cpu", "cuda")."""
    if preference == "cuda" and not torch.cuda.is_available():
        raise WorkbenchError("device cuda was asked for, but no CUDA GPU is available; use device auto or cpu")
    if preference in ("auto", "cuda") and torch.cuda.is_available():
        return torch.device("cuda", local_rank % max(1, torch.cuda.device_count()))
    return torch.device("cpu")


def setup_distributed(preference: str) -> tuple[DistributedContext, torch.device]:
    """Join the torchrun job if there is one; returns the context and this rank's device."""
    world = env_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", "0") or 0)
    device = pick_device(preference, local_rank if world > 1 else 0)
    if world <= 1:
        return DistributedContext(), device
    owns = False
    if not dist.is_available():
        raise WorkbenchError("this torch build has no torch.distributed; run without torchrun")
    if not dist.is_initialized():
        if device.type == "cuda":
            torch.cuda.set_device(device)
        dist.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
        owns = True
    comm = device if dist.get_backend() == "nccl" else torch.device("cpu")
    ctx = DistributedContext(rank=dist.get_rank(), world_size=dist.get_world_size(), local_rank=local_rank,
                             comm_device=comm, owns_group=owns)
    return ctx, device


def wrap_for_data_parallel(module: nn.Module, ctx: DistributedContext) -> nn.Module:
    """``module`` in DDP when distributed, else unchanged.

    ``find_unused_parameters=True`` because a task's heads or an objective may
    leave some parameters without a gradient in a step (e.g. a pooler no loss
    reads); DDP would otherwise wait for them forever.
    """
    if not ctx.enabled:
        return module
    return DistributedDataParallel(module, device_ids=None, find_unused_parameters=True)
