"""PyInstaller runtime hook: runs inside the bundle before the application's first import.

Offline mode is on by default in a bundle (a teacher's laptop has no network, and a
hub id would otherwise retry for ~46 s): ``HF_HUB_OFFLINE`` is set here, before
anything imports ``huggingface_hub``, unless the environment already says, or the
user's settings switch it off (``"offline": false`` in settings.json).
numba (UMAP) writes its compiled cache next to the sources unless told otherwise,
and the bundle may be read-only (/opt): the cache goes to the user's cache folder.
"""

import os


def _offline_setting():
    try:
        from lm_workbench.settings import load_settings

        return load_settings().offline
    except Exception:  # an unreadable home must not stop the application
        return None


def _apply():
    offline = _offline_setting()
    if offline is None and os.environ.get("HF_HUB_OFFLINE", "").strip() == "":
        offline = True
    from lm_workbench.models.network import apply_offline_mode

    apply_offline_mode(offline)
    if not os.environ.get("NUMBA_CACHE_DIR"):
        try:
            from lm_workbench.paths import cache_dir

            os.environ["NUMBA_CACHE_DIR"] = str(cache_dir() / "numba")
        except OSError:
            import tempfile

            os.environ["NUMBA_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), "lm-workbench-numba")


_apply()
