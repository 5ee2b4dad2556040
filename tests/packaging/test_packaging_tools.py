"""The packaging helpers that run outside PyInstaller: the size report, the icon, the shell scripts' syntax."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"


def test_size_report_groups_big_packages_one_level_down(tmp_path):
    bundle = tmp_path / "lm-workbench"
    for relative, size in {"lm-workbench": 10, "_internal/torch/lib/libtorch_cpu.so": 5000,
                           "_internal/torch/_C.so": 300, "_internal/libpython3.11.so.1.0": 700,
                           "_internal/PySide6/Qt/lib/libQt6Gui.so.6": 2000, "_internal/numpy/core/x.so": 50}.items():
        (bundle / relative).parent.mkdir(parents=True, exist_ok=True)
        (bundle / relative).write_bytes(b"\0" * size)
    out = subprocess.run([sys.executable, str(PACKAGING / "size_report.py"), str(bundle), "--top", "3"],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    parts = out.split("largest 3 parts:")[1].split("largest 3 files:")[0].split()
    assert "7.9 KiB in 6 files" in out  # 8060 bytes
    assert [p for p in parts if "/" in p or "lib" in p] == ["torch/lib/", "PySide6/Qt/lib/", "libpython3.11.so.1.0"]


def test_the_icon_is_a_256_pixel_png_with_a_drawing(tmp_path):
    from PySide6.QtGui import QImage

    target = tmp_path / "icon.png"
    subprocess.run([sys.executable, str(PACKAGING / "make_icon.py"), str(target)], check=True, timeout=60)
    image = QImage(str(target))
    assert (image.width(), image.height()) == (256, 256)
    colours = {image.pixelColor(x, y).name() for x in range(0, 256, 8) for y in range(0, 256, 8)}
    assert len(colours) > 10 and image.pixelColor(0, 0).alpha() == 0  # drawn, with transparent corners


@pytest.mark.parametrize("script", ["build", "make_deb.sh", "find_depends.sh", "smoke_test.sh", "startup_timing.sh"])
def test_shell_scripts_parse(script):
    subprocess.run(["bash", "-n", str(PACKAGING / script)], check=True, timeout=30)


def _sparse(path: Path, size: int) -> None:
    """A file that says it is ``size`` bytes long and takes no room on the disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.truncate(size)


def test_the_space_check_refuses_a_build_too_big_for_the_disk_with_the_numbers(tmp_path):
    site = tmp_path / "site-packages"
    _sparse(site / "torch" / "lib" / "libtorch_cpu.so", 10**13)  # 10 TB of packages to collect
    out = tmp_path / "dist"
    check = [sys.executable, str(PACKAGING / "space_check.py"), str(out), "--site-packages", str(site)]
    refused = subprocess.run(check, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1
    # bundle 70% of the packages + 60 MB runtime, build files +15%, .deb +35%; then +10% and 5 MB spare:
    # ((0.7e13 + 6e7) * 1.5) * 1.1 + 5e6 = 11550.1 GB
    assert refused.stderr.startswith(f"packaging/build: error: the bundle build needs about 11550.1 GB in {out}, ")
    assert " free: free some space or choose a folder on another disk" in refused.stderr


def test_the_space_check_leaves_out_what_the_spec_leaves_out(tmp_path):
    site = tmp_path / "site-packages"
    _sparse(site / "pytest" / "huge", 10**13)  # not in the bundle
    _sparse(site / "numpy" / "core.so", 10**6)
    check = [sys.executable, str(PACKAGING / "space_check.py"), str(tmp_path / "dist"), "--site-packages", str(site)]
    assert subprocess.run(check, capture_output=True, timeout=60).returncode == 0
    assert subprocess.run(check + ["--deb-only"], capture_output=True, timeout=60).returncode == 0  # no bundle yet


def test_a_release_bundles_the_course_models_and_ci_leaves_them_out():
    """Issue 48.4: packaging/build pre-trains (or reuses) the course models by default, has the flag that leaves them
    out, and .ci/run passes it unless LM_WORKBENCH_COURSE_CACHE holds models built before."""
    shown = subprocess.run(["bash", str(PACKAGING / "build"), "--help"], capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0 and "--without-course-models" in shown.stdout
    assert "(default), --with-course-models" in shown.stdout and "LM_WORKBENCH_COURSE_CACHE" in shown.stdout
    ci = (PACKAGING.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/package.sh --without-course-models" in ci
    assert 'scripts/package.sh --with-course-models "$LM_WORKBENCH_COURSE_CACHE"' in ci
    assert "\nbash scripts/package.sh\n" not in ci  # never the default (a pre-training) in CI
