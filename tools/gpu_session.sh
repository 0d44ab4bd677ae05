#!/usr/bin/env bash
# The GPU checks of rapids-balance, for a session that is lent a GPU machine (device tool:
# 10 minutes per call, 30 minutes per session).  First, on the development machine:
#   bash tools/prepare_gpu_carry.sh
# then one device call per stage, each under the 10-minute limit of a call, carrying ".gpu":
#   bash tools/gpu_session.sh tests   # env + probe + sm_90 compile check + the test suite with
#                                     # every backend="gpu" test on the real device
#   bash tools/gpu_session.sh bench-balance  # balance GPU rows + the 50M-edge synthetic graph
#   bash tools/gpu_session.sh bench   # betweenness, clustering, frustration GPU rows beside
#                                     # CPU peers (16 cores)
# Results come back in $OUT (at most 8 files: logs plus one tarball of bench-results/).
set -u
stage=${1:-tests}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
log() { echo "== $* ($(date +%T))" | tee -a "$OUT/steps.log"; }

log "setup"
for mp in tqdm:tqdm pytest:pytest pytest_timeout:pytest-timeout highspy:highspy igraph:igraph \
          networkit:networkit distributed:distributed dask_cuda:dask-cuda; do
  $PY -c "import ${mp%%:*}" 2>/dev/null ||
    $PY -m pip install -q --no-index --find-links .gpu/wheels "${mp##*:}" >>"$OUT/setup.log" 2>&1
done
$PY -m pip install -q --no-deps --no-build-isolation -e . >>"$OUT/setup.log" 2>&1 ||
  export PYTHONPATH=$PWD
# tests and benchmarks read ../shared/data beside the checkout
if [ -d .gpu/data ] && [ ! -e ../shared/data ]; then
  mkdir -p ../shared && ln -s "$PWD/.gpu/data" ../shared/data
fi

if [ "$stage" = tests ]; then
  log "environment"
  { nvidia-smi; $PY -V; $PY -m pip list 2>/dev/null |
      grep -i -E "^(numba|cupy|numpy|pandas|scipy|networkx|pytest|cuda)"; } >"$OUT/env.txt" 2>&1
  $PY -c "import rapids_balance as rb; print(rb.gpu_status())" >>"$OUT/env.txt" 2>&1
  log "compile check (sm_90)"
  timeout 120 $PY tools/check_gpu_compile.py --cc 9.0 >"$OUT/check_gpu_compile.txt" 2>&1
  echo "rc=$?" >>"$OUT/check_gpu_compile.txt"
  log "tests on the real GPU"
  RAPIDS_BALANCE_REAL_GPU=1 timeout 420 $PY -m pytest -q --maxfail=30 -p no:cacheprovider \
    -o addopts="-m 'not slow' --timeout=300" >"$OUT/tests.log" 2>&1
  echo "rc=$?" >>"$OUT/tests.log"
elif [ "$stage" = bench-balance ]; then
  # its own call: the 50M-edge synthetic graph alone may take minutes to build
  cd benchmarks
  log "balance"
  timeout 540 $PY bench_balance.py --trees 1000 >"$OUT/bench-balance.log" 2>&1
  cd ..
  tar czf "$OUT/bench-results-balance.tgz" bench-results
elif [ "$stage" = bench ]; then
  cd benchmarks
  log "betweenness"
  timeout 240 $PY bench_betweenness.py --backend gpu --k 1000 >"$OUT/bench.log" 2>&1
  log "clustering"
  timeout 120 $PY bench_clustering.py --backend gpu --skip-paper --skip-random >>"$OUT/bench.log" 2>&1
  log "frustration"
  timeout 120 $PY bench_frustration.py --backend gpu --skip samplers graphbplus exact memory \
    >>"$OUT/bench.log" 2>&1
  cd ..
  tar czf "$OUT/bench-results.tgz" bench-results
else
  echo "unknown stage $stage (tests | bench-balance | bench)" >&2
  exit 2
fi
log "done"
