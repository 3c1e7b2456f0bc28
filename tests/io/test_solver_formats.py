"""Proofs and models as solvers write them: PicoSAT's RUP header, MiniSat's
result file, FRAT, status and comment lines on a proof pipe, and the hint
when files are given in the wrong slots."""

from __future__ import annotations

import bz2
import gzip
import lzma
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from _binary import encode

import sat_claim_check as scc
from sat_claim_check._core.checker import checker_of_arrays
from sat_claim_check._core.options import Options
from sat_claim_check._io.proofstream import check_stream, proof_parts
from sat_claim_check._io.whole_files import parse_files
from sat_claim_check.dimacs import DimacsError, drup_arrays, model_literals, read_cnf, run_files

UNSAT = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
STEPS = [(0, [1]), (1, [1, 2]), (0, [])]  # a proof of UNSAT, with a deletion
PROOF_TEXT = "1 0\nd 1 2 0\n0\n"
COMPRESS = {"": bytes, ".gz": gzip.compress, ".xz": lzma.compress, ".bz2": bz2.compress}


def pigeonhole_cnf(path: Path, pigeons: int = 4, holes: int = 3) -> Path:
    def var(p: int, h: int) -> int:
        return p * holes + h + 1

    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    clauses += [
        [-var(p, h), -var(q, h)]
        for h in range(holes)
        for p in range(pigeons)
        for q in range(p + 1, pigeons)
    ]
    body = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    path.write_text(f"p cnf {pigeons * holes} {len(clauses)}\n{body}")
    return path


def write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def read_proof(cnf: Path, proof: Path | str, **kw: object) -> tuple[list, list[str]]:
    said: list[str] = []
    kinds, offsets, lits = parse_files(cnf, proof, None, notes=said.append, **kw)[1]
    steps = [(k, lits[offsets[i] : offsets[i + 1]].tolist()) for i, k in enumerate(kinds)]
    return steps, said


def solver(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def valid(cnf: Path, proof: Path, **kw: object) -> bool:
    return bool(run_files(cnf, proof, limits=scc.Limits.unlimited(), **kw).result["valid"])


# -- PicoSAT's RUP header -----------------------------------------------------------


def test_a_picosat_header_is_skipped(tmp_path: Path, twins: str) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT)
    proof = write(tmp_path / "p.rup", "%RUPD32 2 4" + " " * 240 + "\n1 0\n0\n")
    steps, said = read_proof(cnf, proof)
    assert steps == [(0, [1]), (0, [])]
    assert said == ["proof: skipped PicoSAT header '%RUPD32 2 4' (line 1 of a 'picosat -R' proof)"]
    assert drup_arrays(proof.read_bytes(), "p")[0].tolist() == [0, 0]
    with pytest.raises(DimacsError) as caught:
        read_proof(cnf, write(tmp_path / "bad.rup", "%RUPD32 2 4\n1 x 0\n"))
    assert caught.value.line == 2  # the header keeps its line


def test_picosat_s_rup_proof_checks(tmp_path: Path, twins: str) -> None:
    cnf = pigeonhole_cnf(tmp_path / "php.cnf")
    proof = tmp_path / "php.rup"
    run = subprocess.run([solver("picosat"), "-R", str(proof), str(cnf)], capture_output=True)
    assert run.returncode == 20 and proof.read_bytes().startswith(b"%RUPD32")
    assert valid(cnf, proof)


# -- MiniSat's result file -------------------------------------------------------------


def test_a_minisat_result_file_is_a_model(tmp_path: Path, twins: str) -> None:
    cnf = write(tmp_path / "f.cnf", "p cnf 3 2\n1 2 0\n-1 3 0\n")
    model = write(tmp_path / "m.txt", "SAT\n-1 2 3 0\n")
    said: list[str] = []
    assert parse_files(cnf, None, model, notes=said.append)[2] == [-1, 2, 3]
    assert said == ["model: read as a MiniSat result file ('SAT', then the literals)"]
    assert model_literals(b"s SATISFIABLE\nv -1 2\nv 3 0\n") == [-1, 2, 3]
    for answer in ("UNSAT", "INDET"):
        with pytest.raises(DimacsError) as caught:
            parse_files(cnf, None, write(tmp_path / "u.txt", answer + "\n"))
        assert f"the file says '{answer}'" in caught.value.message
        assert "there is no model" in caught.value.message and caught.value.line == 1


