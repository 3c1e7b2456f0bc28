"""The README's runnable examples run, and print what the README shows.

The convention (CONTRIBUTING.md, "README examples"): only fenced blocks marked
``console`` are run. In them, a line starting with ``$ `` is a command (a
line ending in ``\\`` continues on the next); the lines after it, up to the
next ``$ `` or the end of the block, are exactly what it prints, standard
output and standard error as a terminal shows them. Every command must exit 0
unless the next one is ``$ echo $?``, whose output line is the exit code.
Commands run in a fresh directory holding a copy of ``examples/``. Blocks
marked ``sh``, ``python`` or anything else are never run.

Only ``sat-claim-check ...`` and ``python -m sat_claim_check ...`` are run,
with leading ``NAME=value`` settings and a final ``< FILE`` allowed; a block
with any other command (``pip install``, pipes, ``&&``) is skipped, saying why.
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _helpers import REPO, cli

README = REPO / "README.md"
EXAMPLES = REPO / "examples"
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)")
SETTING = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
SHELL_SYNTAX = {"|", "||", "&", "&&", ";", ">", ">>", "2>", "2>&1", "&>", "<<"}


@dataclass
class Command:
    line: int  # 1-based line of the ``$ `` in the file
    text: str  # the command, continuation lines joined
    output: list[str] = field(default_factory=list)


@dataclass
class Block:
    line: int  # 1-based line of the opening fence
    commands: list[Command]


def console_blocks(markdown: str) -> list[Block]:
    """The ``console`` blocks of ``markdown`` and their commands, in order."""
    blocks: list[Block] = []
    fence = None  # the open fence, while inside a block
    commands: list[Command] = []
    continued = False
    for number, line in enumerate(markdown.splitlines(), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence, language = match.group(1), match.group(2).lower()
                is_console = language == "console"
                start, commands, continued = number, [], False
            continue
        if (
            match
            and match.group(1)[0] == fence[0]
            and len(match.group(1)) >= len(fence)
            and not match.group(2)
        ):
            if is_console:
                blocks.append(Block(start, commands))
            fence = None
            continue
        if not is_console:
            continue
        if continued:
            commands[-1].text += " " + line.strip().removeprefix("> ").strip()
        elif line.startswith("$ "):
            commands.append(Command(number, line[2:].strip()))
        elif commands:
            commands[-1].output.append(line)
        continued = bool(commands) and commands[-1].text.endswith("\\")
        if continued:
            commands[-1].text = commands[-1].text[:-1].rstrip()
    return blocks


def command_line(text: str) -> tuple[list[str], dict[str, str], str | None] | str:
    """(arguments after the program, settings, stdin file) for a command this test
    runs, or the reason it does not run it."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        return f"cannot split {text!r}: {exc}"
    settings = {}
    while words and SETTING.match(words[0]):
        name, value = words.pop(0).split("=", 1)
        settings[name] = value
    stdin = None
    if len(words) >= 2 and words[-2] == "<":
        stdin = words[-1]
        words = words[:-2]
    if any(w in SHELL_SYNTAX or w.startswith(("$(", "`")) for w in words):
        return f"shell syntax in {text!r}"
    if words[:1] == ["sat-claim-check"]:
        return words[1:], settings, stdin
    if (
        len(words) >= 3
        and words[0] in ("python", "python3")
        and words[1:3] == ["-m", "sat_claim_check"]
    ):
        return words[3:], settings, stdin
    return f"not a sat-claim-check command: {text!r}"


def run_block(block: Block, workdir: Path) -> None:
    """Run the block's commands in order in ``workdir``, checking output and exit codes."""
    shutil.copytree(EXAMPLES, workdir / "examples")
    for i, command in enumerate(block.commands):
        if command.text == "echo $?":
            continue  # checked with the command before it
        parsed = command_line(command.text)
        assert not isinstance(parsed, str), parsed
        args, settings, stdin = parsed
        data = (workdir / stdin).read_bytes() if stdin is not None else b""
        out = cli(*args, stdin=data, env=settings, cwd=workdir, merge_stderr=True)
        where = f"README.md:{command.line}: $ {command.text}"
        assert out.stdout.decode().splitlines() == command.output, where
        following = block.commands[i + 1] if i + 1 < len(block.commands) else None
        if following is not None and following.text == "echo $?":
            assert following.output == [str(out.returncode)], where
        else:
            assert out.returncode == 0, where


