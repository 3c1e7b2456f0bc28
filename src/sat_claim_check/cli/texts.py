"""The words of --help: the descriptions and epilogs of the commands.

The numbers in them (the default byte caps) are worked out from the
contract's limits when the module is imported.
"""

from __future__ import annotations

import textwrap

from .._io import bounds
from ..limits import Limits

DESCRIPTION = """\
Check a SAT solver certificate given as one JSON request:
  {"cnf": {"num_vars": N, "clauses": [[1, -2], ...]}, "claim": "sat", "assignment": [1, 2, ...]}
  {"cnf": {...}, "claim": "unsat", "proof": [{"add": [1]}, {"delete": [1, -2]}, ..., {"add": []}]}
A sat claim is valid when the assignment (no 0, out-of-range, repeated or
contradictory literal) makes every clause true. An unsat claim is valid when
every added lemma is RUP (reverse unit propagation) in the clause multiset at
that point, every delete finds its clause, and the empty clause is in the CNF
or derived. The result is one JSON line naming the first discrepancy.
Schemas: `sat-claim-check schema input|output`."""

OUTPUT_FAULTS = """\
Standard output closed or unwritable (a full disk): a line on stderr, exit 2.
Standard output a pipe nobody reads any more (`... | head -1`): exit 141,
silently, as for a program that SIGPIPE killed. Ctrl-C: exit 130."""


def _paragraph(text: str) -> str:
    """Text (with numbers filled in) as one paragraph of lines for --help."""
    return textwrap.fill(" ".join(text.split()), 79)


_CONTRACT = Limits()
_CEILINGS = Limits.unlimited()

EPILOG = f"""\
exit status: 0 the claim is valid, 1 it is not, 2 the request was rejected (the
error object is written on stdout, a human line on stderr) or the command could
not run (a usage error, or --engine compiled where it is not built: a line on
stderr only), 130 interrupted (Ctrl-C: a line on stderr naming the proof step
reached, nothing on stdout).
{OUTPUT_FAULTS}

""" + _paragraph(f"""
input size: a request longer than --max-input-bytes is rejected (invalid_input,
field null) without reading past the cap. The default cap is
{bounds.BYTES_PER_ITEM} bytes for every literal, clause and step the limits
allow, plus 1 MiB: {bounds.request_bytes(_CONTRACT):,} bytes at the contract's
limits.""")

REQUEST_EPILOG = (
    f"""\
exit status: without --check, 0 when the request was written; with --check, as
for `check` (0 valid, 1 not valid, 2 rejected: the error object is written to
OUT). Malformed DIMACS, DRUP or model text, or an unreadable file: a line on
stderr, nothing written, exit 2. Interrupted (Ctrl-C): a line on stderr,
nothing written, exit 130.
{OUTPUT_FAULTS}

"""
    + _paragraph("""
checking as the proof is read: with --check the proof is checked while it is
read, a part at a time (a thread reads and scans ahead of the check), so its
memory follows the clauses alive, not its length, and it may be a named pipe
or - for standard input that a solver is still writing. The steps are taken
in the order of the file: the first step that fails is the verdict even when
a later line is malformed or a later step passes a limit, and reading stops
there. On a terminal, a check longer than a second shows its progress on
stderr (steps checked, steps/s, bytes read): --progress shows it anywhere,
--quiet never.""")
    + "\n\n"
    + _paragraph(f"""
reading: files are read in chunks (decompressed as they are read) and reading
stops at the first limit passed, with or without --check: that limit is the
error (without --check, a line on stderr), its "actual" the count where reading
stopped (the limit + 1; for max_vars and max_clauses, the header's numbers), and
the text after that point is not read. A file that passes no limit but is longer
than its cap is refused as malformed. The default caps (after decompression)
are {bounds.BYTES_PER_ITEM} bytes for every literal and clause or step the
limits allow, plus 1 MiB: at the contract's limits
{bounds.cnf_bytes(_CONTRACT):,} bytes for the CNF,
{bounds.proof_bytes(_CONTRACT):,} for a proof, {bounds.model_bytes(_CONTRACT):,}
for a model; --max-input-bytes sets one cap for each file.""")
)


REQUEST_DESCRIPTION = """\
Build the contract's JSON request from a DIMACS CNF and a DRUP proof (an unsat
claim) or a model (a sat claim), and write it as one compact line; with
--check, check it at once and write the result instead. A proof may be DRUP
text or binary DRUP (what CaDiCaL writes by default), told by its first
bytes; files may be compressed with gzip, xz or bz2 (told by their magic
bytes), and one of them may be - (standard input). Malformed DIMACS/DRUP/model
text: a message naming the file and line (a byte offset in a binary proof) on
stderr, nothing on stdout, exit 2; a limit passed: the error object, and on
stderr how to lift it."""

