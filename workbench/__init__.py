"""The application core: settings, run store, job lanes, plugin discovery, CLI. No Qt."""
