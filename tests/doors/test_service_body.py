"""The service's body reader (``_asgi.read_body``) on a body that comes a few
bytes a message, as a client that trickles it with TCP_NODELAY sends it: the
memory it holds follows the body's size, not the number of its pieces.
"""

from __future__ import annotations

import asyncio
import tracemalloc
from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest

from sat_claim_check._asgi import BodyTooLarge, Disconnected, read_body


def receiver(pieces: Iterator[bytes], *, end: bool = True) -> Any:
    """An ASGI receive() that gives each piece in its own http.request message,
    a new bytes object each time (as a server makes them from its buffer)."""
    pending = deque(pieces)

    async def receive() -> dict[str, Any]:
        if not pending:
            return {"type": "http.disconnect"}
        piece = bytes(bytearray(pending.popleft()))
        return {"type": "http.request", "body": piece, "more_body": bool(pending) or not end}

    return receive


def read(pieces: list[bytes], max_bytes: int, end: bool = True) -> bytes:
    return asyncio.run(read_body(receiver(iter(pieces), end=end), max_bytes))


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_the_body_is_the_pieces_joined(size: int) -> None:
    body = bytes(range(256)) * 20
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    assert read(pieces, len(body)) == body
    assert read([b"", *pieces, b""], len(body)) == body
    with pytest.raises(BodyTooLarge):
        read(pieces, len(body) - 1)
    with pytest.raises(Disconnected):
        read(pieces, len(body), end=False)


def test_a_body_in_one_message_is_not_copied() -> None:
    body = b"{}" * 1000

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    assert asyncio.run(read_body(receive, len(body))) is body


def test_a_body_in_tiny_pieces_takes_about_its_own_size() -> None:
    # 400,000 bytes in 200,000 messages of 2 bytes.  Held as a list of the
    # pieces, the peak was 62 times the body; gathered in one buffer, it is
    # the buffer and the bytes returned (2.1 times the body).
    body = b"ab" * 200_000
    pieces = (body[i : i + 2] for i in range(0, len(body), 2))
    receive = receiver(pieces)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        got = asyncio.run(read_body(receive, len(body)))
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert got == body
    assert peak < 4 * len(body), (peak, len(body))