def test_minisat_s_result_file_checks(tmp_path: Path, twins: str) -> None:
    cnf = write(tmp_path / "f.cnf", "p cnf 3 3\n1 2 0\n-1 3 0\n-3 -2 0\n")
    out = tmp_path / "out.txt"
    subprocess.run([solver("minisat"), str(cnf), str(out)], capture_output=True)
    assert out.read_text().startswith("SAT\n")
    assert run_files(cnf, model_path=out).result["valid"]
    unsat = pigeonhole_cnf(tmp_path / "php.cnf")
    subprocess.run([solver("minisat"), str(unsat), str(out)], capture_output=True)
    with pytest.raises(DimacsError, match="'UNSAT'"):
        run_files(unsat, model_path=out)


# -- FRAT ---------------------------------------------------------------------------


FRAT = (
    "o 1 1 2 0\no 2 -1 2 0\no 3 1 -2 0\no 4 -1 -2 0\n"
    "a 5 1 0 l 1 3 0\nd 1 1 2 0\nr 5 7\na 6 0 l 5 2 4 0\nf 6 0\nf 5 1 0\n"
)


def test_frat_text_is_read_as_drup(tmp_path: Path, twins: str) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT)
    for suffix, pack in COMPRESS.items():
        proof = write(tmp_path / f"p.frat{suffix}", pack(FRAT.encode()))
        steps, said = read_proof(cnf, proof)
        assert steps == STEPS
        assert said == ["proof: read as FRAT (clause ids and hints ignored)"]
        assert valid(cnf, proof)
    assert drup_arrays(FRAT.encode())[0].tolist() == [0, 1, 0]
    with pytest.raises(DimacsError) as caught:
        read_proof(cnf, write(tmp_path / "bad.frat", FRAT.replace("a 6 0", "a 6 x 0")))
    assert caught.value.line == 8 and "'x' is not an integer" in caught.value.message


def test_a_long_frat_step_is_rewritten_without_an_object_a_word() -> None:
    # 2 MB of literals in one step: the rewrite held every word as an object
    # (about 44 bytes a byte of line); it now keeps the line's slices.
    import tracemalloc

    from sat_claim_check._io.frat import drup_of_frat

    line = b"a 7 " + b"1 -2 " * 200_000 + b"0 l 1 2 3 0\n"
    tracemalloc.start()
    try:
        out = drup_of_frat(line)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.split() == line.split()[2 : line.split().index(b"l")]
    assert peak < 6 * len(line), peak


def _frat_words(line: bytes) -> list[bytes]:
    """What a FRAT line reads as, word by word (the rewrite's specification)."""
    words = line.split()
    if words and words[0] in (b"o", b"f", b"r"):
        return []
    if len(words) > 1 and words[0] in (b"a", b"d") and words[1].isdigit():
        body = words[2:]
        if words[0] == b"d":
            return [b"d", *body]
        return body[: body.index(b"l")] if b"l" in body else body
    return words


def test_frat_lines_read_as_their_words_say() -> None:
    from sat_claim_check._io.frat import drup_of_frat

    rng = random.Random(5)
    words = [b"a", b"d", b"o", b"f", b"r", b"l", b"0", b"1", b"-2", b"12", b"x", b"l2", b"c"]
    spaces = [b" ", b"  ", b"\t", b"\r", b"\x0b", b"\x0c", b"\n"]
    for _ in range(20_000):
        text = b"".join(rng.choice(words) + rng.choice(spaces) for _ in range(rng.randint(0, 12)))
        got = drup_of_frat(text).split(b"\n")
        assert [line.split() for line in got] == [_frat_words(x) for x in text.split(b"\n")]


