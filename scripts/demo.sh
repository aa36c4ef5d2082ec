#!/usr/bin/env bash
# README command one: installs what is missing, builds, and runs the main job on its
# embedded default. Today that is `ftms-bridge demo`: real frames from real machines,
# decoded. Later it becomes the whole simulated gym.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product ftms-bridge >&2
.build/release/ftms-bridge demo "$@"
