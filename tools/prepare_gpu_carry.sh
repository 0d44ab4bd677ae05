#!/usr/bin/env bash
# Prepare the carry folder .gpu/ (ignored by git) for tools/gpu_session.sh on an offline GPU host:
#   .gpu/wheels  wheels of what rapids_balance imports beyond the GPU image (Python 3.12, numpy,
#                numba, numba-cuda, CuPy, pandas, scipy, pytest): array-api-compat (rapids_balance._xp),
#                narwhals (the table adapters, rapids_balance.io._frames),
#                tqdm (progress bars; the image has it, a bare environment may not) and pytest-timeout
#                (pyproject's addopts pass --timeout).  All four are pure Python (py3-none-any).
#   .gpu/data    soc-sign-Slashdot090221.txt.gz, soc-sign-epinions.txt.gz, soc-sign-bitcoinalpha.csv.gz
#                from ../shared/data beside the checkout (first-light's graphs; about 5 MiB).
# The whole folder must stay under 60 MiB (the device's carry limit is 64 MiB with the checkout):
# the script fails above that.  Run it once on a machine with network access (seconds), then carry
# .gpu with the checkout:
#   bash tools/prepare_gpu_carry.sh              # CARRY_DIR=... puts the folder elsewhere
#   NO_DATA=1 bash tools/prepare_gpu_carry.sh    # wheels only (the test suite's dry run)
# WHEEL_SOURCE=DIR takes the wheels from DIR (pip --no-index --find-links DIR) instead of the index.
set -euo pipefail
cd "$(dirname "$0")/.."
CARRY=${CARRY_DIR:-.gpu}
mkdir -p "$CARRY/wheels"
# every third-party module the package imports beyond the image (tests/test_gpu_runbook.py checks it)
WHEELS="array-api-compat narwhals tqdm pytest-timeout"
src=()
[ -n "${WHEEL_SOURCE:-}" ] && src=(--no-index --find-links "$WHEEL_SOURCE")
python3 -m pip download -q --only-binary=:all: --no-deps "${src[@]}" -d "$CARRY/wheels" $WHEELS
for w in $WHEELS; do
  compgen -G "$CARRY/wheels/${w//-/_}-*.whl" >/dev/null ||
    { echo "missing wheel for $w in $CARRY/wheels" >&2; exit 1; }
done
if [ "${NO_DATA:-0}" != 1 ]; then
  mkdir -p "$CARRY/data"
  for f in soc-sign-Slashdot090221.txt.gz soc-sign-epinions.txt.gz soc-sign-bitcoinalpha.csv.gz; do
    cp -u "../shared/data/$f" "$CARRY/data/"
  done
fi
kib=$(du -sk "$CARRY" | cut -f1)
echo "$CARRY: $((kib / 1024)) MiB"
if [ "$kib" -gt $((60 * 1024)) ]; then
  echo "$CARRY is over 60 MiB: the device carries 64 MiB with the checkout" >&2
  exit 1
fi