def test_cryptominisat_s_frat_proof_checks(tmp_path: Path, twins: str) -> None:
    cnf = pigeonhole_cnf(tmp_path / "php.cnf")
    proof = tmp_path / "php.frat"
    run = subprocess.run(
        [solver("cryptominisat5"), str(cnf), str(proof)], capture_output=True, timeout=120
    )
    assert run.returncode == 20
    assert valid(cnf, proof, deletions="lenient")


# -- status and comment lines in a proof pipe ---------------------------------------


def test_status_lines_in_a_text_proof_are_skipped(tmp_path: Path, twins: str) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT)
    proof = write(tmp_path / "p.drup", "c solving\n1 0\nd 1 2\n c x\n0\n0\ns UNSATISFIABLE\n")
    steps, said = read_proof(cnf, proof)
    assert steps == STEPS
    assert said == [
        "proof: skipped a solver's status line 's UNSATISFIABLE' at line 7 "
        "(not a proof step; any later ones are skipped too)"
    ]
    assert valid(cnf, proof)


def test_binary_proofs_with_a_solver_s_lines_between_the_steps(tmp_path: Path, twins: str) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT)
    steps = encode(STEPS)
    data = b"c banner\nc --- [x]\n" + steps[:3] + b"c between\n" + steps[3:] + b"s UNSATISFIABLE\n"
    for suffix, pack in COMPRESS.items():
        proof = write(tmp_path / f"p.drat{suffix}", pack(data))
        read, said = read_proof(cnf, proof)
        assert read == STEPS
        assert said == [
            "proof: skipped comment lines ('c ...') between the binary steps, the first at byte 0",
            "proof: skipped a solver's status line 's UNSATISFIABLE' at byte "
            f"{len(data) - 16} (not a proof step; any later ones are skipped too)",
        ]


def test_the_scanner_twins_skip_lines_alike_however_cut(twins: str) -> None:
    from sat_claim_check._engines import scan_c, scan_py

    data = b"c a\n" + encode(STEPS[:2]) + b"s UNSAT\nc b" + b"\n" + encode(STEPS[2:])
    answers: dict[str, list] = {"scan_c": [], "scan_py": []}
    for module in (scan_c, scan_py):
        for cut in range(len(data) + 1):
            stream = module.BinaryDrupStream()
            first = stream.scan(data[:cut], False)
            last = stream.scan(data[cut:], True)
            lits = first[6].tolist() + last[6].tolist()
            seen = (stream.status_lines[:2], stream.comment_lines[:2])
            answers[module.__name__.rsplit(".", 1)[1]].append((first[0], last[0], lits, seen))
    assert answers["scan_c"] == answers["scan_py"]
    assert {repr(a) for a in answers["scan_py"]} == {repr((0, 0, [1, 1, 2], ((1, 11), (2, 0))))}
    text = b"1 0\n  s UNSATISFIABLE\nd 1 2 0\ns\n0\n"
    for module in (scan_c, scan_py):
        stream = module.DrupTextStream()
        result = stream.scan(text, True)
        assert (result[0], result[4].tolist(), stream.status_lines) == (0, [0, 1, 0], (2, 2, 6))
        assert module.parse_drup(b"1 s 0\n")[0] == 1  # only at a line's start


def test_check_stream_says_its_notes(tmp_path: Path) -> None:
    cnf = write(tmp_path / "f.cnf", UNSAT)
    proof = write(tmp_path / "p.drup", "1 0\ns UNSATISFIABLE\n0\n")
    options = Options.of("auto", scc.Limits.unlimited(), "strict", None)
    checker = checker_of_arrays(*read_cnf(cnf, options.limits, 1 << 20), options)
    said: list[str] = []
    check_stream(checker, proof, 1 << 20, notes=said.append)
    assert checker.finish().result["valid"] and len(said) == 1 and "line 2" in said[0]
    assert list(proof_parts(proof, 1 << 20, "auto"))  # no notes asked: none said


