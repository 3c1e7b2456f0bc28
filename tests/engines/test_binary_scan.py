"""Binary DRUP as a stream: BinaryDrupStream (both twins) and looks_binary.

* Both twins give the same steps, errors and offsets however the stream is
  cut (1-byte chunks included), and the steps of the text scanner on the
  text of the same steps.
* Every corpus proof re-encoded in binary gives the arrays of its text, and a
  binary proof written by CaDiCaL those of its --no-binary twin.
* Hostile bytes give the documented errors (csrc/binary_scan.h), never a crash.
* looks_binary is drat-trim's rule: it agrees with drat-trim itself.
"""

from __future__ import annotations

import gzip
import importlib
import os
import random
import subprocess
from pathlib import Path

import pytest
from _binary import cut, encode, leb128, scan_chunks, steps_of, text
from hypothesis import given, settings
from hypothesis import strategies as st

from sat_claim_check._core import codes as _codes
from sat_claim_check._engines import scan_py
from sat_claim_check._io.sniff import SNIFF_BYTES, looks_binary

OK = _codes.SCAN_OK
ERR_TOKEN = _codes.SCAN_ERR_TOKEN
ERR_INT_RANGE = _codes.SCAN_ERR_INT_RANGE
ERR_UNTERMINATED = _codes.SCAN_ERR_UNTERMINATED
INT32_MAX = 2**31 - 1

DRAT_TRIM = Path("/work/tools/drat-trim-bin")


@pytest.fixture(params=[pytest.param("compiled", marks=pytest.mark.compiled), "pure"])
def stream_class(request):
    """BinaryDrupStream of one twin (the compiled one imported directly: a
    missing extension is an error; --no-compiled deselects it)."""
    name = "scan_c" if request.param == "compiled" else "scan_py"
    return importlib.import_module(f"sat_claim_check._engines.{name}").BinaryDrupStream


def _compiled_class():
    return importlib.import_module("sat_claim_check._engines.scan_c").BinaryDrupStream


def _both(data: bytes, points) -> tuple:
    """The pure twin's answer for data cut at points; the compiled twin must
    give the same."""
    chunks = cut(data, points)
    pure = scan_chunks(scan_py.BinaryDrupStream(), chunks, with_starts=True)
    assert scan_chunks(_compiled_class()(), chunks, with_starts=True) == pure
    return pure[:7]


def _text_arrays(proof_text: bytes) -> tuple:
    code, _, _, _, kinds, offsets, lits = scan_py.parse_drup(proof_text)
    assert code == OK
    return kinds, offsets, lits


# -- generated steps -----------------------------------------------------------------

literals = st.one_of(
    st.integers(-80, 80),  # one byte, and two near 64
    st.integers(-INT32_MAX, INT32_MAX),
    st.sampled_from([INT32_MAX, -INT32_MAX, 2**27, -(2**27), 2**13, -(2**13)]),
).filter(bool)
steps = st.lists(st.tuples(st.sampled_from([0, 1]), st.lists(literals, max_size=8)), max_size=25)


@pytest.mark.compiled
@settings(max_examples=150, deadline=None)
@given(steps, st.lists(st.integers(0, 10**6), max_size=12))
def test_twins_agree_with_the_text_scanner_however_the_stream_is_cut(proof, points):
    data = encode(proof)
    code, where, token, value, kinds, offsets, lits = _both(data, points)
    assert (code, where, token, value) == (OK, len(data), None, 0)
    assert (kinds, offsets, lits) == _text_arrays(text(proof))
    assert steps_of(kinds, offsets, lits) == [(k, list(ls)) for k, ls in proof]


@pytest.mark.compiled
@settings(max_examples=40, deadline=None)
@given(steps)
def test_one_byte_chunks_give_the_same_arrays(proof):
    data = encode(proof)
    assert _both(data, range(len(data)))[4:] == _text_arrays(text(proof))


def test_each_twin_reads_one_byte_chunks(stream_class):
    proof = [(0, [1, -2, 70, -(2**20)]), (1, [INT32_MAX]), (0, [])]
    data = encode(proof)
    result = scan_chunks(stream_class(), cut(data, range(len(data))))
    assert result == (OK, len(data), None, 0, *_text_arrays(text(proof)))


