#!/bin/sh
# deps.sh installs the Debian/Ubuntu packages voxkit needs that are missing.
#
# Usage: .ci/deps.sh run|test|bench|image
#
#   run   what building and serving needs: a C toolchain, pkg-config,
#         libespeak-ng, libopus and libmp3lame headers.
#   test  also the tools the tests judge audio with (ffmpeg, sox, flac,
#         opus-tools, pocketsphinx), chromium for browser tests, postgresql
#         (the PostgreSQL store's tests start a server of their own; the
#         service Debian starts with it is not used) and npm (to fetch ONNX
#         Runtime) when the npm command is missing, and caddy (the reverse
#         proxy internal/e2e's TestBehindCaddy puts in front of the server;
#         the service Debian starts with it is not used), and pandoc
#         (internal/book reads the EPUBs it makes).
#   bench also python3-torch and python3-onnx, which generate the
#         Piper-sized model the ONNX benchmarks run.
#   image what examples/deploy/check-image.sh needs to build and run the
#         image: podman with runc, mmdebstrap for the base image, and
#         what rootless podman needs (uidmap, slirp4netns,
#         fuse-overlayfs), with curl.
#
# Packages already installed are left alone, so a second run costs a few
# dpkg queries. On other systems it prints what to install and fails.
set -eu

run_pkgs="gcc pkg-config espeak-ng libespeak-ng-dev libopus-dev libmp3lame-dev"
test_pkgs="$run_pkgs ffmpeg sox flac opus-tools pocketsphinx pocketsphinx-en-us chromium curl python3-onnx postgresql caddy pandoc"

case "${1:-run}" in
run) want=$run_pkgs ;;
test) want=$test_pkgs ;;
bench) want="$test_pkgs python3-torch" ;;
image) want="podman runc mmdebstrap uidmap slirp4netns fuse-overlayfs curl" ;;
*)
	echo "usage: $0 run|test|bench|image" >&2
	exit 2
	;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: not a Debian-like system; install the equivalents of: $want" >&2
	exit 1
fi

missing=""
for p in $want; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
# npm may come with a Node.js that is not Debian's (whose nodejs conflicts
# with Debian's npm package): ask for the command, not the package.
if { [ "${1:-run}" = test ] || [ "${1:-run}" = bench ]; } && ! command -v npm >/dev/null 2>&1; then
	missing="$missing npm"
fi
[ -z "$missing" ] && exit 0

sudo=""
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "deps: missing packages:$missing (run as root or install them)" >&2
		exit 1
	fi
fi
echo "deps: installing$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
