"""Solver output as it comes: binary DRUP (told by its first bytes, or
forced), gzip/xz/bz2 files, standard input, and CaDiCaL's default proofs,
through the front doors (``run_files``, ``request_from_files``, ``request``).

A binary proof gives exactly the Report of the text proof of the same steps.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import threading
from pathlib import Path

import pytest
from _binary import encode
from _helpers import cli
from proofgen import pigeonhole

import sat_claim_check as scc
from sat_claim_check.dimacs import (
    DimacsError,
    is_binary_proof,
    request_from_dimacs,
    request_from_files,
    run_dimacs,
    run_files,
)

COMPRESS = {"gz": gzip.compress, "xz": lzma.compress, "bz2": bz2.compress}
UNSAT_CNF = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
STEPS = [(0, [2]), (1, [1, 2]), (0, [])]  # "2 0", "d 1 2 0", "0"


def text_of(steps: list[tuple[int, list[int]]]) -> bytes:
    return b"".join(
        (b"d " if kind else b"")
        + b" ".join(b"%d" % lit for lit in lits)
        + (b" " if lits else b"")
        + b"0\n"
        for kind, lits in steps
    )


def steps_of_request(request: dict) -> list[tuple[int, list[int]]]:
    return [(0, s["add"]) if "add" in s else (1, s["delete"]) for s in request["proof"]]


def test_every_corpus_proof_in_binary_gives_the_text_report(
    corpus: Path, engine: str, tmp_path: Path
) -> None:
    checked = 0
    for cnf in sorted(corpus.glob("c0*.cnf"))[:25]:
        text = cnf.with_suffix(".drup")
        if not text.exists():
            continue
        steps = steps_of_request(request_from_files(cnf, text, limits=scc.Limits.unlimited()))
        binary = tmp_path / f"{cnf.stem}.drat"
        binary.write_bytes(encode(steps))
        head = binary.read_bytes()[:12]
        if steps[0][0] == 0:  # an 'a' first: binary at its first byte
            assert is_binary_proof(head)
        expected = run_files(cnf, text, engine=engine)
        assert run_files(cnf, binary, engine=engine, proof_format="binary") == expected
        if is_binary_proof(head):
            assert run_files(cnf, binary, engine=engine) == expected
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_compressed_files_and_binary_proofs(tmp_path: Path, suffix: str, engine: str) -> None:
    cnf = tmp_path / f"f.cnf.{suffix}"
    cnf.write_bytes(COMPRESS[suffix](UNSAT_CNF.encode()))
    for name, data in (("text", text_of(STEPS)), ("binary", encode(STEPS))):
        proof = tmp_path / f"{name}.drup.{suffix}"
        proof.write_bytes(COMPRESS[suffix](data))
        report = run_files(cnf, proof, engine=engine)
        assert report.result["valid"] and report.result["steps_checked"] == 3, name
        assert request_from_files(cnf, proof) == request_from_dimacs(
            UNSAT_CNF, proof=text_of(STEPS)
        ), name


def test_in_memory_binary_proofs_are_read_too(engine: str) -> None:
    assert run_dimacs(UNSAT_CNF, proof=encode(STEPS), engine=engine) == run_dimacs(
        UNSAT_CNF, proof=text_of(STEPS), engine=engine
    )


def test_a_binary_proof_error_names_its_byte_offset(tmp_path: Path) -> None:
    cnf = tmp_path / "f.cnf"
    cnf.write_text(UNSAT_CNF)
    proof = tmp_path / "bad.drat"
    proof.write_bytes(encode(STEPS[:1]) + b"q")  # "a 4 0" is 3 bytes, then 'q'
    with pytest.raises(DimacsError) as info:
        run_files(cnf, proof)
    assert (info.value.offset, info.value.line) == (3, None)
    assert "byte 3" in str(info.value) and "'a'" in str(info.value)


def test_the_format_can_be_forced(tmp_path: Path) -> None:
    cnf = tmp_path / "f.cnf"
    cnf.write_text(UNSAT_CNF)
    proof = tmp_path / "p.drat"
    proof.write_bytes(encode(STEPS))
    with pytest.raises(DimacsError, match="is not an integer"):
        run_files(cnf, proof, proof_format="text")
    with pytest.raises(ValueError, match="proof_format"):
        run_files(cnf, proof, proof_format="drat")  # type: ignore[arg-type]
    code = cli(
        "request", "--check", "--cnf", str(cnf), "--proof", str(proof), "--proof-format", "text"
    )
    assert code.returncode == 2 and b"is not an integer" in code.stderr
    assert b"binary DRUP" in code.stderr  # the hint


@pytest.mark.parametrize("which", ["--cnf", "--proof", "--model"])
def test_dash_reads_standard_input(tmp_path: Path, which: str) -> None:
    cnf, proof = tmp_path / "f.cnf", tmp_path / "p.drup"
    sat_cnf = "p cnf 2 1\n1 2 0\n"
    if which == "--model":
        cnf.write_text(sat_cnf)
        args, stdin = ["--cnf", str(cnf), "--model", "-"], b"v 1 -2 0\n"
    elif which == "--cnf":
        proof.write_bytes(encode(STEPS))
        args, stdin = ["--cnf", "-", "--proof", str(proof)], gzip.compress(UNSAT_CNF.encode())
    else:
        cnf.write_text(UNSAT_CNF)
        args, stdin = ["--cnf", str(cnf), "--proof", "-"], lzma.compress(encode(STEPS))
    out = cli("request", "--check", *args, stdin=stdin)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["valid"] is True
    two = cli("request", "--check", "--cnf", "-", "--proof", "-")
    assert two.returncode == 2 and b"only one of" in two.stderr


# -- CaDiCaL's own output --------------------------------------------------------


def _php(tmp_path: Path) -> Path:
    num_vars, clauses = pigeonhole(7, 6)
    cnf = tmp_path / "php.cnf"
    cnf.write_text(
        f"p cnf {num_vars} {len(clauses)}\n"
        + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    )
    return cnf


@pytest.mark.parametrize("compress", [None, "xz"])
def test_cadical_s_default_binary_proof(tmp_path: Path, compress: str | None, cadical: str) -> None:
    solver = cadical
    cnf = _php(tmp_path)
    binary, text = tmp_path / "p.drat", tmp_path / "p.drup"
    for path, flags in ((binary, []), (text, ["--no-binary"])):
        run = subprocess.run(
            [solver, "-q", *flags, str(cnf), str(path)], capture_output=True, check=False
        )
        assert run.returncode == 20
    assert is_binary_proof(binary.read_bytes()[:12])
    if compress:
        binary.write_bytes(lzma.compress(binary.read_bytes()))
    unlimited = scc.Limits.unlimited()
    report = run_files(cnf, binary, limits=unlimited)
    assert report == run_files(cnf, text, limits=unlimited)
    assert report.result["valid"]


def test_cadical_writes_binary_into_a_pipe_the_command_reads(tmp_path: Path, cadical: str) -> None:
    solver = cadical
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    cnf = _php(tmp_path)
    fifo = tmp_path / "proof.pipe"
    os.mkfifo(fifo)
    results: list[subprocess.CompletedProcess[bytes]] = []
    checker = threading.Thread(
        target=lambda: results.append(
            cli("request", "--check", "--unlimited", "--cnf", str(cnf), "--proof", str(fifo))
        )
    )
    checker.start()
    solved = subprocess.run(
        [solver, "-q", str(cnf), str(fifo)], capture_output=True, check=False, timeout=120
    )
    checker.join(120)
    assert solved.returncode == 20
    assert results and results[0].returncode == 0, results[0].stderr if results else None
    assert json.loads(results[0].stdout)["valid"] is True
