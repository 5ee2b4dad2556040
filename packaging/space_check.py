"""Space before the bundle build: ``python packaging/space_check.py OUT [--deb-only]``.

``packaging/build`` runs this first, so a disk too small refuses in a second with the numbers instead
of failing after minutes of PyInstaller. What the build writes under OUT:

- the bundle, ``OUT/lm-workbench``: ``BUNDLE_SHARE`` of the Python packages it collects (this Python's
  site-packages less the packages the spec leaves out, ``LEFT_OUT``: headers, tests and unused Qt
  modules stay behind too), plus the Python runtime;
- PyInstaller's build files, ``OUT/.work/pyinstaller``: the compressed archives of the pure-Python
  modules and a copy of the entry script, about ``WORK_SHARE`` of the bundle;
- the .deb (``make_deb.sh`` hard-links the bundle into its staging folder): about ``DEB_SHARE`` of the
  bundle, compressed.

A bundle already in OUT is replaced (PyInstaller removes it first), so its room counts as free;
``--deb-only`` re-wraps the existing bundle and needs only the .deb's room. Exits 1 with one line on
stderr when it will not fit.
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lm_workbench.runs.disk_space import NotEnoughSpace, check_space, folder_bytes  # noqa: E402

LEFT_OUT = ("pytest", "_pytest", "hypothesis", "matplotlib", "sentence_transformers", "pandas", "pyarrow",
            "torchvision", "torchaudio", "nltk", "IPython", "tensorboard", "hf_xet", "setuptools", "pip",
            "importlinter", "grimp", "PyInstaller", "tkinter")
RUNTIME_BYTES = 60_000_000  # libpython, the standard library's modules, the launcher
# Measured (packaging/README.md): a 1.19 GiB bundle from 1.76 GiB of collected packages, a 421 MiB .deb (zstd).
BUNDLE_SHARE = 0.7
WORK_SHARE = 0.15
DEB_SHARE = 0.35


def collected_bytes(site_packages: Path, left_out: tuple[str, ...] = LEFT_OUT) -> int:
    """The size of ``site_packages`` less the top-level packages in ``left_out``."""
    total = folder_bytes(site_packages)
    for name in left_out:
        total -= folder_bytes(site_packages / name)
    return max(0, total)


def build_bytes(collected: int, *, existing_bundle: int = 0, deb_only: bool = False) -> int:
    """What the build adds to the disk: a new bundle (replacing ``existing_bundle``), its build files and
    the .deb; with ``deb_only`` only the .deb of the existing bundle."""
    if deb_only:
        return int(DEB_SHARE * existing_bundle)
    bundle = int(collected * BUNDLE_SHARE) + RUNTIME_BYTES
    return max(0, int(bundle * (1 + WORK_SHARE + DEB_SHARE)) - existing_bundle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="packaging/space_check.py", description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the build's output folder (LM_WORKBENCH_DIST)")
    parser.add_argument("--deb-only", action="store_true", help="only the .deb of the bundle already built")
    parser.add_argument("--site-packages", help="the packages the bundle collects (default: this Python's)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    site = Path(args.site_packages or sysconfig.get_paths()["purelib"])
    existing = folder_bytes(out / "lm-workbench")
    needed = build_bytes(0 if args.deb_only else collected_bytes(site), existing_bundle=existing,
                         deb_only=args.deb_only)
    try:
        check_space(out, needed, "the bundle build" + (" (.deb only)" if args.deb_only else ""))
    except NotEnoughSpace as exc:
        print(f"packaging/build: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
