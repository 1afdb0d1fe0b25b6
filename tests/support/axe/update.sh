#!/usr/bin/env bash
# Refresh the vendored axe-core (tests only) from the pinned version in package.json / package-lock.json.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
cp node_modules/axe-core/axe.min.js node_modules/axe-core/LICENSE node_modules/axe-core/LICENSE-3RD-PARTY.txt .
sha256sum axe.min.js > axe.min.js.sha256
rm -rf node_modules
