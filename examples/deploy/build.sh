#!/bin/sh
# build.sh is the build stage of examples/deploy/Dockerfile, kept in a script so
# that CI runs the same steps outside a container (examples/deploy/deploy_test.go).
# It builds the server and provisions the ONNX Runtime library into OUT:
#
#   OUT/voxkit-server
#   OUT/libonnxruntime.so.1
#
# Usage: examples/deploy/build.sh OUT
#
# Needs Go, a C toolchain, pkg-config and the libespeak-ng, libopus and
# libmp3lame headers (.ci/deps.sh run installs them). The library is
# copied from $ONNXRUNTIME_LIB when that file exists, else fetched by
# .ci/install-onnxruntime.sh.
set -eu
out=${1:?usage: examples/deploy/build.sh OUT}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
CGO_ENABLED=1 go build -trimpath -ldflags "-s -w" -o "$out/voxkit-server" ./examples/server
if [ -n "${ONNXRUNTIME_LIB:-}" ] && [ -s "$ONNXRUNTIME_LIB" ]; then
	cp "$ONNXRUNTIME_LIB" "$out/libonnxruntime.so.1"
else
	sh .ci/install-onnxruntime.sh "$out" >/dev/null
fi
