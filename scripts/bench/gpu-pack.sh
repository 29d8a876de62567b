#!/bin/bash
# Packs the GPU bench (scripts/bench/gpu.ts) for a lent GPU machine that has no Node, no npm registry
# and no Chromium (docs/BENCHMARKS.md, "On a GPU"). Run here, in the repository root, after npm ci:
#   bash scripts/bench/gpu-pack.sh
# It writes (all git-ignored through .git/info/exclude):
#   src/node/gpu-bench.mjs  the bench bundled into one ES module beside src/node, so the paths it reads
#                           through import.meta.url (the grader's harness, its child) resolve as in the tree
#   src/node/torch_gpt.py   the PyTorch twin, beside the bundle as torch-gpt.ts expects it
#   .gpu/                   this machine's node (xz), Dawn's Node binding for linux-x64 (npm pack webgpu),
#                           the Vulkan loader (Debian's libvulkan1), Pyodide and tfjs's wasm binaries,
#                           and run.sh (scripts/bench/gpu-device.sh)
# Then, on the machine: carry [".gpu", "src/node/gpu-bench.mjs", "src/node/torch_gpt.py"] and run
#   bash .gpu/run.sh --reps 3 --steps 4
# Together about 55 MB, under the 64 MiB a call may carry.
set -euo pipefail
cd "$(dirname "$0")/../.."
for p in /.gpu/ /src/node/gpu-bench.mjs /src/node/torch_gpt.py; do
  grep -qxF "$p" .git/info/exclude 2>/dev/null || echo "$p" >> .git/info/exclude
done
entry=$(mktemp --suffix=.ts -p scripts/bench)
trap 'rm -f "$entry"' EXIT
printf 'import { main } from "./gpu.ts";\nawait main(process.argv.slice(2));\n' > "$entry"
npx esbuild "$entry" --bundle --platform=node --format=esm --target=node20 --outfile=src/node/gpu-bench.mjs --log-level=warning \
  --banner:js="import { createRequire as __cr } from 'module'; import { fileURLToPath as __fu } from 'url'; import { dirname as __dn } from 'path'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __dn(__filename);"
cp scripts/bench/torch_gpt.py src/node/torch_gpt.py
rm -rf .gpu && mkdir -p .gpu
xz -T0 -6 -c "$(command -v node)" > .gpu/node.xz
tmp=$(mktemp -d)
(cd "$tmp" && npm pack --silent webgpu@0.6.2 > /dev/null && tar xzf webgpu-0.6.2.tgz && mkdir -p webgpu/dist && cp package/index.js package/package.json webgpu/ && cp -r package/dist/linux-x64 webgpu/dist/)
tar cJf .gpu/webgpu.tar.xz -C "$tmp" webgpu
rm -rf "$tmp"
(cd .gpu && apt-get download libvulkan1 2> /dev/null)
tar cf .gpu/nm.tar node_modules/pyodide node_modules/@tensorflow/tfjs-backend-wasm/package.json node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm
cp scripts/bench/gpu-device.sh .gpu/run.sh
du -sh .gpu src/node/gpu-bench.mjs
