"""``batch``, by concern: ``protocol`` (one input line, one output line:
requests, envelopes (``envelope``) and manifest entries (``manifest``)),
``lines`` (numbered lines and Spans), ``reader`` (the input read ahead by a
thread), ``local`` (the worker processes), ``output`` (the output lines in
order, the totals), ``signals`` (SIGINT and SIGTERM), ``sizing`` (CPUs and
memory) and ``console`` (the progress line, a write that failed)."""
