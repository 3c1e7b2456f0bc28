"""Where a check is: the progress callback of `check` and `request --check`."""

from __future__ import annotations

import sys
from collections.abc import Callable

from .._batch.console import ProgressLine
from .._core.codes import EXIT_INTERRUPTED
from .output import say


class Position:
    """The progress callback of one check: the last (steps_checked, work) the
    engine reported, for the line on stderr when Ctrl-C stops the check, and
    for the progress line (``--progress``, ``--quiet``)."""

    def __init__(self, show: bool | None = False) -> None:
        self.steps_checked: int | None = None
        self.work: int | None = None
        self.line = ProgressLine(sys.stderr, show)

    def __call__(self, steps_checked: int, work: int) -> None:
        self.steps_checked = steps_checked
        self.work = work
        self.line.steps(steps_checked, work)

    def interrupted(self, step_count: Callable[[], int] | None) -> int:
        """Say where the check was stopped; the exit code of an interrupted run.

        ``step_count()`` gives the number of proof steps (None: not known, a
        proof checked as it is read); it is called only when the engine has
        reported, so the proof has passed validation.
        """
        self.line.close()
        if self.steps_checked is None:
            say("interrupted")
        else:
            of = "" if step_count is None else f" of {step_count()}"
            say(f"interrupted at proof step {self.steps_checked}{of} (work {self.work})")
        return EXIT_INTERRUPTED
