"""What a manifest may read: regular files only, within --manifest-root when given.

A manifest line naming a FIFO with no writer held `batch` for ever (--jobs 1
and 2); one naming /etc/shadow had its first line quoted back in the error.
Now anything that is not a regular file gets its error line at once, a
--manifest-root confines the paths (symbolic links and '..' included), and a
message quotes at most a short excerpt of a file.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from _helpers import REPO, cli

from sat_claim_check._batch import manifest as _manifest
from sat_claim_check._batch import protocol as _protocol
from sat_claim_check._batch.protocol import check_one
from sat_claim_check._core.options import Options
from sat_claim_check.dimacs import SHOWN

EXAMPLES = REPO / "examples"
posix = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symbolic links")


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """root/ with the php5 example, a FIFO, a directory and links in and out;
    outside/ with a secret."""
    if not EXAMPLES.is_dir():
        pytest.skip("examples/ is not beside the tests")
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    shutil.copy(EXAMPLES / "php5.cnf", root / "php5.cnf")
    shutil.copy(EXAMPLES / "php5.drup", root / "php5.drup")
    shutil.copy(EXAMPLES / "php5.cnf", root / "sub" / "inner.cnf")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.cnf").write_text("root:$6$saltsalt$0123456789abcdef:19000:0:99999:7:::\n")
    if sys.platform != "win32":
        os.mkfifo(root / "fifo")
        (root / "out.cnf").symlink_to(outside / "secret.cnf")
        (root / "in.cnf").symlink_to(root / "sub" / "inner.cnf")
        (root / "outdir").symlink_to(outside, target_is_directory=True)
    return tmp_path


def run_manifest(directory: Path, lines: list[Any], *args: str) -> tuple[int, list[dict]]:
    manifest = directory / "root" / "list.jsonl"
    manifest.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = cli("batch", "--manifest", str(manifest), *args)
    assert b"Traceback" not in out.stderr, out.stderr
    return out.returncode, [json.loads(text) for text in out.stdout.decode().splitlines()]


VALID = {"id": "ok", "cnf": "php5.cnf", "proof": "php5.drup"}


@posix
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_fifo_with_no_writer_gets_its_error_line_at_once(tree: Path, jobs: str) -> None:
    lines = [
        VALID,
        {"id": "fifo", "cnf": "php5.cnf", "proof": "fifo"},
        {**VALID, "id": "after"},
        {"id": "dir", "cnf": "sub", "proof": "php5.drup"},
        {"id": "dev", "cnf": "/dev/null", "proof": "php5.drup"},
    ]
    code, out = run_manifest(tree, lines, "--jobs", jobs)  # cli() times out at 120 s
    assert code == 2
    assert [o.get("valid") for o in out] == [True, None, True, None, None]
    for o, key, name in (
        (out[1], "proof", "fifo"),
        (out[3], "cnf", "sub"),
        (out[4], "cnf", "/dev/null"),
    ):
        assert (o["error"], o["field"], o["path"]) == ("invalid_input", key, f"/{key}")
        assert o["message"] == (
            f"{name!r} is not a regular file: a batch reads only regular "
            "files (not a FIFO, a device or a directory)"
        )


@posix
def test_a_fifo_is_never_opened_for_a_writer(tree: Path) -> None:
    # In this process, in a thread: the check returns at once (before, open()
    # waited for a writer that never came).
    manifest = _manifest.Manifest(str(tree / "root"))
    line = json.dumps({"cnf": "fifo", "proof": "php5.drup"}).encode()
    answers = []
    thread = threading.Thread(
        target=lambda: answers.append(check_one(Options.of(), 1, line, manifest)), daemon=True
    )
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the check waits for the FIFO's writer"
    assert "is not a regular file" in json.loads(answers[0][1])["message"]


@posix
def test_the_root_confines_paths_and_links(tree: Path) -> None:
    lines = [
        VALID,
        {"id": "dotdot", "cnf": "../outside/secret.cnf", "proof": "php5.drup"},
        {"id": "abs", "cnf": str(tree / "outside" / "secret.cnf"), "proof": "php5.drup"},
        {"id": "link", "cnf": "out.cnf", "proof": "php5.drup"},
        {"id": "dirlink", "cnf": "outdir/secret.cnf", "proof": "php5.drup"},
        {"id": "inside", "cnf": "in.cnf", "proof": "php5.drup"},
        {"id": "sub", "cnf": "sub/../php5.cnf", "proof": "php5.drup"},
        {"id": "shadow", "cnf": "/etc/shadow", "proof": "php5.drup"},
    ]
    code, out = run_manifest(tree, lines, "--manifest-root", str(tree / "root"))
    assert code == 2
    assert [o.get("valid") for o in out] == [True, None, None, None, None, True, True, None]
    for o, line in zip(out, lines):
        if "error" in o:
            assert o["message"] == f"{line['cnf']!r} is outside the manifest root"
            assert (o["field"], o["path"]) == ("cnf", "/cnf")
            assert "secret" not in json.dumps(o).replace(line["cnf"], "")


@posix
def test_without_a_root_a_file_is_quoted_in_a_short_excerpt_only(tree: Path) -> None:
    code, out = run_manifest(tree, [{"cnf": "out.cnf", "proof": "php5.drup"}])
    assert code == 2
    message = out[0]["message"]
    assert message.startswith("out.cnf:1: CNF: 'root:$6")
    quoted = message.split("'")[1]
    assert len(quoted) <= SHOWN and quoted.endswith("...")
    assert "saltsalt" not in message


def test_a_root_that_is_not_a_directory(tree: Path) -> None:
    manifest = tree / "root" / "list.jsonl"
    manifest.write_text(json.dumps(VALID) + "\n")
    for root in (tree / "missing", tree / "root" / "php5.cnf"):
        out = cli("batch", "--manifest", str(manifest), "--manifest-root", str(root))
        assert out.returncode == 2 and out.stdout == b""
        assert b"is not a directory" in out.stderr
    out = cli("batch", "--manifest-root", str(tree / "root"), stdin=b"{}\n")
    assert out.returncode == 2 and out.stdout == b""
    assert b"--manifest-root needs --manifest" in out.stderr


@posix
def test_a_symlink_swapped_after_the_check_is_caught_when_opened(tree: Path, monkeypatch) -> None:
    # The path resolves inside the root when it is checked; by the time it is
    # opened it leads outside.  The opened file's own path is checked again.
    root = os.path.realpath(tree / "root")
    link = tree / "root" / "swap.cnf"
    link.symlink_to(tree / "root" / "php5.cnf")
    real = os.path.realpath

    def swapping_realpath(path: Any, *args: Any, **kwargs: Any) -> str:
        answer = real(path, *args, **kwargs)
        if os.fspath(path).endswith("swap.cnf"):
            link.unlink()
            link.symlink_to(tree / "outside" / "secret.cnf")
            return os.path.join(root, "swap.cnf")  # what the check saw
        return answer

    monkeypatch.setattr(_manifest.os.path, "realpath", swapping_realpath)
    manifest = _manifest.Manifest(root, root)
    line = json.dumps({"cnf": "swap.cnf", "proof": "php5.drup"}).encode()
    _, text = check_one(Options.of(), 1, line, manifest)
    assert json.loads(text)["message"] == "'swap.cnf' is outside the manifest root"


@posix
def test_a_path_is_read_as_written_within_the_root(tree: Path) -> None:
    # "php5.cnf/" names no file, root or not (the root resolved it away once).
    lines = [{"id": "slash", "cnf": "php5.cnf/", "proof": "php5.drup"}]
    for args in ((), ("--manifest-root", str(tree / "root"))):
        code, out = run_manifest(tree, lines, *args)
        assert code == 2 and out[0]["message"] == "cannot read 'php5.cnf/': Not a directory"


def test_a_manifest_names_the_byte_of_a_binary_proof_error(tmp_path: Path) -> None:
    (tmp_path / "f.cnf").write_text("p cnf 1 2\n1 0\n-1 0\n")
    (tmp_path / "f.bin").write_bytes(b"a\x02\x00x")  # byte 3 starts no step
    kind, text = _protocol.check_manifest_line(
        Options.of(), 7, b'{"cnf": "f.cnf", "proof": "f.bin"}', _manifest.Manifest(str(tmp_path))
    )
    error = json.loads(text)
    assert kind == 2 and (error["field"], error["line"]) == ("proof", 7)
    assert error["message"].startswith("f.bin:byte 3: proof (binary): byte 'x'")


# -- the manifest door with either build's twins ------------------------------------


@pytest.mark.parametrize(
    ("line", "kind", "said"),
    [
        ({"id": 1, "cnf": "php5.cnf", "proof": "php5.drup"}, 0, '"valid":true'),
        (
            '{"cnf": "php5.cnf", "proof": "bad.drup"}',
            2,  # the scanner
            '"field":"proof","path":"/proof",'
            '"message":"bad.drup:1: proof: \'x\' is not an integer"',
        ),
        (
            '{"cnf": "bad.drup", "proof": "php5.drup"}',
            2,
            '"field":"cnf","path":"/cnf","message":"bad.drup:1: CNF: \'x\' is not an integer"',
        ),
        (
            '{"cnf": "php5.cnf", "cnf": "php5.cnf"}',
            2,  # the converter
            "malformed JSON: key 'cnf' is repeated in an object",
        ),
        (
            '{"cnf": "php5.cnf", "proof": ',
            2,  # the request reader
            "malformed JSON: Expecting value: line 1 column 30 (char 29)",
        ),
    ],
    ids=["valid", "proof", "cnf", "repeated key", "cut"],
)
def test_a_manifest_line_is_read_alike_by_either_build(
    tree: Path, twins: str, line: Any, kind: int, said: str
) -> None:
    root = tree / "root"
    (root / "bad.drup").write_text("x 0\n")
    text = json.dumps(line) if isinstance(line, dict) else line
    got, out = _protocol.check_manifest_line(
        Options.of(), 3, text.encode(), _manifest.Manifest(str(root))
    )
    assert (got, said in out) == (kind, True), out
