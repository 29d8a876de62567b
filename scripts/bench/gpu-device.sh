#!/bin/bash
# Runs on a lent GPU machine as .gpu/run.sh (packed by scripts/bench/gpu-pack.sh): unpacks Node, Dawn's
# binding, the Vulkan loader and Pyodide, then the GPU bench; $OUT/gpu.json (one JSON line) and
# $OUT/gpu.log come back. Arguments go to the bench (scripts/bench/gpu.ts).
cd "$(dirname "$0")/.."
for f in .gpu/*.deb; do dpkg -x "$f" /; done
ldconfig
for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
  if [ -f "$icd" ]; then export VK_DRIVER_FILES=$icd; break; fi
done
echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-none found}"
xz -dc .gpu/node.xz > /tmp/node && chmod +x /tmp/node
tar xJf .gpu/webgpu.tar.xz -C /tmp
tar xf .gpu/nm.tar
nvidia-smi -L; nproc; /tmp/node --version
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
export ARENA_DAWN=/tmp/webgpu TORCH_PYTHON="$(command -v python3)"
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
timeout "${BENCH_TIMEOUT:-520}" /tmp/node src/node/gpu-bench.mjs --json "$@" > "$OUT/gpu.json" 2> >(tee "$OUT/gpu.log" >&2)
echo "exit $?"
cat "$OUT/gpu.json"
