#!/usr/bin/env bash
# Fill .gpu/ (ignored by git) with what tools/gpu_session.sh needs on the lent GPU machine,
# which has no network: wheels its Python 3.12 image may lack, and the benchmark graphs from
# ../shared/data (which does not travel with the checkout).  Run once per session, here:
#   bash tools/prepare_gpu_carry.sh
# then name ".gpu" in the device call's carry list.  Stays well under the 64 MiB the device
# tool carries (pyarrow and scipy are left out: too large; the image's torch stack brings scipy
# and networkx).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu/wheels .gpu/data
python3 -m pip download -q --only-binary=:all: --no-deps --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_24_x86_64 \
  --platform manylinux_2_28_x86_64 -d .gpu/wheels \
  tqdm pytest pytest-timeout pluggy iniconfig packaging highspy igraph texttable networkit \
  dask distributed dask-cuda cloudpickle toolz partd fsspec msgpack sortedcontainers tblib zict \
  tornado locket pynvml nvidia-ml-py psutil pyyaml click jinja2 markupsafe urllib3
for f in soc-sign-Slashdot090221.txt.gz soc-sign-epinions.txt.gz wiki-Elec_graphB_SC21_edges.csv.gz \
         soc-sign-bitcoinotc.csv.gz soc-sign-bitcoinalpha.csv.gz highland_tribes_graphB_edges.csv.gz \
         levorato_cc_slashdot_first_n.tar.gz; do
  cp -u "../shared/data/$f" .gpu/data/
done
du -sh .gpu