def test_the_open_step_is_kept_between_calls(stream_class):
    stream = stream_class()
    # "a 1 -2 ..." cut inside the step and inside a two-byte literal (64: 0x80 0x01).
    first = stream.scan(b"a\x02\x05d\x02\x80", False)
    assert first[0] == OK and first[1] == 6
    assert list(first[4]) == [] and list(first[5]) == [0] and list(first[6]) == []
    assert stream.open_literals == 4  # 1, -2, 50, 1: 'd' is a literal here
    second = stream.scan(memoryview(bytearray(b"\x01\x00")), True)
    assert second[:4] == (OK, 8, None, 0)
    assert list(second[4]) == [0] and list(second[5]) == [0, 5]
    assert list(second[6]) == [1, -2, 50, 1, 64]
    assert stream.open_literals == 0


# -- the corpus and CaDiCaL ----------------------------------------------------------


def _corpus_proofs(corpus: Path, pattern: str = "*.drup") -> list[Path]:
    paths = sorted(corpus.glob(pattern))
    if not paths:
        pytest.skip(f"no {pattern} in the corpus")
    return paths


def test_corpus_proofs_in_binary_give_the_arrays_of_their_text(stream_class, corpus):
    for path in _corpus_proofs(corpus):
        proof_text = path.read_bytes()
        arrays = _text_arrays(proof_text)
        data = encode(steps_of(*arrays))
        chunks = cut(data, random.Random(path.name).sample(range(len(data)), 5))
        assert scan_chunks(stream_class(), chunks) == (OK, len(data), None, 0, *arrays), path


@pytest.mark.compiled
def test_large_corpus_proofs_in_binary_give_the_arrays_of_their_text(corpus):
    for path in _corpus_proofs(corpus, "l00[0-3]*.drup.gz"):
        arrays = _text_arrays(gzip.decompress(path.read_bytes()))
        data = encode(steps_of(*arrays))
        chunks = [data[i : i + 65536] for i in range(0, len(data), 65536)]
        assert scan_chunks(_compiled_class()(), chunks) == (OK, len(data), None, 0, *arrays)


def _cadical(solver: str, cnf: Path, proof: Path, *options: str) -> None:
    proc = subprocess.run(
        [solver, "-q", *options, str(cnf), str(proof)], capture_output=True, timeout=60
    )
    assert proc.returncode == 20, proc.stdout + proc.stderr  # UNSATISFIABLE


def test_a_cadical_binary_proof_gives_the_arrays_of_its_text(
    stream_class, corpus, tmp_path, cadical
):
    cnf = corpus / "c001-php-pigeons5-holes4-cadical-bin-s1100.cnf"
    if not cnf.exists():
        pytest.skip("the corpus has no c001 CNF")
    binary, plain = tmp_path / "proof.drat", tmp_path / "proof.txt"
    _cadical(cadical, cnf, binary)  # binary is CaDiCaL's default for a file
    _cadical(cadical, cnf, plain, "--no-binary")
    data = binary.read_bytes()
    assert looks_binary(data[:SNIFF_BYTES]) and not looks_binary(plain.read_bytes())
    arrays = _text_arrays(plain.read_bytes())
    assert len(arrays[0]) > 10 and 1 in arrays[0]  # deletions too
    assert scan_chunks(stream_class(), cut(data, [7, 100])) == (OK, len(data), None, 0, *arrays)


# -- hostile bytes ----------------------------------------------------------------


def _scan(stream_class, data: bytes) -> tuple:
    return scan_chunks(stream_class(), [data])


def test_a_byte_other_than_a_or_d_at_a_step_start(stream_class):
    result = _scan(stream_class, b"a\x02\x00x\x02\x00")
    assert result[:4] == (ERR_TOKEN, 3, b"x", 0)
    assert list(result[4]) == [0] and list(result[6]) == [1]  # the step before it
    # The text of a text proof is no binary proof: '1' is no step start.
    assert _scan(stream_class, b"1 2 0\n")[:4] == (ERR_TOKEN, 0, b"1", 0)
    # A stray terminator between steps.
    assert _scan(stream_class, b"a\x00\x00")[:4] == (ERR_TOKEN, 2, b"\x00", 0)


