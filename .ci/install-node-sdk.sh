#!/bin/sh
# install-node-sdk.sh installs the official client SDKs the end-to-end
# tests drive the server with, at pinned versions, into a cache directory:
# the OpenAI Node SDK ("openai"), ElevenLabs' ("@elevenlabs/elevenlabs-js"),
# Cartesia's ("@cartesia/cartesia-js"), the WebSocket library Cartesia's
# SDK loads in Node ("ws"), what docs/agents.md's snippets use besides
# (LiveKit's agents with its ElevenLabs plugin, and TypeScript with Node's
# types to type-check them), and sherpa-onnx's Node package
# ("sherpa-onnx-node" with its build for this machine, both pinned, since
# the package asks for any later build) that the PocketTTS parity test and
# benchmarks in engine/pocket run as the peer.
#
# Usage: .ci/install-node-sdk.sh [DIR]
#
#   DIR  install prefix. Default: $VOXKIT_NODE_SDK_DIR if set, else
#        $(pwd)/.cache/node-sdk. The packages land in DIR/node_modules.
#
# Environment:
#   OPENAI_NODE_VERSION  the openai package version (default 7.57.0).
#
# npm runs with --ignore-scripts: no package script ever runs. The script
# is idempotent: when DIR already holds the pinned versions it does nothing
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

# name@version of each package.
packages="openai@$version @elevenlabs/elevenlabs-js@2.73.0 @cartesia/cartesia-js@4.2.0 ws@8.23.0
@livekit/agents@1.9.0 @livekit/agents-plugin-elevenlabs@1.9.0 typescript@7.0.2 @types/node@20.19.43"
# sherpa-onnx-node loads a build for the machine from a package of its own.
case "$(uname -s)-$(uname -m)" in
Linux-x86_64) packages="$packages sherpa-onnx-node@1.13.8 sherpa-onnx-linux-x64@1.13.8" ;;
Linux-aarch64) packages="$packages sherpa-onnx-node@1.13.8 sherpa-onnx-linux-arm64@1.13.8" ;;
*) echo "install-node-sdk: no sherpa-onnx-node build for $(uname -s) $(uname -m); engine/pocket's parity test and benchmarks cannot run" >&2 ;;
esac

installed() {
	for p in $packages; do
		name=${p%@*}
		[ -s "$dir/node_modules/$name/package.json" ] || return 1
		node -e 'process.exit(require(process.argv[1]).version === process.argv[2] ? 0 : 1)' \
			"$dir/node_modules/$name/package.json" "${p##*@}" || return 1
	done
}

if installed; then
	echo "install-node-sdk: $packages already in $dir" >&2
	echo "$dir"
	exit 0
fi

echo "install-node-sdk: installing $packages into $dir" >&2
# shellcheck disable=SC2086 # one word per package
npm install --ignore-scripts --no-audit --no-fund --silent --prefix "$dir" $packages >&2
if ! installed; then
	echo "install-node-sdk: $packages did not all install into $dir" >&2
	exit 1
fi
echo "$dir"
