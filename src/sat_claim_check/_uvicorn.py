"""``serve()``: the service on uvicorn, with the bounds uvicorn leaves to the application.

uvicorn's HTTP protocols are used as they are, with four additions, made in a
subclass of the one uvicorn would pick (httptools when it is installed, else
h11):

* **a deadline on waiting for the client**: a connection must complete a
  request's headers within ``header_timeout`` seconds of opening, or of the
  end of the previous response, and an answer that cannot be written (the
  client reads nothing) may wait as long; otherwise the connection is
  dropped.  (uvicorn's keep-alive timeout ends idle connections, but any byte
  received cancels it: one byte every few seconds held a connection for ever;
  and a client that never read its answers held one with nothing armed.)
* **a bound on input read ahead**: while a request is answered, what a client
  pipelines behind it stays in the socket once ``PIPELINE_BYTES`` of it are
  held (h11's buffer, or httptools' queued requests).  uvicorn resumes reading
  at every ``receive()`` and at the end of every response, so a client that
  pipelines and never reads its answers grew the server by a read (256 KiB)
  per request.
* **a bound on a request's headers**: a connection that has sent
  ``HEADER_BYTES`` while its request's headers are not complete is answered
  431 and closed.  h11 has such a bound (16 KiB); httptools has none, and
  keeps every header and the URL in Python objects, a long one grown by
  concatenation: 87 MB of headers sent in 4 s grew the server by 1.2 GB, and
  a 32 MB header value took 1.07 s to read (0.26 s for 16 MB).
* **a connection cap that costs the slow, not the service**: past
  ``max_connections`` open connections, the one that has waited longest on
  its client (for headers, or for an answer to be read) is dropped to make
  room (a new connection is refused only when every open one is in a request
  the server is working on).  uvicorn's own cap (``limit_concurrency``)
  answered 503 to every request, ``/healthz`` included, while its count of
  connections was full, whoever held them.

Needs uvicorn (the ``service`` extra); ``service.serve`` is the public name.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Any

from ._asgi import error_body
from ._io.bounds import HEADER_TIMEOUT

__all__ = ["HEADER_BYTES", "PIPELINE_BYTES", "bounded_protocol", "serve"]

# Input held beyond the request being answered, per connection, before reading
# stops: about one socket read (asyncio reads 256 KiB at a time).
PIPELINE_BYTES = 256 * 1024
# Bytes a connection may send while its request's headers are not complete
# (counted from the end of the previous answer; data read with the end of the
# headers is not counted).
HEADER_BYTES = 64 * 1024
_HEADERS_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
)
# SO_LINGER on, with no time to linger: close() resets the connection.
_RESET = struct.pack("ii", 1, 0)


def serve(
    application: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    max_connections: int = 512,
    header_timeout: float = HEADER_TIMEOUT,
    access_log: bool = True,
) -> None:
    """Run ``application`` (a ``service.Service``) on uvicorn until SIGINT or
    SIGTERM; returns None.  ``sat_claim_check.service.serve`` is this.

    On a signal the server stops accepting connections, answers the requests
    in flight, and then raises the signal again (uvicorn's way): SIGINT comes
    out as KeyboardInterrupt, SIGTERM ends the process.  ``max_connections``
    caps open connections: past it, the connection that has waited longest
    on its client is dropped to make room.  ``header_timeout``: seconds a
    connection has to complete a request's headers (from its start, or from
    the end of the previous answer), and an answer may wait unread, before
    the connection is dropped.  What a client pipelines behind the request
    being answered is read no further than PIPELINE_BYTES ahead, and a
    request's headers no further than HEADER_BYTES (431).  ValueError
    for a setting out of range; ImportError when uvicorn is not installed
    (``pip install "sat-claim-check[service]"``).
    """
    if isinstance(header_timeout, bool) or not (
        isinstance(header_timeout, (int, float)) and header_timeout > 0
    ):
        raise ValueError(f"header_timeout must be a positive number, got {header_timeout!r}")
    if type(max_connections) is not int or max_connections < 1:
        raise ValueError(f"max_connections must be an int >= 1, got {max_connections!r}")
    try:
        import uvicorn
        from uvicorn.config import LOGGING_CONFIG
    except ImportError as exc:
        raise ImportError(
            'sat-claim-check serve needs uvicorn: pip install "sat-claim-check[service]"'
        ) from exc
    log_config = {
        **LOGGING_CONFIG,
        "loggers": {
            **LOGGING_CONFIG["loggers"],
            "sat_claim_check": {"handlers": ["default"], "level": "INFO", "propagate": False},
        },
    }
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        lifespan="on",
        log_config=log_config,
        access_log=access_log,
        http=bounded_protocol(max_connections, float(header_timeout)),
    )
    uvicorn.Server(config).run()


def _base_protocol() -> tuple[type[Any], bool]:
    """(uvicorn's HTTP protocol class, whether it is the httptools one), as
    uvicorn's "auto" picks it."""
    try:
        import httptools  # noqa: F401
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return H11Protocol, False
    return HttpToolsProtocol, True


def bounded_protocol(
    max_connections: int, header_timeout: float, base: type[Any] | None = None
) -> type[Any]:
    """A subclass of uvicorn's HTTP protocol (``base``, or the one uvicorn would
    pick) with the header deadline, the header bound, the read-ahead bound
    and the connection cap of the module's docstring; for
    ``uvicorn.Config(http=...)``."""
    from uvicorn.protocols.http.flow_control import FlowControl

    if base is None:
        base, httptools = _base_protocol()
    else:
        httptools = hasattr(base, "on_headers_complete")

    # The connections waiting on their client, longest waiting first: the
    # order of the times they started waiting (each moves to the end then),
    # so making room takes the first, not a scan of every connection.
    waiting: dict[Any, None] = {}

    class BoundedFlow(FlowControl):  # type: ignore[misc]
        """Reading resumes only while the input held ahead is under the bound."""

        def __init__(self, transport: asyncio.Transport, protocol: Any) -> None:
            super().__init__(transport)
            self._protocol = protocol

        def resume_reading(self) -> None:
            if self._protocol.held_ahead() < PIPELINE_BYTES:
                super().resume_reading()

    class Bounded(base):  # type: ignore[misc, valid-type]
        """uvicorn's protocol, bounded (module docstring)."""

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self.flow = BoundedFlow(transport, self)
            self._deadline: asyncio.TimerHandle | None = None
            self._write_deadline: asyncio.TimerHandle | None = None
            self._header_bytes = 0
            self._arm()
            if len(self.connections) > max_connections:
                self._make_room()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._disarm_writing()
            waiting.pop(self, None)
            super().connection_lost(exc)

        def pause_writing(self) -> None:
            super().pause_writing()  # the client is not reading: it has a deadline
            if self._write_deadline is None:
                self._start_waiting()
                self._write_deadline = asyncio.get_running_loop().call_later(
                    header_timeout, self._too_slow
                )

        def resume_writing(self) -> None:
            self._disarm_writing()
            super().resume_writing()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._deadline is not None:  # the headers are still to come
                self._header_bytes += len(data)
                if self._header_bytes > HEADER_BYTES:
                    self._headers_too_large()
                    return
            if self.held_ahead() >= PIPELINE_BYTES and self.flow is not None:
                self.flow.pause_reading()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.cycle is None or self.cycle.response_complete:
                self._arm()  # no pipelined request started: wait for the next one

        # -- when a request's headers are complete --------------------------------

        if httptools:

            def on_headers_complete(self) -> None:
                super().on_headers_complete()
                self._disarm()

            def held_ahead(self) -> int:
                return sum(len(cycle.body) + 1024 for cycle, _ in self.pipeline)
        else:

            def handle_events(self) -> None:
                before = self.cycle
                super().handle_events()
                if self.cycle is not before:
                    self._disarm()

            def held_ahead(self) -> int:
                conn = getattr(self, "conn", None)
                if conn is None:
                    return 0
                buffer = getattr(conn, "_receive_buffer", None)  # no copy, where it is
                return len(buffer) if buffer is not None else len(conn.trailing_data[0])

        # -- the header deadline and the cap -------------------------------------

        def _arm(self) -> None:
            self._disarm()
            self._header_bytes = 0
            self._start_waiting()
            self._deadline = asyncio.get_running_loop().call_later(header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
                self._stop_waiting()

        def _disarm_writing(self) -> None:
            if self._write_deadline is not None:
                self._write_deadline.cancel()
                self._write_deadline = None
                self._stop_waiting()

        def _start_waiting(self) -> None:
            waiting.pop(self, None)
            waiting[self] = None

        def _stop_waiting(self) -> None:
            if not self._waiting():
                waiting.pop(self, None)

        def _waiting(self) -> bool:
            """Whether the connection waits on its client (headers, or reading)."""
            return self._deadline is not None or self._write_deadline is not None

        def _too_slow(self) -> None:
            # A reset, not a close: a close waits to write what the client does
            # not read, and the system would keep sending it after the socket
            # is gone (its buffers, megabytes, held until the peer reads).
            self._disarm()
            self._disarm_writing()
            sock = self.transport.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
            self.transport.abort()

        def _headers_too_large(self) -> None:
            """431, then close: the headers passed HEADER_BYTES."""
            self._disarm()
            if self.transport.is_closing():  # h11 has answered 400 already
                return
            if self.flow is not None:
                self.flow.pause_reading()
            body = error_body(
                "headers_too_large", f"the request's headers are over {HEADER_BYTES} bytes"
            )
            self.transport.write(_HEADERS_TOO_LARGE % (len(body), body))
            self.transport.close()

        def _make_room(self) -> None:
            """Drop the connection waiting longest on its client (this one, when
            every other is in a request the server is working on)."""
            oldest = next((c for c in waiting if c is not self), self)
            oldest._too_slow()

    Bounded.__name__ = Bounded.__qualname__ = f"Bounded{base.__name__}"
    return Bounded