BATCH_DESCRIPTION = """\
Check JSON Lines: every input line is one request (as for `check`) and gives
exactly one output line, in input order: the result, or the error object with
one more key, "line" (the 1-based input line). A line that is blank or not a
request is rejected like any other malformed request; no line is ever
dropped, and a bad line never stops the batch. A line whose check cannot
finish gets {"error": "check_failed", "field": null, "path": "", "message":
..., "line": N}: its check ran out of memory (see --worker-memory), or the
worker process checking it died twice (killed, or out of memory). A summary
goes to stderr.

A line may be an envelope {"id": ID, "request": {...}} (ID a string or an
integer): its output line is the request's, with "id" as the first key. With
--manifest every line names files instead: {"id": ID, "cnf": "f.cnf", "proof":
"f.drup.gz"} or with "model"; relative paths are resolved against the
manifest's directory. --scheduler checks on a Dask cluster, with the same
output byte for byte (pip install "sat-claim-check[dask]")."""

BATCH_EPILOG = """\
exit status: 0 every claim was valid, 1 some claim was not valid (and no line
was rejected or failed), 2 some line was rejected or failed, the input could
not be read to its end (every line read before has its output line), or
standard output could not be written (a line on stderr); with --scheduler
also when the cluster cannot run the batch or the scheduler is lost (every
line before it is written). 130 on SIGINT (Ctrl-C) and 143 on SIGTERM: the
lines already checked are written, in order, then the batch stops; a second
signal does not wait for a blocked write. 141,
silently, when standard output is a pipe nobody reads any more. No worker
process outlives the batch.

""" + _paragraph("""
line size: a line longer than --max-input-bytes (default: the cap of `check`,
which follows the limits) is rejected as that line's error object without being
held in memory, and the batch goes on with the next line; a line with no end
within 16 times the cap (at least 64 MiB) ends the input there.""")

SERVE_DESCRIPTION = """\
Answer requests over HTTP (needs uvicorn: pip install "sat-claim-check[service]").
  POST /v1/tools/sat-claim-check/versions/1.0.0/execute  a request, as for `check`:
       200 the result (valid or not), 400 invalid_input, 413 a size limit or a
       body over --max-body-bytes, 422 the work limit, 503 overloaded (Retry-After)
  GET  /v1/tools/sat-claim-check/versions/1.0.0          the tool description
  GET  /healthz                                          status and counters
The limits (--limit, --unlimited) hold for every request; a request cannot
change them. Checks run in --workers threads; beyond them --queue requests
wait, and the next one gets 503 before its body is read."""

SERVE_EPILOG = """\
exit status: on SIGTERM or Ctrl-C (SIGINT) the server stops accepting, answers
the requests in flight, and ends by that signal (SIGTERM, as uvicorn does) or
with 130 (Ctrl-C); 2 when it cannot start (uvicorn missing, the port taken...)."""

VERIFY_DESCRIPTION = """\
Check a DIMACS CNF file with the DRUP proof a solver wrote (an unsat claim), or
with its model (--model: a sat claim), as drat-trim checks them:
  sat-claim-check verify formula.cnf proof.drup
  cadical -q formula.cnf - | sat-claim-check verify formula.cnf -
  sat-claim-check verify formula.cnf --model solver-output.txt
The proof is read as it is checked (text or binary, plain or gzip, xz or bz2,
FRAT and PicoSAT's RUP files too), so memory follows the clauses alive. There
are no size limits (--contract-limits applies the JSON contract's); --timeout
bounds the time. The result is one JSON line on stdout, as `check` writes it;
when the claim is not valid, a line on stderr says what may be wrong and which
flag helps (--explain says more)."""

VERIFY_EPILOG = (
    f"""\
exit status: 0 the claim is valid, 1 it is not, 2 no verdict: malformed or
unreadable files, a limit passed (--contract-limits, --limit) or the timeout
(the error object on stdout, a line and its hint on stderr), or a usage error;
130 interrupted (Ctrl-C: a line on stderr naming the proof step reached);
with --lrat, 143 on SIGTERM and 129 on SIGHUP, the LRAT's file removed.
{OUTPUT_FAULTS}

"""
    + _paragraph("""
readings: verify reads a proof as drat-trim -f does (--reading drat-trim, the
default here): deletions of unit and reason clauses and of clauses not there
are ignored, as drat-trim and MiniSat-family solvers read them, and the check
ends valid at the first step where the clauses propagate to a conflict.
--reading strict is the JSON contract's reading (every deletion honoured, the
empty clause needed), --deletions lenient or --reading lenient the one between
(docs/semantics.md).""")
    + "\n\n"
    + _paragraph(f"""
input size: each file is read (after decompression) up to a cap, and a longer
one is refused (invalid_input, exit 2): --max-input-bytes N for every file, or
else {bounds.BYTES_PER_ITEM} bytes for every literal, clause and step the limits
allow, plus 1 MiB. Without --contract-limits or --limit that is
{bounds.cnf_bytes(_CEILINGS):,} bytes for the CNF or the proof and
{bounds.model_bytes(_CEILINGS):,} for a model; at the contract's limits
{bounds.cnf_bytes(_CONTRACT):,}, {bounds.proof_bytes(_CONTRACT):,} and
{bounds.model_bytes(_CONTRACT):,}.""")
)
