"""A Hugging Face cache laid out on disk as huggingface_hub writes it, for tests of cached hub ids."""

from __future__ import annotations

import shutil


def fake_hub_cache(root, repo_id, folder):
    """The on-disk layout huggingface_hub writes: models--org--name/{refs/main, snapshots/<rev>/...}."""
    revision = "0123456789abcdef0123456789abcdef01234567"
    repo = root / ("models--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(revision)
    shutil.copytree(folder, repo / "snapshots" / revision)
    return repo / "snapshots" / revision
