#!/usr/bin/env bash
# GPU runbook: the GPU checks and GPU benchmark rows of rapids-balance on any CUDA host.
#
# Needs: an NVIDIA GPU with CUDA 12 (written for the H100/H200, sm_90), Python 3.10+, this
# checkout, and the `gpu` extra (cupy-cuda12x, numba-cuda) installed.  The compile check also
# needs the CUDA toolkit (NVVM, ptxas).  The benchmarks read the public graphs from
# ../shared/data beside the checkout (or .gpu/data, see below) and time igraph, networkit and
# networkx as peers where they are installed (the `bench` extra).
#
# Usage, from the checkout:
#   bash tools/gpu_session.sh tests          # environment report, GPU probe, sm_90 compile check
#                                            # (tools/check_gpu_compile.py, up to 2 min), then
#                                            # the test suite with every backend="gpu" test and
#                                            # the tests marked `gpu` on the device (up to 7 min)
#   bash tools/gpu_session.sh bench-balance  # balance benchmark: GPU rows on the SNAP graphs plus
#                                            # a 50M-edge synthetic graph (up to 9 min; building
#                                            # the synthetic graph alone takes minutes)
#   bash tools/gpu_session.sh bench          # betweenness (k = 1000), clustering and frustration
#                                            # GPU rows beside their CPU peers (up to 8 min)
#   bash tools/gpu_session.sh profile        # every kernel launch timed per workload on Slashdot
#                                            # (tools/profile_gpu_kernels.py; up to 8 min)
# Each step runs under a timeout (the limits above), so a hung kernel ends the step, not the
# run.  Results go to $OUT (default ./gpu-out): steps.log, env.txt, check_gpu_compile.txt,
# tests.log, bench*.log, a tarball of bench-results/ (the benchmarks' JSON) and profile-*.json.
#
# Hosts without network access: run tools/prepare_gpu_carry.sh on a connected machine first and
# copy the checkout with its .gpu/ folder over; missing Python packages are then installed from
# .gpu/wheels and ../shared/data is linked to .gpu/data.  PYTHON=... picks the interpreter.
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
  # a stage of its own: the 50M-edge synthetic graph alone may take minutes to build
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
  log "dataflow (device columns: CuPy arrays, and cuDF where installed)"
  timeout 240 $PY bench_dataflow.py >>"$OUT/bench.log" 2>&1
  cd ..
  tar czf "$OUT/bench-results.tgz" bench-results
elif [ "$stage" = profile ]; then
  graph=../shared/data/soc-sign-Slashdot090221.txt.gz
  for w in balance frustration betweenness clustering; do
    log "profile $w"
    timeout 120 $PY tools/profile_gpu_kernels.py --graph "$graph" --only $w \
      --out "$OUT/profile-$w.json" >>"$OUT/profile.log" 2>&1
    echo "rc=$?" >>"$OUT/profile.log"
  done
else
  echo "unknown stage $stage (tests | bench-balance | bench | profile)" >&2
  exit 2
fi
log "done"
