#!/usr/bin/env bash
# Prepares a fresh machine for the test suite, doing only what is missing: the local PostgreSQL server started,
# pgvector built into it, the Debian packages the end-to-end suites drive, and the npm packages. Run it with
# Node 24 first on PATH (scripts/test.sh and .ci/run do), so npm installs for the runtime the tests use.
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v pg_ctlcluster >/dev/null 2>&1 && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi
bash scripts/pgvector.sh

# Debian packages the end-to-end suites run for real (bubblewrap and python3: the local sandbox runtime).
wanted=(bubblewrap chromium curl jq openssl python3)
packages=()
for package in "${wanted[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || packages+=("$package")
done
if [ "${#packages[@]}" -gt 0 ]; then
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi

# npm install keeps the lockfile's versions; npm ci would refuse a lockfile that lists only this platform's
# optional native binaries (npm/cli#4828), which is what npm writes here.
npm install --no-audit --no-fund
