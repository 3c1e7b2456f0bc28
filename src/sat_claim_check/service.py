"""The checker as an HTTP service: an ASGI application, and ``serve()`` to run it.

    pip install "sat-claim-check[service]"
    sat-claim-check serve --port 8000 --workers 2

or, in another ASGI server or application, ``sat_claim_check.service.app`` or
``create_app(...)``.  Routes:

    POST /v1/tools/sat-claim-check/versions/1.0.0/execute   request -> result or error
    GET  /v1/tools/sat-claim-check/versions/1.0.0           the tool description
    GET  /healthz                                           status and counters

The body of a POST is read as ``sat-claim-check check`` reads its input
(``check_json``) and answered with the bytes it writes, without the newline:
200 for a result, whatever its ``valid``; 400 for invalid_input; 413 for a
size limit and for a body over ``max_body_bytes``; 422 for the work limit;
503 with Retry-After when every worker is busy and the queue is full.
docs/semantics.md ("The HTTP service") has the whole table and the bounds.

Plain ASGI, no framework: three routes need none, and reading the body in
chunks, watching for the client's disconnect and the bounded pool are the
whole of the work.  The application needs nothing outside the standard
library; ``serve()`` needs uvicorn (the ``service`` extra).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import threading
from collections.abc import Iterable
from importlib import resources
from typing import Any

from ._asgi import (
    BodyTooLarge,
    Disconnected,
    Receive,
    Scope,
    Send,
    disconnected,
    drop_body,
    error_body,
    json_media_type,
    read_body,
    respond,
)
from ._batch.sizing import available_cpus
from ._core.options import Options
from ._core.outcome import Outcome, check_json
from ._core.types import EngineName
from ._io.bounds import request_bytes
from ._uvicorn import serve
from .limits import Limits

__all__ = [
    "EXECUTE_PATH",
    "TOOL_PATH",
    "Service",
    "app",
    "create_app",
    "default_max_body_bytes",
    "http_status",
    "serve",
]

TOOL_PATH = "/v1/tools/sat-claim-check/versions/1.0.0"
EXECUTE_PATH = TOOL_PATH + "/execute"
HEALTH_PATH = "/healthz"

# The most default_max_body_bytes gives, whatever the limits: raised limits
# would otherwise let each admitted request hold gigabytes.
BODY_CEILING = 256 * 1024 * 1024

logger = logging.getLogger("sat_claim_check.service")


def default_max_body_bytes(limits: Limits) -> int:
    """Return the body cap derived from ``limits``: the cap ``check`` puts on
    its input (32 bytes per literal, clause and proof step they allow, plus
    1 MiB), at most 256 MiB.

    For the contract's limits that is 4,792,576 bytes (4.6 MiB).
    """
    return min(request_bytes(limits), BODY_CEILING)


def http_status(outcome: Outcome) -> int:
    """Return the HTTP status of an Outcome: 200 for a result (valid or not),
    400 for invalid_input, 413 for a size limit, 422 for the work limit."""
    return outcome.http_status


class _Cancelled(Exception):
    """Raised from the progress callback to stop a check nobody waits for."""


class _Cancel:
    """The progress callback of one check: raises once ``cancelled`` is set
    (the client has gone); remembers where the check was."""

    __slots__ = ("cancelled", "steps_checked", "work")

    def __init__(self) -> None:
        self.cancelled = False
        self.steps_checked = 0
        self.work = 0

    def __call__(self, steps_checked: int, work: int) -> None:
        self.steps_checked, self.work = steps_checked, work
        if self.cancelled:
            raise _Cancelled


class Service:
    """The ASGI application (``create_app`` makes one; ``app`` is the default).

    Checks run in ``workers`` threads; at most ``workers + queue`` POST
    requests are admitted at once (being read, waiting or being checked),
    and the next one gets 503 with Retry-After before its body is read.
    A body over ``max_body_bytes`` gets 413 (from its Content-Length, or
    while it streams), one not received within ``body_timeout`` seconds
    408.  A client that disconnects stops its check within about 2**20
    units of work.  See docs/semantics.md ("The HTTP service").
    """

    def __init__(
        self,
        *,
        limits: Limits | None = None,
        engine: EngineName = "auto",
        workers: int | None = None,
        queue: int | None = None,
        max_body_bytes: int | None = None,
        body_timeout: float = 30.0,
        retry_after: int = 1,
    ) -> None:
        options = Options.of(engine, limits)  # an engine that is not built fails here
        self.engine = options.engine
        self.limits = options.limits
        self.workers = _count("workers", available_cpus() if workers is None else workers, 1)
        self.queue = _count("queue", 4 * self.workers if queue is None else queue, 0)
        self.max_body_bytes = _count(
            "max_body_bytes",
            default_max_body_bytes(self.limits) if max_body_bytes is None else max_body_bytes,
            1,
        )
        if not (isinstance(body_timeout, (int, float)) and body_timeout > 0):
            raise ValueError(f"body_timeout must be a positive number, got {body_timeout!r}")
        self.body_timeout = float(body_timeout)
        self.retry_after = _count("retry_after", retry_after, 0)
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._tool = resources.files(__package__).joinpath("schemas/tool.json").read_bytes()
        self._lock = threading.Lock()  # guards the counters the workers change
        self.in_flight = 0  # admitted POSTs (event loop only)
        self.checking = 0  # checks inside a worker
        self.checks = 0  # checks answered
        self.cancelled = 0  # checks stopped: the client had gone
        self.overloaded = 0  # requests turned away with 503

    # -- ASGI ------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI entry point: handles the http and lifespan scopes; returns None."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._pool()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path, method = scope["path"], scope["method"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if path == EXECUTE_PATH:
            if method == "POST":
                await self._execute(scope, receive, send)
            else:
                await self._refuse(
                    scope,
                    receive,
                    send,
                    405,
                    error_body("method_not_allowed", "use POST"),
                    [(b"allow", b"POST")],
                )
        elif path in (TOOL_PATH, HEALTH_PATH):
            if method in ("GET", "HEAD"):
                body = self._tool if path == TOOL_PATH else self._health()
                await respond(send, 200, body, head=method == "HEAD")
            else:
                await self._refuse(
                    scope,
                    receive,
                    send,
                    405,
                    error_body("method_not_allowed", "use GET"),
                    [(b"allow", b"GET, HEAD")],
                )
        else:
            await self._refuse(
                scope, receive, send, 404, error_body("not_found", f"no route {path}")
            )

    async def _refuse(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        status: int,
        body: bytes,
        headers: Iterable[tuple[bytes, bytes]] = (),
        drain: bool = True,
    ) -> None:
        """Answer without reading the request body, then close the connection.

        What the client is still sending is read and dropped first (at most
        max_body_bytes, for at most 5 s, until it pauses for half a second):
        closing a socket with unread data resets the connection, and the
        client would lose the answer.  Nothing is read from a client that
        waits for 100 Continue, or when ``drain`` is false (a body declared
        too large to drop).
        """
        if drain and not any(
            name == b"expect" and value.lower() == b"100-continue"
            for name, value in scope["headers"]
        ):
            await drop_body(receive, self.max_body_bytes, min(self.body_timeout, 5.0))
        await respond(send, status, body, headers, close=True)

    def _health(self) -> bytes:
        return json.dumps(
            {
                "status": "ok",
                "engine": self.engine,
                "workers": self.workers,
                "queue": self.queue,
                "max_body_bytes": self.max_body_bytes,
                "threads": self.threads(),
                "in_flight": self.in_flight,
                "checking": self.checking,
                "checks": self.checks,
                "cancelled": self.cancelled,
                "overloaded": self.overloaded,
                "limits": self.limits.as_dict(),
            },
            separators=(",", ":"),
        ).encode()

    # -- the check ---------------------------------------------------------------

    async def _execute(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])  # names are lower case in ASGI
        if not json_media_type(headers.get(b"content-type")):
            await self._refuse(
                scope,
                receive,
                send,
                415,
                error_body("unsupported_media_type", "the body must be application/json (UTF-8)"),
            )
            return
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body_bytes:
            await self._refuse(scope, receive, send, 413, self._too_large(int(length)), drain=False)
            return
        if self.in_flight >= self.workers + self.queue:
            self.overloaded += 1
            await self._refuse(
                scope,
                receive,
                send,
                503,
                error_body("overloaded", "every worker is busy and the queue is full; retry later"),
                [(b"retry-after", str(self.retry_after).encode())],
            )
            return
        self.in_flight += 1  # given back when the check ends, not the request
        try:
            body = await asyncio.wait_for(
                read_body(receive, self.max_body_bytes), self.body_timeout
            )
        except BaseException as exc:
            self.in_flight -= 1
            if isinstance(exc, BodyTooLarge):
                await self._refuse(scope, receive, send, 413, self._too_large(None))
            elif isinstance(exc, asyncio.TimeoutError):
                await respond(
                    send,
                    408,
                    error_body(
                        "request_timeout", f"the body did not arrive within {self.body_timeout:g} s"
                    ),
                    close=True,
                )
            elif not isinstance(exc, Disconnected):  # the server is stopping
                raise
            return
        await self._check(body, receive, send)

    def _too_large(self, actual: int | None) -> bytes:
        return error_body(
            "body_too_large",
            f"the body is over {self.max_body_bytes} bytes",
            max=self.max_body_bytes,
            actual=actual,
        )

    async def _check(self, body: bytes, receive: Receive, send: Send) -> None:
        cancel = _Cancel()
        try:
            job = self._pool().submit(self._job, body, cancel)
        except BaseException:
            self.in_flight -= 1
            raise
        del body
        future = asyncio.wrap_future(job)
        future.add_done_callback(self._check_ended)
        gone = asyncio.ensure_future(disconnected(receive))
        either: set[asyncio.Future[Any]] = {future, gone}
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not future.done():  # the client has gone (or the server gave up on it)
                cancel.cancelled = True
                job.cancel()  # a job still in the queue never starts
        if not future.done():
            return
        try:
            outcome = future.result()
        except Exception:
            logger.exception("the check failed")
            await respond(send, 500, error_body("internal_error", "the check failed"))
            return
        if outcome is not None:
            self.checks += 1
            await respond(send, outcome.http_status, outcome.body)

    def _job(self, body: bytes, cancel: _Cancel) -> Outcome | None:
        """In a worker thread: the Outcome, or None when the check was cancelled."""
        with self._lock:
            self.checking += 1
        try:
            if cancel.cancelled:
                return None
            return check_json(body, engine=self.engine, limits=self.limits, progress=cancel)
        except _Cancelled:
            with self._lock:
                self.cancelled += 1
            logger.info(
                "check stopped, the client has gone (proof step %d, work %d)",
                cancel.steps_checked,
                cancel.work,
            )
            return None
        finally:
            with self._lock:
                self.checking -= 1

    def _check_ended(self, future: asyncio.Future[Outcome | None]) -> None:
        self.in_flight -= 1
        if not future.cancelled():
            future.exception()  # retrieved here too: the handler may be gone

    # -- the pool ----------------------------------------------------------------

    def _pool(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                self.workers, thread_name_prefix="sat-claim-check"
            )
        return self._executor

    def threads(self) -> int:
        """Return how many worker threads are running (at most ``workers``)."""
        executor = self._executor
        return 0 if executor is None else len(executor._threads)

    def close(self) -> None:
        """Wait for the checks in the workers to end, then stop the threads; returns None.

        Called at the ASGI lifespan shutdown, after the server has answered the
        requests in flight; a later request starts a new pool.
        """
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)


def _count(name: str, value: int, least: int) -> int:
    if type(value) is not int or value < least:
        raise ValueError(f"{name} must be an int >= {least}, got {value!r}")
    return value


def create_app(
    *,
    limits: Limits | None = None,
    engine: EngineName = "auto",
    workers: int | None = None,
    queue: int | None = None,
    max_body_bytes: int | None = None,
    body_timeout: float = 30.0,
    retry_after: int = 1,
) -> Service:
    """Return a new ASGI application checking requests under ``limits``.

    ``limits``: a Limits, None for the contract's; they hold for every
    request (a request cannot change them).  ``engine``: as for ``run``.
    ``workers``: threads that check (default: the CPUs this process may use);
    ``queue``: requests admitted beyond those (default 4 per worker);
    ``max_body_bytes``: the body cap (default ``default_max_body_bytes(limits)``);
    ``body_timeout``: seconds to receive a body; ``retry_after``: seconds
    sent in Retry-After with a 503.  ValueError for a setting out of range.
    """
    return Service(
        limits=limits,
        engine=engine,
        workers=workers,
        queue=queue,
        max_body_bytes=max_body_bytes,
        body_timeout=body_timeout,
        retry_after=retry_after,
    )


app = create_app()
