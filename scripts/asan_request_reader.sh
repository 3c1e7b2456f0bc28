#!/usr/bin/env bash
# Run tests/engines/test_request_reader.py against an AddressSanitizer + UBSan build of
# the compiled request reader (csrc/request_scan.h through request_c.pyx):
# a read past the end of the text, a write past a buffer or undefined
# behaviour in the scanner stops the run with a report.  The package is copied
# to a temporary directory with the instrumented module in it; the other
# compiled modules are the ones built in the checkout (pip install -e . first).
#
# Environment: PYTHON (default python), CC (default gcc, with libasan and
# libubsan); extra arguments go to pytest.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python}
CC=${CC:-gcc}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cp -r "$ROOT/src/sat_claim_check" "$WORK/"
rm -f "$WORK"/sat_claim_check/_engines/request_c.*.so "$WORK"/sat_claim_check/_engines/request_c.*.pyd
"$PYTHON" -m cython -3 --directive boundscheck=True,wraparound=False \
    "$ROOT/src/sat_claim_check/_engines/request_c.pyx" -o "$WORK/request_c.c"
INCLUDE=$("$PYTHON" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
SUFFIX=$("$PYTHON" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
"$CC" -shared -fPIC -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
    -fno-sanitize-recover=undefined -I"$ROOT/csrc" -I"$INCLUDE" \
    "$WORK/request_c.c" -o "$WORK/sat_claim_check/_engines/request_c$SUFFIX"

# Assigned, then exported: a failing $(...) is not masked by export (SC2155).
LD_PRELOAD="$("$CC" -print-file-name=libasan.so) $("$CC" -print-file-name=libubsan.so)"
export LD_PRELOAD
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 PYTHONMALLOC=malloc
export PYTHONPATH="$WORK"
# The instrumented module, not the checkout's, must be the one imported.
"$PYTHON" -c "import sat_claim_check._engines.request_c as m, sys; \
assert m.__file__.startswith(sys.argv[1]), m.__file__" "$WORK"
cd "$ROOT"
# --capture=sys: a sanitizer report on file descriptor 2 reaches the terminal.
"$PYTHON" -m pytest -q -p no:cacheprovider --capture=sys tests/engines/test_request_reader.py "$@"
