"""Byte caps on reading: no input is read past what the limits could need.

The limits bound how many literals, clauses and steps a request holds, but
comments and whitespace have no bound in principle.  So every input gets a
cap: ``BYTES_PER_ITEM`` bytes for each item the limits allow, plus
``ALLOWANCE``.  Inputs are read in chunks of ``CHUNK`` bytes, never more than
one chunk past the cap.  At the contract's limits the caps are 4,792,576 bytes
for a JSON request (a file, standard input or a batch line), 2,808,576 for a
CNF file, 2,712,576 for a DRUP proof and 1,368,576 for a model (files counted
after decompression).
"""

from __future__ import annotations

from typing import IO

from ..limits import Limits

__all__ = [
    "ALLOWANCE",
    "BYTES_PER_ITEM",
    "CHUNK",
    "HEADER_TIMEOUT",
    "cnf_bytes",
    "model_bytes",
    "proof_bytes",
    "read_at_most",
    "request_bytes",
]

BYTES_PER_ITEM = 32  # a literal, clause or step: room for indentation and comments
ALLOWANCE = 1 << 20  # headers, comments, a pretty-printed envelope
CHUNK = 1 << 20


def _cap(*items: int) -> int:
    return BYTES_PER_ITEM * sum(items) + ALLOWANCE


def request_bytes(limits: Limits) -> int:
    """The cap on one JSON request: every literal, clause and step it may hold."""
    return _cap(
        limits.max_total_literals,
        limits.max_clauses,
        limits.max_assignment_literals,
        limits.max_proof_literals,
        limits.max_proof_steps,
    )


def cnf_bytes(limits: Limits) -> int:
    """The cap on a DIMACS CNF file (decompressed)."""
    return _cap(limits.max_total_literals, limits.max_clauses)


def proof_bytes(limits: Limits) -> int:
    """The cap on a DRUP proof file (decompressed)."""
    return _cap(limits.max_proof_literals, limits.max_proof_steps)


def model_bytes(limits: Limits) -> int:
    """The cap on a model file (decompressed)."""
    return _cap(limits.max_assignment_literals)


def read_at_most(stream: IO[bytes], max_bytes: int) -> bytes:
    """At most ``max_bytes + 1`` bytes of ``stream``, read in chunks: a result
    longer than ``max_bytes`` means the input is over the cap."""
    parts = []
    left = max_bytes + 1
    while left > 0:
        part = stream.read(min(CHUNK, left))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


# Seconds a service connection has to send a request's headers (serve()).
HEADER_TIMEOUT = 10.0
