#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ci.sh [WORKDIR]: what CI runs for fuzzing: installs clang if missing,
# builds every harness and fuzzes each for FUZZ_SECONDS (default 15).
# Exit 1 when a harness found a crash, leak or timeout (see run.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/scripts/need-packages.sh" clang pkg-config libkmod-dev libelf-dev libzstd-dev \
	liblzma-dev libssl-dev libsmartcols-dev
FUZZ_SECONDS=${FUZZ_SECONDS:-15} exec "$top/tests/fuzz/run.sh" "${1:-$top/build-fuzz}"
