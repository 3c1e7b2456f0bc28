"""One proof on every core: a proof checked in segments, each by one of several kernels.

Every lemma's RUP check depends only on the clauses alive at its step, so a
kernel that has replayed the steps before a segment (``Kernel.replay``:
taken as if they succeeded, unchecked) checks the segment as one check of
the whole proof would.  ``walk`` is a worker's walk through the proof,
``verdict`` the answer of the segments' events in stream order, ``local``
the worker processes of ``verify --jobs N``.  docs/semantics.md, "One proof
on every core", says what is the same as a check on one core (every byte
of the result) and what is not (the work counter).
"""
