#!/usr/bin/env bash
# GPU runbook: evidence from a CUDA host in calls of at most 10 minutes, most valuable first.
#
# Needs: an NVIDIA GPU (written for the H100, sm_90, CUDA 13 driver), Python 3.10+ with numpy,
# numba, numba-cuda, CuPy, pandas, scipy and pytest (the GPU image has them), this checkout, and
# the carry folder .gpu/ made by tools/prepare_gpu_carry.sh on a connected machine.  The carry
# (ignored by git; about 10 MiB, the script fails above 60 MiB) holds:
#   .gpu/wheels  py3-none-any wheels of what the package imports and the image may lack:
#                array-api-compat (imported by rapids_balance._xp), narwhals (table adapters), tqdm (progress bars),
#                pytest-timeout (pyproject's addopts name --timeout);
#   .gpu/data    soc-sign-Slashdot090221.txt.gz, soc-sign-epinions.txt.gz, soc-sign-bitcoinalpha.csv.gz.
# Setup installs the wheels with pip --no-index --no-deps --target into $RB_SITE (default
# /tmp/rb-site), puts the checkout and that folder on PYTHONPATH (no install of the package), and
# stops unless `import rapids_balance, array_api_compat, narwhals, tqdm` works.
#
# Usage, from the checkout (on the device tool: carry .gpu, timeout_s 600):
#   bash tools/gpu_session.sh first-light  # one 10-minute call, steps in this order (limits):
#       probe     45 s  environment + the package's GPU probe; STOPS (exit 3) unless a real,
#                       non-simulated GPU answered                            -> probe.json
#       rapids    10 s  where cuDF imports: a cuDF table with text ids, an undirected cuGraph graph
#                       with edges in both orders, a dask-cuDF frame, each == the pandas graph;
#                       where it does not, one line saying so (cuDF's import alone may exceed
#                       the limit: the step then reads rc=124 and the others run) -> rapids.jsonl
#       equality 150 s  GPU == CPU on Slashdot: balance 64 trees for each method and majority
#                       rule, frustration 64 trees, betweenness k = 64 (weighted), VND on
#                       Bitcoin Alpha, betweenness again, 4 blocks a source -> equality.jsonl
#       timings  100 s  the redesigned kernels beside the layouts they replaced (BFS trees a
#                       block, a tree over several blocks, Kruskal rooting, tree levels) on
#                       Slashdot, then balance, 1000 trees, GPU and CPU, Slashdot and Epinions
#                                                                            -> timings.jsonl
#       profile   80 s  per-kernel device times of balance and betweenness on Slashdot
#                                                                  -> profile-balance/-betweenness.json
#       tests    130 s  the `gpu`-marked tests and the gpu/simulator tests of the GPU test
#                       files, on the device (RAPIDS_BALANCE_REAL_GPU=1)       -> tests.log
#     the limits add up to 540 s, setup (at most 25 s) included: 9 minutes of a 10-minute call.
#   bash tools/gpu_session.sh checks       # sm_90 compile check (tools/check_gpu_compile.py,
#                                          # 150 s) and the whole test suite on the device (360 s)
#   bash tools/gpu_session.sh bench-balance  # balance benchmark with the 50M-edge graph (520 s)
#   bash tools/gpu_session.sh bench        # betweenness k=1000 (200 s), clustering (100 s),
#                                          # frustration (100 s), dataflow (120 s)
#   bash tools/gpu_session.sh model        # benchmarks/bench_gpu_model.py on the device (300 s)
# Every later stage's limits add up to at most 9 minutes.
#
# Output ($OUT, default ./gpu-out), written as each result exists (Python unbuffered, JSON lines
# flushed per result): steps.log (one line per step: name, limit, rc, seconds), steps.jsonl (the
# same as JSON), setup.log, <step>.log and the files above; benchmark JSON is copied after each
# benchmark.  A step that hits its limit gets SIGINT (then SIGKILL 10 s later) and reads rc=124.
#
# Dry run (the test suite's tests/test_gpu_runbook.py, no GPU): RB_DRY_RUN=1 runs every
# first-light step under numba's CUDA simulator on the bundled tiny graphs, with the same limits.
# RB_CARRY=DIR reads the carry from DIR instead of .gpu; PYTHON=... picks the interpreter.
set -u
stage=${1:-first-light}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
RB_SITE=${RB_SITE:-/tmp/rb-site}
CARRY=${RB_CARRY:-.gpu}
export PYTHONUNBUFFERED=1
DRY=${RB_DRY_RUN:-0}
if [ "$DRY" = 1 ]; then
  export NUMBA_ENABLE_CUDASIM=1
else
  unset NUMBA_ENABLE_CUDASIM RAPIDS_BALANCE_CUDASIM
fi

log() { echo "== $* ($(date +%T))" | tee -a "$OUT/steps.log"; }

# step NAME LIMIT CMD...: run CMD under `timeout -s INT LIMIT`, its output in $OUT/NAME.log
step() {
  local name=$1 limit=$2 t0 rc ms secs
  shift 2
  log "$name (limit ${limit} s)"
  t0=$(date +%s%N)
  timeout -s INT -k 10 "$limit" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  secs=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
  echo "   $name rc=$rc ${secs} s" | tee -a "$OUT/steps.log"
  printf '{"step": "%s", "limit_s": %s, "rc": %s, "seconds": %s}\n' "$name" "$limit" "$rc" "$secs" \
    >>"$OUT/steps.jsonl"
  return $rc
}