def test_minus_zero_is_an_error(stream_class):
    # u = 1 would be "-0": neither a literal nor the end of the step.
    assert _scan(stream_class, b"a\x02\x01\x00")[:4] == (ERR_TOKEN, 2, b"\x01", 1)
    assert _scan(stream_class, b"a\x81\x80\x00")[:4] == (ERR_TOKEN, 1, b"\x81\x80\x00", 1)


def test_redundant_zero_groups_are_read_within_five_bytes(stream_class):
    # 0x82 0x80 0x00 is u = 2 (literal 1) in three bytes; 0x80 0x00 is u = 0.
    result = _scan(stream_class, b"a\x82\x80\x00\x80\x80\x80\x80\x00")
    assert result[:4] == (OK, 9, None, 0)
    assert list(result[6]) == [1] and list(result[5]) == [0, 1]


def test_overlong_and_huge_integers_are_out_of_range(stream_class):
    # The largest literal: u = 2^32 - 1 = ff ff ff ff 0f.
    top = leb128(2**32 - 1)
    assert top == b"\xff\xff\xff\xff\x0f"
    ok = _scan(stream_class, b"a" + top + b"\x00")
    assert ok[:4] == (OK, 7, None, 0) and list(ok[6]) == [-INT32_MAX]
    # u = 2^32 (literal 2^31): five bytes, too large.
    assert _scan(stream_class, b"a\x02" + leb128(2**32) + b"\x00")[:4] == (
        ERR_INT_RANGE,
        2,
        leb128(2**32),
        2**32,
    )
    # A sixth byte, even of zero groups: out of range at the fifth.
    assert _scan(stream_class, b"a\x80\x80\x80\x80\x80\x00")[:4] == (
        ERR_INT_RANGE,
        1,
        b"\x80" * 5,
        0,
    )
    assert _scan(stream_class, b"a" + b"\xff" * 100)[:4] == (
        ERR_INT_RANGE,
        1,
        b"\xff" * 5,
        2**35 - 1,
    )


def test_truncated_streams(stream_class):
    assert _scan(stream_class, b"")[:4] == (OK, 0, None, 0)
    assert _scan(stream_class, b"a\x02\x00")[:4] == (OK, 3, None, 0)
    # Inside a step, inside an integer, just after the 'd': where is the step's start.
    for tail in (b"a\x02", b"a\x82", b"d"):
        result = _scan(stream_class, b"a\x00" + tail)
        assert result[:4] == (ERR_UNTERMINATED, 2, None, 0), tail
        assert list(result[4]) == [0]


def test_the_stream_refuses_calls_after_it_ended(stream_class):
    stream = stream_class()
    stream.scan(b"a\x00", True)
    with pytest.raises(RuntimeError):
        stream.scan(b"a\x00", False)
    stream = stream_class()
    assert stream.scan(b"q", False)[0] == ERR_TOKEN
    with pytest.raises(RuntimeError):
        stream.scan(b"", True)


