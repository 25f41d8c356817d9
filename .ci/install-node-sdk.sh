#!/bin/sh
# install-node-sdk.sh installs the official OpenAI Node SDK (npm package
# "openai") at a pinned version into a cache directory, for the end-to-end
# tests in internal/e2e that drive the server with it.
#
# Usage: .ci/install-node-sdk.sh [DIR]
#
#   DIR  install prefix. Default: $VOXKIT_NODE_SDK_DIR if set, else
#        $(pwd)/.cache/node-sdk. The package lands in DIR/node_modules/openai.
#
# Environment:
#   OPENAI_NODE_VERSION  the openai package version (default 7.57.0).
#
# npm runs with --ignore-scripts: no package script ever runs. The script
# is idempotent: when DIR already holds the pinned version it does nothing
# else. Its last line of output is the absolute install prefix, so callers
# can do: VOXKIT_NODE_SDK_DIR=$(.ci/install-node-sdk.sh | tail -n1)
set -eu

version=${OPENAI_NODE_VERSION:-7.57.0}

if [ $# -gt 0 ]; then
	dir=$1
elif [ -n "${VOXKIT_NODE_SDK_DIR:-}" ]; then
	dir=$VOXKIT_NODE_SDK_DIR
else
	dir=$(pwd)/.cache/node-sdk
fi

for cmd in node npm; do
	if ! command -v "$cmd" >/dev/null 2>&1; then
		echo "install-node-sdk: $cmd is needed (apt-get install nodejs npm)" >&2
		exit 1
	fi
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
pkg=$dir/node_modules/openai/package.json

installed() {
	[ -s "$pkg" ] && node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' "$pkg" "$version"
}

if installed; then
	echo "install-node-sdk: openai $version already in $dir" >&2
	echo "$dir"
	exit 0
fi

echo "install-node-sdk: installing openai@$version into $dir" >&2
npm install --ignore-scripts --no-audit --no-fund --silent --prefix "$dir" "openai@$version" >&2
if ! installed; then
	echo "install-node-sdk: openai $version did not install into $dir" >&2
	exit 1
fi
echo "$dir"
