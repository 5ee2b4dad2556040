"""How big a built bundle is and what takes the room: ``python packaging/size_report.py [BUNDLE] [--top N]``.

Prints the total, the N largest parts (a part is a top-level entry of ``_internal``, with the
big package folders split one level further, e.g. ``torch/lib``) and the N largest files.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

SPLIT = {"torch", "PySide6", "PySide6/Qt", "llvmlite", "scipy", "transformers", "numba"}


def file_sizes(root: Path) -> dict[Path, int]:
    sizes = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            if not path.is_symlink():
                sizes[path.relative_to(root)] = path.stat().st_size
    return sizes


def part_of(relative: Path) -> str:
    parts = relative.parts
    if parts[0] != "_internal" or len(parts) == 1:
        return str(relative)
    depth = 2
    while depth < len(parts) and "/".join(parts[1:depth]) in SPLIT:
        depth += 1
    return "/".join(parts[1:depth]) + ("/" if depth < len(parts) else "")


def human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", nargs="?", default=str(Path(__file__).parent / "dist" / "lm-workbench"))
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    root = Path(args.bundle)
    if not (root / "_internal").is_dir():
        parser.error(f"{root} is not a one-folder bundle (no _internal/)")
    sizes = file_sizes(root)
    total = sum(sizes.values())
    parts: dict[str, int] = {}
    for relative, size in sizes.items():
        parts[part_of(relative)] = parts.get(part_of(relative), 0) + size
    print(f"{root}: {human(total)} in {len(sizes)} files")
    print(f"\nlargest {args.top} parts:")
    for name, size in sorted(parts.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {human(size):>10}  {100 * size / total:5.1f}%  {name}")
    print(f"\nlargest {args.top} files:")
    for relative, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {human(size):>10}  {relative}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