def cadical_stdout(tmp_path: Path, *flags: str) -> tuple[Path, Path]:
    cnf = pigeonhole_cnf(tmp_path / "php.cnf")
    run = subprocess.run(
        [solver("cadical"), *flags, str(cnf), "-"], capture_output=True, timeout=120
    )
    assert run.returncode == 20 and b"s UNSATISFIABLE" in run.stdout
    return cnf, write(tmp_path / "stdout", run.stdout)


@pytest.mark.parametrize("flags", [["-q"], [], ["-q", "--binary=false"], ["--binary=false"]])
def test_cadical_s_standard_output_checks(tmp_path: Path, twins: str, flags: list[str]) -> None:
    cnf, out = cadical_stdout(tmp_path, *flags)
    for suffix, pack in COMPRESS.items():
        proof = write(tmp_path / f"p{suffix}", pack(out.read_bytes()))
        assert valid(cnf, proof)
        _, said = read_proof(cnf, proof)
        assert any("'s UNSATISFIABLE'" in note for note in said)
    with out.open("rb") as pipe_like:  # an open file: read as a pipe is
        assert valid(cnf, pipe_like)


def test_cadical_writing_into_a_pipe_checks(tmp_path: Path, twins: str) -> None:
    cnf = pigeonhole_cnf(tmp_path / "php.cnf")
    run = subprocess.Popen([solver("cadical"), str(cnf), "-"], stdout=subprocess.PIPE)
    assert run.stdout is not None
    try:
        assert valid(cnf, run.stdout)
    finally:
        run.stdout.close()
        run.wait(60)


# -- files in the wrong slots ----------------------------------------------------------


def _hint(call, *args: object, **kw: object) -> str:
    with pytest.raises(DimacsError) as caught:
        call(*args, **kw)
    assert caught.value.hint is not None, str(caught.value)
    return caught.value.hint


@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_swapped_files_get_a_hint(tmp_path: Path, twins: str, suffix: str) -> None:
    pack = COMPRESS[suffix]
    cnf = write(tmp_path / f"f.cnf{suffix}", pack(UNSAT.encode()))
    texts = {
        "binary": encode(STEPS),
        "drup": PROOF_TEXT.encode(),
        "frat": FRAT.encode(),
        "model": b"s SATISFIABLE\nv 1 -2 0\n",
        "minisat": b"SAT\n1 -2 0\n",
    }
    f = {k: write(tmp_path / f"{k}{suffix}", pack(v)) for k, v in texts.items()}
    for proof in ("binary", "drup", "frat"):
        assert "Are --cnf and --proof swapped?" in _hint(parse_files, f[proof], cnf, None)
    assert "Are --cnf and --proof swapped?" in _hint(parse_files, cnf, cnf, None)
    for model in ("model", "minisat"):
        hint = _hint(parse_files, cnf, f[model], None)
        assert "Are --proof and --model swapped?" in hint
        assert "Are --cnf and --model swapped?" in _hint(parse_files, f[model], cnf, None)
    for proof in ("binary", "drup", "frat"):
        hint = _hint(parse_files, cnf, None, f[proof])
        assert "Are --model and --proof swapped?" in hint
    assert "Are --cnf and --model swapped?" in _hint(parse_files, cnf, None, cnf)
    # The proof read as text although binary, and the in-memory doors.
    hint = _hint(parse_files, cnf, f["binary"], None, proof_format="text")
    assert "--proof-format binary" in hint
    assert "swapped" in _hint(scc.dimacs.cnf_arrays, encode(STEPS))
    assert "swapped" in _hint(drup_arrays, UNSAT.encode())
    assert "swapped" in _hint(model_literals, PROOF_TEXT.encode())


def test_a_dimacs_error_takes_a_hint_and_stays_as_it_was() -> None:
    err = DimacsError("proof: x", "p", 3)
    assert (err.message, err.file, err.line, err.offset, err.hint) == (
        "proof: x",
        "p",
        3,
        None,
        None,
    )
    assert DimacsError("m", hint="h").hint == "h" and str(DimacsError("m", hint="h")) == "m"
