"""_batch."""
