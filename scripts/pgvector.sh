#!/usr/bin/env bash
# Makes `CREATE EXTENSION vector` possible on the local PostgreSQL server (the production set-up the tests and
# benchmarks run on): when the server has no pgvector yet, installs Debian's server headers and builds pgvector
# from the release source in vendor/ (about 40 s). Does nothing when no local server is installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tarball="$(ls "$root"/vendor/pgvector-*.tar.gz "$root"/../shared/vendor/pgvector-*.tar.gz 2>/dev/null | head -n 1 || true)"
command -v pg_lsclusters >/dev/null 2>&1 || { echo "pgvector: no local PostgreSQL server; skipped" >&2; exit 0; }
major="$(ls /etc/postgresql | sort -n | tail -n 1)"
if [ -f "/usr/share/postgresql/$major/extension/vector.control" ]; then exit 0; fi
if [ -z "$tarball" ]; then echo "pgvector: no source tarball in vendor/" >&2; exit 1; fi
sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
if ! command -v pg_config >/dev/null 2>&1 || [ ! -d "/usr/include/postgresql/$major/server" ]; then
  $sudo_cmd apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "postgresql-server-dev-$major" >&2
fi
build="$(mktemp -d)"
tar -xzf "$tarball" -C "$build" --strip-components=1
make -C "$build" -s PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" OPTFLAGS="" >&2
$sudo_cmd make -C "$build" -s install PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" >&2
rm -rf "$build"
echo "pgvector: installed for PostgreSQL $major" >&2
