#!/bin/sh
# install-onnxruntime.sh provisions the ONNX Runtime shared library
# (libonnxruntime.so.1, linux x86-64) that engine/onnx loads at run time.
#
# It takes the library from the npm package onnxruntime-node, fetched with
# `npm pack --ignore-scripts` (which only downloads the tarball: none of the
# package's scripts run), and extracts the one file it needs. Nothing is
# installed system-wide and no ldconfig is needed.
#
# Usage: .ci/install-onnxruntime.sh [DIR]
#
#   DIR  where to put the library. Default: $VOXKIT_ORT_DIR if set, else
#        $XDG_CACHE_HOME/voxkit/onnxruntime if XDG_CACHE_HOME is set, else
#        $(pwd)/.cache/onnxruntime.
#
# Environment:
#   ORT_VERSION   onnxruntime-node version (default 1.30.0; engine/onnx needs
#                 >= 1.24). The checksum is only verified for the default.
#   ORT_TARBALL   use this already downloaded onnxruntime-node-*.tgz instead
#                 of running npm pack.
#
# The script is idempotent: when DIR already holds the library it does
# nothing else. Its last line of output is the absolute path of the library,
# so callers can do: ONNXRUNTIME_LIB=$(.ci/install-onnxruntime.sh | tail -n1)
set -eu

version=${ORT_VERSION:-1.30.0}
# sha256 of package/bin/napi-v6/linux/x64/libonnxruntime.so.1 in 1.30.0.
want_sha=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
member=package/bin/napi-v6/linux/x64/libonnxruntime.so.1

if [ $# -gt 0 ]; then
	dir=$1
elif [ -n "${VOXKIT_ORT_DIR:-}" ]; then
	dir=$VOXKIT_ORT_DIR
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	dir=$XDG_CACHE_HOME/voxkit/onnxruntime
else
	dir=$(pwd)/.cache/onnxruntime
fi

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*)
	echo "install-onnxruntime: only linux x86_64 is provisioned by this script; install ONNX Runtime >= 1.24 yourself and set ONNXRUNTIME_LIB" >&2
	exit 1
	;;
esac

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
lib=$dir/libonnxruntime.so.1
stamp=$dir/VERSION

verify() {
	[ "$version" = 1.30.0 ] || return 0
	got=$(sha256sum "$1" | cut -d' ' -f1)
	if [ "$got" != "$want_sha" ]; then
		echo "install-onnxruntime: checksum mismatch for $1: got $got, want $want_sha" >&2
		return 1
	fi
}

if [ -s "$lib" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
	echo "install-onnxruntime: onnxruntime $version already in $dir" >&2
	echo "$lib"
	exit 0
fi

work=$(mktemp -d "$dir/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

if [ -n "${ORT_TARBALL:-}" ]; then
	tarball=$ORT_TARBALL
else
	if ! command -v npm >/dev/null 2>&1; then
		echo "install-onnxruntime: npm is needed to fetch onnxruntime-node (apt-get install npm), or set ORT_TARBALL" >&2
		exit 1
	fi
	echo "install-onnxruntime: fetching onnxruntime-node@$version (about 115 MB)" >&2
	(cd "$work" && npm pack "onnxruntime-node@$version" --ignore-scripts --silent >/dev/null)
	tarball=$work/onnxruntime-node-$version.tgz
fi
[ -s "$tarball" ] || {
	echo "install-onnxruntime: $tarball is missing or empty" >&2
	exit 1
}

tar -xzf "$tarball" -C "$work" "$member"
verify "$work/$member"
chmod 0644 "$work/$member"
mv -f "$work/$member" "$lib"
echo "$version" >"$stamp"
echo "install-onnxruntime: installed onnxruntime $version into $dir" >&2
echo "$lib"
