"""_core."""
