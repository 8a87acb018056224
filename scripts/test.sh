#!/usr/bin/env bash
# The whole test suite from a fresh clone: Node 24 (installed beside the project when the machine's node is
# older), the machine prepared by test-setup.sh, then every test. Arguments go to Jest: `bash scripts/test.sh
# test/tool-calls.e2e-spec.ts -t 'rate limit'` runs one suite or one test the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(bash scripts/node24.sh):$PATH"
export PATH
bash scripts/test-setup.sh
npm test -- "$@"
