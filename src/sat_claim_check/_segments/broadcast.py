"""Every message to every worker, each at its own pace: a list read by one thread a worker.

A worker that checks a hard segment falls behind the others, which replay it
and go on; the messages between the slowest and the fastest are held here,
up to a bound in bytes (``put`` waits past it), and dropped once every
worker has them.  A worker that has gone (its pipe broken) no longer holds
anything back.

A message is a chunk of steps as the arrays' own bytes (``pack``), read in
the worker as views of the bytes received (``unpack``): no pickle, one copy
made here and none there (the kernels copy what they take).
"""

from __future__ import annotations

import struct
import threading
from array import array
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

__all__ = ["END", "Broadcast", "pack", "unpack"]

END = b"end"  # the last message (a packed chunk is longer, its head alone 16 bytes)
GONE = 1 << 62  # the position of a reader whose worker has gone
HEAD = struct.Struct("<qq")  # the steps, the literals
INT = array("i").itemsize  # a literal, an offset: a C int (what the kernels read)


def pack(kinds: array[int], offsets: array[int], lits: array[int]) -> bytes:
    """A chunk of steps as one message: its head, then the kinds (padded to a
    whole int), the offsets and the literals, native bytes (``offsets`` index
    ``lits`` from 0: ``offsets[0] == 0``, ``offsets[-1] == len(lits)``)."""
    n, m = len(kinds), len(lits)
    assert len(offsets) == n + 1 and offsets[0] == 0 and offsets[n] == m
    if kinds.typecode != "b":
        kinds = array("b", kinds)
    if offsets.typecode != "i":
        offsets = array("i", offsets)
    if lits.typecode != "i":
        lits = array("i", lits)
    return b"".join((HEAD.pack(n, m), kinds, bytes(-n % INT), offsets, lits))


def unpack(message: bytes) -> tuple[memoryview, memoryview, memoryview]:
    """(kinds, offsets, lits) of a ``pack``ed message: views of its bytes."""
    n, m = HEAD.unpack_from(message)
    view = memoryview(message)
    a = HEAD.size
    b = a + n + (-n % INT)
    c = b + (n + 1) * INT
    if len(view) != c + m * INT:
        raise ValueError(f"a message of {len(view)} bytes is not {n} steps and {m} literals")
    return view[a : a + n].cast("b"), view[b:c].cast("i"), view[c:].cast("i")


class Broadcast:
    """Messages for every reader, in order, within ``bound`` bytes held."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.cond = threading.Condition()
        self.items: deque[bytes] = deque()
        self.base = 0  # the index of items[0]
        self.held = 0  # bytes in items
        self.ended = False
        self.closed = False
        self.positions: list[int] = []  # per reader: the index of its next message

    def reader(self, conn: Connection) -> threading.Thread:
        """Start the thread that writes every message to ``conn``, then END."""
        with self.cond:
            self.positions.append(self.base)
            which = len(self.positions) - 1
        thread = threading.Thread(target=self._send_all, args=(conn, which), daemon=True)
        thread.start()
        return thread

    def put(self, message: bytes, idle: Callable[[float], None]) -> None:
        """Add a message; while too much is held, call ``idle(seconds)`` (it may
        raise) between looks."""
        while True:
            with self.cond:
                if self.held <= self.bound or self.closed:
                    self.items.append(message)
                    self.held += len(message)
                    self.cond.notify_all()
                    return
            idle(0.1)

    def end(self) -> None:
        """No more messages: each reader sends END after the last."""
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def close(self) -> None:
        """Stop every reader, sent or not."""
        with self.cond:
            self.closed = True
            self.items.clear()
            self.held = 0
            self.cond.notify_all()

    def _send_all(self, conn: Connection, which: int) -> None:
        try:
            while True:
                with self.cond:
                    i = self.positions[which]
                    while i >= self.base + len(self.items) and not (self.ended or self.closed):
                        self.cond.wait()
                    if self.closed:
                        return
                    last = i >= self.base + len(self.items)
                    message = END if last else self.items[i - self.base]
                conn.send_bytes(message)
                if last:
                    return
                with self.cond:
                    self.positions[which] = i + 1
                    self._trim()
        except OSError:  # the worker has gone: it holds nothing back
            with self.cond:
                self.positions[which] = GONE
                self._trim()
        finally:
            conn.close()

    def _trim(self) -> None:
        """Drop the messages every reader has sent (the condition held)."""
        first = min(self.positions)
        while self.base < first and self.items:
            self.held -= len(self.items.popleft())
            self.base += 1
        self.cond.notify_all()
