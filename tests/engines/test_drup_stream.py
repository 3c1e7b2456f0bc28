"""DRUP text scanned in parts (``DrupTextStream``): any cut after whitespace
gives the steps and the first error of the whole text scanned at once.

The whole-text scan (``parse_drup``) is the reference: both twins' streams,
fed the text in random parts, must give its arrays when the text is good,
and its error (code, line, token) with the steps before it when it is not.
"""

from __future__ import annotations

import gzip
import importlib
import random
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sat_claim_check._core import codes as _codes
from sat_claim_check._engines import scan_py
from sat_claim_check._engines.scan_py import parse_drup

WHITESPACE = b" \t\n\r\x0b\x0c"


@pytest.fixture(
    scope="module", params=[pytest.param("scan_c", marks=pytest.mark.compiled), "scan_py"]
)
def twin(request: pytest.FixtureRequest) -> Any:
    return importlib.import_module(f"sat_claim_check._engines.{request.param}")


def cuts_after_whitespace(data: bytes, rng: random.Random, parts: int) -> list[bytes]:
    """data cut into at most ``parts`` pieces, each but the last ending in whitespace."""
    spots = [i + 1 for i, byte in enumerate(data) if byte in WHITESPACE]
    chosen = sorted(rng.sample(spots, min(len(spots), parts - 1)))
    pieces, start = [], 0
    for stop in chosen:
        pieces.append(data[start:stop])
        start = stop
    pieces.append(data[start:])
    return pieces


def streamed(twin: Any, pieces: list[bytes], with_lines: bool = False) -> tuple[Any, ...]:
    """(code, line, token, kinds, offsets, lits) of the stream fed these pieces,
    arrays joined across parts (and the steps' lines, with ``with_lines``)."""
    stream = twin.DrupTextStream()
    kinds, offsets, lits, lines = array("b"), array("i", [0]), array("i"), array("q")
    code, line, token = _codes.SCAN_OK, 0, None
    for k, piece in enumerate(pieces):
        code, line, token, _value, k_part, o_part, l_part, n_part = stream.scan(
            piece, k == len(pieces) - 1
        )
        assert o_part[0] == 0 and len(o_part) == len(k_part) + 1 == len(n_part) + 1
        assert len(l_part) == o_part[-1]
        base = len(lits)
        kinds.extend(k_part)
        offsets.extend(base + o for o in o_part[1:])
        lits.extend(l_part)
        lines.extend(n_part)
        if code != _codes.SCAN_OK:
            break
    out = (code, line, token, kinds, offsets, lits)
    return (*out, lines) if with_lines else out


def whole(data: bytes) -> tuple[Any, ...]:
    """What the stream must answer: the whole scan's (code, line, token), its
    arrays when the text is good, and otherwise the steps the pure stream
    completes in one part before the error (cut independence and the twins'
    agreement are what is checked then)."""
    code, line, token, _value, kinds, offsets, lits = parse_drup(data)
    if code == _codes.SCAN_OK:
        return code, line, token, kinds, offsets, lits
    one_part = streamed(scan_py, [data])
    assert one_part[:3] == (code, line, token)
    return one_part


def compare(twin: Any, data: bytes, rng: random.Random) -> None:
    expected = whole(data)
    for parts in (1, 2, 5, 50):
        assert streamed(twin, cuts_after_whitespace(data, rng, parts)) == expected, (data, parts)


TOKENS = st.sampled_from(
    [
        b"1",
        b"-2",
        b"3",
        b"0",
        b"0",
        b"d",
        b"c",
        b"cx",
        b"007",
        b"-0",
        b"x",
        b"2147483647",
        b"2147483648",
        b"1+",
        b"%",
        b"p",
    ]
)
SEPARATORS = st.sampled_from([b" ", b"\n", b"  ", b"\t", b"\r\n", b"\n\n", b"\x0b"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TOKENS, SEPARATORS), max_size=40), st.integers(0, 2**32))
def test_random_texts_in_random_parts(
    twin: Any, pairs: list[tuple[bytes, bytes]], seed: int
) -> None:
    data = b"".join(tok + sep for tok, sep in pairs)
    compare(twin, data, random.Random(seed))