@pytest.mark.compiled
def test_garbage_gives_the_same_answer_from_both_twins():
    rng = random.Random(20261201)
    codes = set()
    for n in range(400):
        size = rng.randrange(1, 60)
        if n % 2:  # mostly well-formed steps, with a few bytes changed
            data = bytearray(
                encode(
                    [
                        (
                            rng.randrange(2),
                            [
                                rng.choice([1, -1]) * rng.randrange(1, 2 ** rng.randrange(1, 32))
                                for _ in range(rng.randrange(4))
                            ],
                        )
                        for _ in range(rng.randrange(1, 6))
                    ]
                )
            )
            for _ in range(rng.randrange(1, 3)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        else:
            data = bytearray(rng.randrange(256) for _ in range(size))
        result = _both(bytes(data), [rng.randrange(len(data) + 1) for _ in range(3)])
        code, where = result[:2]
        assert code in (OK, ERR_TOKEN, ERR_INT_RANGE, ERR_UNTERMINATED)
        assert 0 <= where <= len(data)
        codes.add(code)
    assert codes == {OK, ERR_TOKEN, ERR_INT_RANGE, ERR_UNTERMINATED}


# -- looks_binary: drat-trim's rule ------------------------------------------------------


def test_looks_binary_on_the_corpus(corpus):
    for path in _corpus_proofs(corpus):
        proof_text = path.read_bytes()
        assert not looks_binary(proof_text[:SNIFF_BYTES]), path
        data = encode(steps_of(*_text_arrays(proof_text)))
        assert looks_binary(data[:SNIFF_BYTES]), path


# Literals whose codes are text bytes: \n ' ' '-' '0' '1' '9' 'c' 'd' \r \n ' '.
TEXT_LIKE = [5, 16, -22, 24, -24, -28, -49, 50, -6, 5, 16]


def test_looks_binary_edge_cases():
    assert looks_binary(b"") and looks_binary(b"0")  # drat-trim: end of file early
    assert not looks_binary(b"0\n")
    assert not looks_binary(b"c comment with Words\n1 0\n")  # letters in a comment
    assert looks_binary(b"c with {a}")  # "{" is past "z"
    assert looks_binary(b"cx comment\n")  # no "c " start: 'x' counts
    assert looks_binary(b"d\x02\x00")
    # A deletion whose first 11 literals all encode as text bytes looks like text.
    assert not looks_binary(encode([(1, TEXT_LIKE)]))
    assert looks_binary(encode([(1, TEXT_LIKE[:9])]))  # its 0 is the 11th byte
    # Only the first 12 bytes count.
    assert not looks_binary(b"1 2 3 4 5 6 \x01")


def _drat_trim_says_binary(cnf: Path, proof: Path) -> bool:
    proc = subprocess.run(
        [str(DRAT_TRIM), str(cnf), str(proof), "-t", "5"], capture_output=True, timeout=60
    )
    return b"turning on binary mode checking" in proc.stdout


@pytest.mark.skipif(not os.access(DRAT_TRIM, os.X_OK), reason="drat-trim is not built")
def test_looks_binary_agrees_with_drat_trim(corpus, tmp_path):
    cnf = corpus / "c000-php-pigeons5-holes4-glucose3-s1000.cnf"
    text_proof = corpus / "c000-php-pigeons5-holes4-glucose3-s1000.drup"
    if not (cnf.exists() and text_proof.exists()):
        pytest.skip("the corpus has no c000 instance")
    proof_text = text_proof.read_bytes()
    steps = steps_of(*_text_arrays(proof_text))
    heads = [
        proof_text,
        encode(steps),
        encode([(1, TEXT_LIKE), *steps]),  # a text-like deletion first
        encode([(1, [*TEXT_LIKE[:10], 3]), *steps]),  # 3 encodes as 0x06, byte 12
        b"c a comment Of Words\n" + proof_text,
        b"c {a} comment\n" + proof_text,  # "{" is past "z"
        b"d 1 2 0\n" + proof_text,
        b"\n\n  " + proof_text,
    ]
    for n, data in enumerate(heads):
        proof = tmp_path / f"proof{n}"
        proof.write_bytes(data)
        assert looks_binary(data[:SNIFF_BYTES]) == _drat_trim_says_binary(cnf, proof), data[:12]


def test_the_pure_twin_keeps_an_open_step_without_copying_it() -> None:
    """A step open over many calls is kept as it is, as binary_scan.h keeps
    it: not copied again at every call (time quadratic in its length)."""
    from sat_claim_check._engines.scan_binary_py import BinaryDrupStream

    stream = BinaryDrupStream()
    stream.scan(b"a" + b"\x02" * 100, False)
    kept = stream._pending
    for _ in range(20):
        part = stream.scan(b"\x04" * 100, False)
        assert stream._pending is kept and len(part[6]) == 0
    assert stream.open_literals == 2100
    part = stream.scan(b"\x00", True)
    assert part[0] == 0 and list(part[5]) == [0, 2100] and len(part[6]) == 2100