setup() {
  log "setup"
  if compgen -G "$CARRY/wheels/*.whl" >/dev/null; then
    timeout -s INT 25 $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target "$RB_SITE" "$CARRY"/wheels/*.whl >>"$OUT/setup.log" 2>&1 ||
      { echo "SETUP FAILED: pip could not install $CARRY/wheels (see setup.log)" | tee -a "$OUT/steps.log"; exit 4; }
  fi
  export PYTHONPATH=$PWD:$RB_SITE${PYTHONPATH:+:$PYTHONPATH}
  $PY -c "import rapids_balance, array_api_compat, narwhals, tqdm; print('rapids_balance from', rapids_balance.__file__)" \
    >>"$OUT/setup.log" 2>&1 ||
    { echo "SETUP FAILED: the package does not import (see setup.log; run tools/prepare_gpu_carry.sh)" |
        tee -a "$OUT/steps.log"; exit 4; }
  # tests and benchmarks read ../shared/data beside the checkout
  if [ -d "$CARRY/data" ] && [ ! -e ../shared/data ]; then
    mkdir -p ../shared && ln -s "$(cd "$CARRY/data" && pwd)" ../shared/data
  fi
}

data=../shared/data
GPU_TEST_FILES="tests/test_balance_engine.py tests/test_balance_trees.py tests/test_centrality_betweenness.py
  tests/test_clustering_gpu.py tests/test_frustration_refine.py tests/test_frustration_samplers.py
  tests/test_device_dataflow.py tests/test_distributed_capabilities.py tests/test_distributed_machinery.py"
if [ "$DRY" = 1 ]; then
  big=example:highland small=example:highland eq="--trees 3 --k 3" tl="--trees 4" prof="--example highland --quick"
  tests=${RB_DRY_RUN_TESTS:-tests/test_clustering_gpu.py}
  real_gpu=0 probe_flags=--allow-simulator
else
  big=$data/soc-sign-Slashdot090221.txt.gz small=$data/soc-sign-bitcoinalpha.csv.gz eq="--trees 64 --k 64"
  tl="--trees 1000 --graph $data/soc-sign-Slashdot090221.txt.gz $data/soc-sign-epinions.txt.gz"
  prof="--graph $big"
  tests=$GPU_TEST_FILES
  real_gpu=1 probe_flags=
fi
[ "$DRY" = 1 ] && tl="$tl --graph $big"

setup
case "$stage" in
first-light)
  step probe 45 $PY tools/gpu_first_light.py probe $probe_flags --out "$OUT" ||
    { echo "FIRST LIGHT STOPPED: no real GPU answered (see probe.log, probe.json)" | tee -a "$OUT/steps.log"; exit 3; }
  step rapids 10 $PY tools/gpu_first_light.py rapids --out "$OUT"
  step equality 150 $PY tools/gpu_first_light.py equality --graph "$big" --vnd-graph "$small" $eq --out "$OUT"
  step timings 100 $PY tools/gpu_first_light.py timings $tl --out "$OUT"
  step profile 80 $PY tools/profile_gpu_kernels.py $prof --only balance betweenness --out-dir "$OUT"
  # -k: every test whose name, parameters, file or markers say gpu or simulator
  RAPIDS_BALANCE_REAL_GPU=$real_gpu step tests 130 $PY -m pytest -q -p no:cacheprovider \
    --continue-on-collection-errors -o addopts="" -m "not slow" -k "gpu or simulator" \
    --timeout=120 --maxfail=50 $tests
  ;;
checks)
  step check_gpu_compile 150 $PY tools/check_gpu_compile.py --cc 9.0
  # the image has pytest-xdist: the suite in 8 processes sharing the GPU
  RAPIDS_BALANCE_REAL_GPU=1 step suite 360 $PY -m pytest -q -p no:cacheprovider -o addopts="" \
    -m "not slow" --timeout=120 --maxfail=50 -n 8
  ;;
bench-balance)
  # the 50M-edge synthetic graph alone takes minutes to build
  step bench_balance 520 $PY benchmarks/bench_balance.py --trees 1000
  tar czf "$OUT/bench-results-balance.tgz" bench-results 2>/dev/null
  ;;
bench)
  step bench_betweenness 200 $PY benchmarks/bench_betweenness.py --backend gpu --k 1000
  tar czf "$OUT/bench-results.tgz" bench-results 2>/dev/null
  step bench_clustering 100 $PY benchmarks/bench_clustering.py --backend gpu --skip-paper --skip-random
  tar czf "$OUT/bench-results.tgz" bench-results 2>/dev/null
  step bench_frustration 100 $PY benchmarks/bench_frustration.py --backend gpu \
    --skip samplers graphbplus exact memory
  tar czf "$OUT/bench-results.tgz" bench-results 2>/dev/null
  step bench_dataflow 120 $PY benchmarks/bench_dataflow.py
  tar czf "$OUT/bench-results.tgz" bench-results 2>/dev/null
  ;;
model)
  step bench_gpu_model 300 $PY benchmarks/bench_gpu_model.py --graph $data/soc-sign-Slashdot090221.txt.gz \
    --out "$OUT"
  ;;
*)
  echo "unknown stage $stage (first-light | checks | bench-balance | bench | model)" >&2
  exit 2
  ;;
esac
log "done"