@pytest.mark.parametrize(
    "text",
    [
        b"c a comment 1 2 0\n1 2 0\n",  # a comment cut between its words
        b"1 2\n3 0\nd 1 2 3 0\n0\n",  # a step spanning lines
        b"   \n  c x\n1 0",  # no newline at the end
        b"1 2 0 d 3 0\n",  # 'd' inside a line
        b"1 2\n",  # unterminated
        b"1 d 2 0\n",  # 'd' inside a step
        b"",
    ],
)
def test_hand_cases_every_cut(twin: Any, text: bytes) -> None:
    expected = whole(text)
    spots = [i + 1 for i, byte in enumerate(text) if byte in WHITESPACE]
    for cut in spots:
        assert streamed(twin, [text[:cut], text[cut:]]) == expected, (text, cut)


def test_steps_before_an_error_are_given(twin: Any) -> None:
    stream = twin.DrupTextStream()
    code, line, token, _, kinds, offsets, lits, _ = stream.scan(b"1 2 0\nd 1 2 0\n3 x 0\n", True)
    assert (code, line, token) == (_codes.SCAN_ERR_TOKEN, 3, b"x")
    assert list(kinds) == [_codes.STEP_ADD, _codes.STEP_DELETE]
    assert list(offsets) == [0, 2, 4] and list(lits) == [1, 2, 1, 2]
    with pytest.raises(RuntimeError):
        stream.scan(b"1 0\n", True)


def test_corpus_proofs_in_parts(twin: Any, corpus: Path) -> None:
    rng = random.Random(7)
    paths = sorted(corpus.glob("*.drup"))[:20] + sorted(corpus.glob("l00*.drup.gz"))[:1]
    for path in paths:
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        if path.suffix == ".gz":
            data = data[:2_000_000]
            data = data[: data.rfind(b"\n") + 1]
        expected = parse_drup(data)
        got = streamed(twin, cuts_after_whitespace(data, rng, 200))
        assert got[0] == expected[0] == _codes.SCAN_OK, path.name
        assert got[3:] == (expected[4], expected[5], expected[6]), path.name


def test_each_step_comes_with_the_line_where_it_starts(twin: Any) -> None:
    text = b"c x\n1 2 0 3 0\n\nd 1\n2 0\n0\n"
    rng = random.Random(3)
    for parts in (1, 3, 20):
        got = streamed(twin, cuts_after_whitespace(text, rng, parts), with_lines=True)
        assert list(got[6]) == [2, 2, 4, 6], parts


@pytest.mark.timing
@pytest.mark.compiled
@pytest.mark.parametrize("kind", ["DrupTextStream", "CnfTextStream"])
def test_a_step_spanning_many_parts_costs_no_more_than_its_bytes(kind: str) -> None:
    """A step (or clause) of 8M literals, no 0 before the end, fed in 4 kB
    parts: the open step is not copied again part after part (it was, 100
    times the time of one part on this text)."""
    import time

    from sat_claim_check._engines import scan_c

    text = b"p cnf 1 1\n" if kind == "CnfTextStream" else b""
    text += b"1 " * 8_000_000 + b"0\n"

    def seconds(size: int) -> float:
        stream = getattr(scan_c, kind)()
        start = time.perf_counter()
        for at in range(0, len(text), size):
            part = stream.scan(text[at : at + size], at + size >= len(text))
            assert part[0] == _codes.SCAN_OK
        assert len(part[-1 if kind == "CnfTextStream" else -2]) == 8_000_000
        return time.perf_counter() - start

    at_once = min(seconds(len(text)) for _ in range(3))
    assert seconds(4096) < 5 * at_once + 0.05


def test_the_open_step_is_counted(twin: Any) -> None:
    stream = twin.DrupTextStream()
    assert stream.open_literals == 0
    stream.scan(b"1 2 0\nd 3 4 ", False)
    assert stream.open_literals == 2
    stream.scan(b"5 ", False)
    assert stream.open_literals == 3
    stream.scan(b"0\n", True)
    assert stream.open_literals == 0
