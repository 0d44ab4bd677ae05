#!/usr/bin/env bash
# Prepare an offline GPU host for tools/gpu_session.sh: fill .gpu/ (ignored by git) with
#   .gpu/wheels  wheels of the test and benchmark dependencies a CUDA Python image may lack
#                (array-api-compat, which the package needs, pytest, array-api-strict, highspy,
#                Dask, dask-cuda, igraph, networkit, ...), for the host's
#                Python version (GPU_PYTHON_VERSION, default 3.12) on x86-64 Linux;
#   .gpu/data    the benchmark graphs, copied from ../shared/data beside the checkout.
# Run it once on a machine with network access (a minute or two; some tens of MB), then copy the
# checkout, .gpu/ included, to the GPU host and run tools/gpu_session.sh there:
#   bash tools/prepare_gpu_carry.sh
# pyarrow and scipy are left out (large, and CUDA images usually ship scipy and networkx).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu/wheels .gpu/data
python3 -m pip download -q --only-binary=:all: --no-deps --python-version "${GPU_PYTHON_VERSION:-3.12}" --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_24_x86_64 \
  --platform manylinux_2_28_x86_64 -d .gpu/wheels \
  tqdm pytest pytest-timeout pluggy iniconfig packaging highspy igraph texttable networkit \
  dask distributed dask-cuda cloudpickle toolz partd fsspec msgpack sortedcontainers tblib zict \
  tornado locket pynvml nvidia-ml-py psutil pyyaml click jinja2 markupsafe urllib3 \
  array-api-compat array-api-strict
for f in soc-sign-Slashdot090221.txt.gz soc-sign-epinions.txt.gz wiki-Elec_graphB_SC21_edges.csv.gz \
         soc-sign-bitcoinotc.csv.gz soc-sign-bitcoinalpha.csv.gz highland_tribes_graphB_edges.csv.gz \
         levorato_cc_slashdot_first_n.tar.gz; do
  cp -u "../shared/data/$f" .gpu/data/
done
du -sh .gpu
