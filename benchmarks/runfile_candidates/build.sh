#!/bin/sh
# Build the prototype reader (issue 12) outside the package:
#   sh benchmarks/runfile_candidates/build.sh [OUT]      (default OUT: /tmp/reader)
# Cython from the project's venv, the system C compiler, baseline x86-64 (as a wheel would be
# built: no -march). No NumPy headers are needed (typed memoryviews only).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-/tmp/reader}
PY=${PYTHON:-/work/main/.venv/bin/python}
CC=${CC:-cc}
mkdir -p "$OUT"
INC=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
EXT=$("$PY" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
"$PY" -m cython -3 -o "$OUT/_runreader.c" "$HERE/_runreader.pyx"
$CC -O3 -shared -fPIC -pthread -fno-strict-aliasing -I"$INC" "$OUT/_runreader.c" \
    -o "$OUT/_runreader$EXT"
echo "built $OUT/_runreader$EXT"
