"""The progress line of long checks: shown on a terminal after a second,
forced by --progress, silenced by --quiet, never on stdout."""

from __future__ import annotations

import io
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _helpers import cli

from sat_claim_check._batch.console import ProgressLine


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_the_line_after_a_second_then_it_is_erased() -> None:
    clock, out = Clock(), Terminal()
    line = ProgressLine(out, None, clock)
    line.steps(10, 5)
    assert out.getvalue() == ""  # under a second: nothing
    clock.now += 2.0
    line.bytes(2_500_000, 10_000_000)
    line.steps(5000, 70)
    shown = out.getvalue()
    assert shown.startswith("\r") and shown.endswith("\x1b[K")
    assert "2.5 MB of 10.0 MB (25%)" in shown
    clock.now += 0.01
    line.steps(6000, 80)  # too soon after the last update
    assert out.getvalue() == shown
    clock.now += 1.0
    line.steps(8000, 90)
    assert "checked 8,000 steps (2,658 steps/s)" in out.getvalue()
    line.close()
    assert out.getvalue().endswith("\r\x1b[K")


def test_a_known_size_gives_a_percentage_and_the_time_left() -> None:
    clock, out = Clock(), io.StringIO()
    line = ProgressLine(out, True, clock)
    clock.now += 10.0
    line.bytes(2_500_000, 10_000_000)  # a quarter in 10 s: 30 s to go at that pace
    assert out.getvalue().endswith("(25%), 10 s, about 30 s left\n")
    clock.now += 20.0
    line.bytes(2_600_000, 10_000_000)  # slower: the estimate follows the pace so far
    assert out.getvalue().endswith("(26%), 30 s, about 85 s left\n")
    clock.now += 600.0
    line.bytes(5_000_000, 10_000_000)
    assert out.getvalue().endswith("(50%), 630 s, about 10 min left\n")
    clock.now += 60.0
    line.bytes(3_000_000, None)  # a pipe: no size, no estimate
    assert out.getvalue().endswith("read 3.0 MB, 690 s\n")


def test_not_a_terminal_sees_nothing_unless_forced() -> None:
    clock = Clock()
    quiet, forced = io.StringIO(), io.StringIO()
    lines = [ProgressLine(quiet, None, clock), ProgressLine(forced, True, clock)]
    clock.now += 2.0
    for line in lines:
        line.steps(300, 1)
        line.close()
    assert quiet.getvalue() == ""
    assert forced.getvalue() == "sat-claim-check: checked 300 steps (150 steps/s), 2 s\n"


def test_quiet_silences_a_terminal() -> None:
    clock, out = Clock(), Terminal()
    line = ProgressLine(out, False, clock)
    clock.now += 5
    line.steps(1, 1)
    assert out.getvalue() == ""


def test_no_stderr_at_all_is_no_error() -> None:
    line = ProgressLine(None, True)
    line.steps(1, 1)
    line.close()


def test_progress_goes_to_stderr_and_the_result_alone_to_stdout(tmp_path: Path) -> None:
    # A proof long enough to take over a second with the reference engine.
    cnf = tmp_path / "chain.cnf"
    n = 3000
    cnf.write_text(f"p cnf {n} {n - 1}\n" + "".join(f"-{i} {i + 1} 0\n" for i in range(1, n)))
    proof = tmp_path / "chain.drup"
    proof.write_text(f"-1 {n} 0\nd {n} -1 0\n" * 1000)  # about 2 s
    # The two runs at once: each takes seconds of one core.
    with ThreadPoolExecutor(2) as pool:
        out, quiet = pool.map(
            lambda flag: cli(
                "request",
                "--check",
                "--unlimited",
                "--engine",
                "reference",
                flag,
                "--cnf",
                str(cnf),
                "--proof",
                str(proof),
            ),
            ["--progress", "--quiet"],
        )
    assert out.returncode == 1  # no empty clause at the end
    assert json.loads(out.stdout)["reason"] == "empty_clause_not_derived"
    assert b"sat-claim-check: checked " in out.stderr and b"steps/s" in out.stderr
    # --quiet: no progress; the verdict's hint alone.
    assert quiet.stdout == out.stdout and quiet.stderr.startswith(b"sat-claim-check: hint: ")
    assert len(quiet.stderr.splitlines()) == 1