def _readme_blocks() -> list[object]:
    if not README.is_file() or not EXAMPLES.is_dir():
        return [
            pytest.param(
                None,
                marks=pytest.mark.skip(
                    reason="README.md and examples/ are not beside the tests (not a checkout)"
                ),
                id="no-readme",
            )
        ]
    blocks = console_blocks(README.read_text(encoding="utf-8"))
    return [pytest.param(b, id=f"README.md:{b.line}") for b in blocks] or [
        pytest.param(
            None,
            marks=pytest.mark.skip(reason="README.md has no console block"),
            id="no-console-block",
        )
    ]


@pytest.mark.parametrize("block", _readme_blocks())
def test_readme_console_block(block: Block, tmp_path: Path) -> None:
    for command in block.commands:
        if command.text != "echo $?":
            reason = command_line(command.text)
            if isinstance(reason, str):
                pytest.skip(f"README.md:{command.line}: {reason}")
    run_block(block, tmp_path)


def test_the_readme_shows_runnable_examples() -> None:
    if not README.is_file():
        pytest.skip("README.md is not beside the tests (not a checkout)")
    commands = [
        c
        for b in console_blocks(README.read_text(encoding="utf-8"))
        for c in b.commands
        if not isinstance(command_line(c.text), str)
    ]
    # The examples of the check, request and --explain sections, at least.
    assert len(commands) >= 5
    assert {c.text.split()[1] for c in commands} >= {"check", "request"}
    assert any(c.output for c in commands)


# -- the convention itself ----------------------------------------------------------------

SAMPLE = """\
Text with `$ inline` code.

```sh
$ sat-claim-check check not-run.json
```

```console
$ sat-claim-check check examples/a.json
{"valid":true}
$ echo $?
0
$ SAT_CLAIM_CHECK_NO_EXTENSIONS=1 sat-claim-check request --cnf x.cnf \\
>     --proof x.drup --check
line one

line three
```

````console
$ python -m sat_claim_check check < examples/a.json
```
not a fence: the block needs four backticks to close
````

```console
$ pip install sat-claim-check
$ sat-claim-check check a.json | head
```
"""


def test_console_blocks_follow_the_convention() -> None:
    blocks = console_blocks(SAMPLE)
    assert [b.line for b in blocks] == [7, 19, 25]
    first = blocks[0].commands
    assert [(c.line, c.text, c.output) for c in first] == [
        (8, "sat-claim-check check examples/a.json", ['{"valid":true}']),
        (10, "echo $?", ["0"]),
        (
            12,
            "SAT_CLAIM_CHECK_NO_EXTENSIONS=1 sat-claim-check request --cnf x.cnf "
            "--proof x.drup --check",
            ["line one", "", "line three"],
        ),
    ]
    assert [(c.text, c.output) for c in blocks[1].commands] == [
        (
            "python -m sat_claim_check check < examples/a.json",
            ["```", "not a fence: the block needs four backticks to close"],
        )
    ]


def test_which_commands_run() -> None:
    texts = [c.text for b in console_blocks(SAMPLE) for c in b.commands]
    assert command_line(texts[0]) == (["check", "examples/a.json"], {}, None)
    assert command_line(texts[2]) == (
        ["request", "--cnf", "x.cnf", "--proof", "x.drup", "--check"],
        {"SAT_CLAIM_CHECK_NO_EXTENSIONS": "1"},
        None,
    )
    assert command_line(texts[3]) == (["check"], {}, "examples/a.json")
    install, pipe = command_line(texts[4]), command_line(texts[5])
    assert isinstance(install, str) and install.startswith("not a sat-claim-check command")
    assert isinstance(pipe, str) and pipe.startswith("shell syntax")


def test_a_wrong_output_or_exit_code_fails(tmp_path: Path) -> None:
    tiny = EXAMPLES / "tiny-not-rup.json"
    if not tiny.is_file():
        pytest.skip("examples/ is not beside the tests (not a checkout)")
    text = "$ sat-claim-check check examples/tiny-not-rup.json"
    result = cli("check", str(tiny)).stdout.decode().splitlines()
    for i, (output, code) in enumerate([(["wrong"], "1"), (result, "0"), (result, None)]):
        shown = "\n".join([text, *output, *(["$ echo $?", code] if code else [])])
        (block,) = console_blocks(f"```console\n{shown}\n```\n")
        with pytest.raises(AssertionError):
            run_block(block, tmp_path / str(i))
    (block,) = console_blocks(f"```console\n{text}\n" + "\n".join(result) + "\n$ echo $?\n1\n```\n")
    run_block(block, tmp_path / "right")
