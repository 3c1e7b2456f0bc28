"""ASGI plumbing for the service: JSON responses, request bodies, disconnects.

What any small ASGI application needs and no framework is brought in for:
reading a body within a cap, dropping one that will not be answered,
noticing that the client has gone, and sending one JSON response.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Iterable, MutableMapping
from typing import Any, Callable

__all__ = [
    "BodyTooLarge",
    "Disconnected",
    "Receive",
    "Scope",
    "Send",
    "disconnected",
    "drop_body",
    "error_body",
    "json_media_type",
    "read_body",
    "respond",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BodyTooLarge(Exception):
    """The body passed its cap while it streamed."""


class Disconnected(Exception):
    """The client went away before its body arrived."""


def error_body(error: str, message: str, **extra: object) -> bytes:
    """A JSON error object: {"error", ...extra, "message"}."""
    return json.dumps({"error": error, **extra, "message": message}, separators=(",", ":")).encode()


def json_media_type(value: bytes | None) -> bool:
    """``application/json``, with no parameter or ``charset=utf-8`` only."""
    if value is None:
        return False
    media, *params = value.decode("latin-1").split(";")
    if media.strip().lower() != "application/json":
        return False
    for param in params:
        name, _, arg = param.partition("=")
        if name.strip().lower() != "charset" or arg.strip().strip('"').lower() != "utf-8":
            return False
    return True


async def read_body(receive: Receive, max_bytes: int) -> bytes:
    """The whole body; BodyTooLarge past ``max_bytes``, Disconnected if the client goes.

    The pieces go into one buffer as they come: a body sent a few bytes at a
    time arrives in about as many messages, and a list of them held a bytes
    object per piece (a server grew by 46 times a body sent 2 bytes at a
    time).  A body in one message is returned as it came, not copied.
    """
    body: bytes | bytearray = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Disconnected
        chunk = message.get("body", b"")
        if len(body) + len(chunk) > max_bytes:
            raise BodyTooLarge
        if not body and type(chunk) is bytes:
            body = chunk  # the first piece, often the whole body
        elif chunk:
            if type(body) is not bytearray:
                body = bytearray(body)
            body += chunk
        if not message.get("more_body", False):
            return bytes(body)


async def drop_body(receive: Receive, max_bytes: int, seconds: float) -> None:
    """Read and drop what the client is still sending: at most ``max_bytes``,
    for at most ``seconds``, until it pauses for half a second."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    size = 0
    while size <= max_bytes:
        wait = min(deadline - loop.time(), 0.5)
        if wait <= 0:
            return
        try:
            message = await asyncio.wait_for(receive(), wait)
        except asyncio.TimeoutError:
            return
        if message["type"] == "http.disconnect" or not message.get("more_body", False):
            return
        size += len(message.get("body", b""))


async def disconnected(receive: Receive) -> None:
    """Return when the client has disconnected."""
    while (await receive())["type"] != "http.disconnect":
        pass


async def respond(
    send: Send,
    status: int,
    body: bytes,
    headers: Iterable[tuple[bytes, bytes]] = (),
    *,
    head: bool = False,
    close: bool = False,
) -> None:
    """Send one JSON response; ``close`` when the request body may be unread."""
    start = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *headers,
    ]
    if close:
        start.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": b"" if head else body})
