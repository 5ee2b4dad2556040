"""A command's model options applied to the user's settings, whichever front end runs it (the CLI re-exports
``settings_for`` from ``lm_workbench.cli.common``)."""

from __future__ import annotations

from typing import Any


def settings_for(args: Any) -> Any:
    """The user's settings with this command line's model options applied (offline mode set at once); ``args``
    is the parsed command line or its typed request (``lm_workbench.requests``: the same names)."""
    from lm_workbench.models.network import apply_offline_mode
    from lm_workbench.settings import load_settings

    settings = load_settings()
    for flag, field in (("device", "device"), ("precision", "precision"), ("threads", "cpu_threads"),
                        ("offline", "offline"), ("allow_pickle", "allow_pickle_weights"),
                        ("trust_remote_code", "trust_remote_code")):
        value = getattr(args, flag, None)
        if value is not None:
            setattr(settings, field, value)
    if getattr(args, "words", None) is not None:  # this command line's choice for this model (never saved)
        settings.set_words(args.model, args.words)
    apply_offline_mode(settings.offline)  # before the engine imports the hub client
    return settings
