"""pytest plugin of workbench.testing (registered through the ``pytest11`` entry point)."""
