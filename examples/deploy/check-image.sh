#!/bin/sh
# check-image.sh builds the image of examples/deploy/Dockerfile, as it is,
# with podman and checks a container of it: speech in every format, the
# probes and metrics, uid 10001 on a read-only root filesystem, /data as a
# volume another container shares, the HEALTHCHECK, and a drain on
# SIGTERM. It prints the image's size, the build time and the time from
# `podman run` to the first audio. .ci/run runs it; see docs/deploy.md.
#
# Usage: examples/deploy/check-image.sh
#
# No registry is needed: the Dockerfile's two base images are made here
# when podman does not have them yet, and kept for the next run:
#
#   debian:bookworm-slim   mmdebstrap's minbase bookworm, with the
#                          excludes of Debian's slim images
#   golang:1.26-bookworm   that, with ca-certificates, a C toolchain and
#                          this machine's Go toolchain in /usr/local/go
#
# The builds use the host's network (--network host) for Debian's
# packages, Go modules and npm, and the Go image trusts the host's CA
# bundle as well as Debian's (the runtime image does not). Containers run
# with runc and explicit rlimits where podman's defaults fail (see
# docs/deploy.md). VOXKIT_IMAGE names the image (default voxkit:check).
# The drain is checked with a client reading at 1 MB/s too, which must
# get its whole answer (docs/deploy.md).
set -eu
cd "$(dirname "$0")/../.."

image=${VOXKIT_IMAGE:-voxkit:check}
name=voxkit-check-$$
volume=voxkit-check-$$
dockerfile=examples/deploy/Dockerfile
limits="--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"

say() { printf 'check-image: %s\n' "$*" >&2; }
fail() {
	say "FAIL: $*"
	for c in $name $name-2; do
		podman container exists $c 2>/dev/null && podman logs --tail 30 $c >&2 2>&1 || true
	done
	exit 1
}
now() { date +%s.%N; }
since() { echo "$1 $(now)" | awk '{printf "%.1f", $2 - $1}'; }

for tool in podman curl od go sha256sum; do
	command -v $tool >/dev/null 2>&1 || fail "$tool is not installed (.ci/deps.sh image installs it)"
done
# crun, podman's default runtime, fails on hosts with hybrid cgroups; runc
# runs everywhere podman does.
if command -v runc >/dev/null 2>&1; then
	podman() { command podman --runtime runc "$@"; }
fi

work=$(mktemp -d)
cleanup() {
	podman rm -f -t 0 $name $name-2 >/dev/null 2>&1 || true
	podman volume rm -f $volume >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

podman info >"$work/info" 2>&1 || { cat "$work/info" >&2; fail "podman cannot run here"; }

# --- base images -----------------------------------------------------------

slim=docker.io/library/debian:bookworm-slim
golang=$(sed -n 's/^FROM \(golang:[^ ]*\) AS build$/\1/p' $dockerfile)
[ -n "$golang" ] || fail "$dockerfile: no 'FROM golang:… AS build' line"
golang=docker.io/library/$golang
goversion=$(go env GOVERSION)
want=${golang#*golang:}
want=${want%-bookworm}
case "$goversion" in
go$want | go$want.*) ;;
*) fail "the build stage wants Go $want; this machine has $goversion" ;;
esac

# seeded IMAGE RECIPE: IMAGE exists and was made from the file RECIPE (a
# label holds its hash), so a changed recipe or Go toolchain remakes it.
sum() { sha256sum "$1" | cut -c1-16; }
seeded() {
	[ "$(podman image inspect --format '{{index .Config.Labels "voxkit.seed"}}' "$1" 2>/dev/null)" = "$(sum "$2")" ]
}

# The excludes of Debian's own slim images (debuerreotype's slimify). Given
# to mmdebstrap, they land in /etc/dpkg/dpkg.cfg.d and hold for later
# installs too. The merged-usr hook merges /usr without the usrmerge
# package (which would bring perl).
hooks=/usr/share/mmdebstrap/hooks/merged-usr
cat >"$work/dpkg.cfg" <<-'END'
	path-exclude=/usr/share/man/*
	path-exclude=/usr/share/groff/*
	path-exclude=/usr/share/info/*
	path-exclude=/usr/share/lintian/*
	path-exclude=/usr/share/linda/*
	path-exclude=/usr/share/locale/*
	path-include=/usr/share/locale/locale.alias
	path-exclude=/usr/share/doc/*
	path-include=/usr/share/doc/*/copyright
END
{ cat "$work/dpkg.cfg"; echo "mmdebstrap --variant=minbase --hook-dir=$hooks bookworm"; } >"$work/slim.recipe"
if ! seeded $slim "$work/slim.recipe"; then
	command -v mmdebstrap >/dev/null 2>&1 || fail "mmdebstrap is not installed (.ci/deps.sh image installs it)"
	say "seeding $slim with mmdebstrap"
	t=$(now)
	mmdebstrap --quiet --variant=minbase --hook-dir=$hooks --dpkgopt="$work/dpkg.cfg" \
		bookworm "$work/rootfs.tar" >&2 || fail "mmdebstrap"
	podman import --change 'CMD ["bash"]' --change "LABEL voxkit.seed=$(sum "$work/slim.recipe")" \
		"$work/rootfs.tar" $slim >/dev/null || fail "podman import"
	rm -f "$work/rootfs.tar"
	say "seeded $slim in $(since $t) s"
fi

# What the official Go image adds to Debian: ca-certificates, a C
# toolchain and Go in /usr/local/go; here also the host's CA bundle.
mkdir "$work/go-image"
cat >"$work/go-image/Containerfile" <<-END
	# base $(sum "$work/slim.recipe")
	FROM $slim
	RUN apt-get update \\
	 && apt-get install -y --no-install-recommends ca-certificates g++ gcc libc6-dev make pkg-config \\
	 && rm -rf /var/lib/apt/lists/*
	COPY host-ca-bundle.crt /usr/local/share/ca-certificates/host-ca-bundle.crt
	RUN update-ca-certificates
	COPY go /usr/local/go
	ENV GOLANG_VERSION=${goversion#go} GOTOOLCHAIN=local GOPATH=/go \\
	    PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	WORKDIR /go
END
if ! seeded $golang "$work/go-image/Containerfile"; then
	say "seeding $golang from $slim and $goversion"
	t=$(now)
	cp -a "$(go env GOROOT)" "$work/go-image/go"
	cp /etc/ssl/certs/ca-certificates.crt "$work/go-image/host-ca-bundle.crt"
	podman build --quiet --network host $limits --label voxkit.seed="$(sum "$work/go-image/Containerfile")" \
		-t $golang "$work/go-image" >/dev/null || fail "building $golang"
	say "seeded $golang in $(since $t) s"
fi
rm -rf "$work/go-image"

# --- the image -------------------------------------------------------------

say "building $image from $dockerfile"
t=$(now)
# --format docker keeps the HEALTHCHECK (the OCI format has none). Go's
# build cache and npm's are the host's, mounted into the RUN steps: every
# commit changes the context, and a cold build of the server takes minutes.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/voxkit/image
mkdir -p "$cache/go-build" "$cache/npm"
podman build --format docker --network host $limits -f $dockerfile -t $image \
	-v "$cache/go-build:/root/.cache/go-build" -v "$cache/npm:/root/.npm" . >"$work/build.log" 2>&1 ||
	{ tail -40 "$work/build.log" >&2; fail "podman build"; }
build_s=$(since $t)
# Tag the build stage too (cached: a second or so), so that pruning the
# images left untagged by earlier runs keeps the cached layers of its
# apt-get and go mod download steps. Only images made from the seeded
# bases carry their voxkit.seed label.
podman build --quiet --format docker --network host $limits -f $dockerfile --target build -t $image-build \
	-v "$cache/go-build:/root/.cache/go-build" -v "$cache/npm:/root/.npm" . >/dev/null || fail "podman build --target build"
podman image prune --force --filter label=voxkit.seed >/dev/null
size=$(podman image inspect --format '{{.Size}}' $image)
say "built in $build_s s: $((size / 1000000)) MB"

[ "$(podman image inspect --format '{{.Config.User}}' $image)" = 10001 ] || fail "the image's user is not 10001"
health=$(podman image inspect --format '{{if .Config.Healthcheck}}{{.Config.Healthcheck.Test}}{{end}}' $image)
[ -n "$health" ] || fail "the image has no HEALTHCHECK"
podman image inspect --format '{{range $k, $v := .Config.Volumes}}{{$k}} {{end}}' $image | grep -qw /data ||
	fail "/data is not a volume of the image"

# --- a container -----------------------------------------------------------

podman volume create $volume >/dev/null
t0=$(now)
podman run -d --name $name $limits --read-only -v $volume:/data \
	-p 127.0.0.1::8080 -p 127.0.0.1::9090 $image >/dev/null || fail "podman run"
api=http://$(podman port $name 8080/tcp | head -1)
ops=http://$(podman port $name 9090/tcp | head -1)

# ready: the API's /readyz answers 200
until curl -fsS -o /dev/null "$api/readyz" 2>/dev/null; do
	[ "$(podman inspect --format '{{.State.Running}}' $name)" = true ] || fail "the container exited"
	[ "$(since $t0 | cut -d. -f1)" -lt 60 ] || fail "not ready after 60 s"
	sleep 0.05
done
key=$(podman logs $name 2>/dev/null | sed -n 's/^api key: *//p' | head -1)
[ -n "$key" ] || fail "the first start printed no API key"

# speak FORMAT FILE TEXT [CURL OPTIONS...]: POST /v1/audio/speech.
speak() {
	f=$1 out=$2 text=$3
	shift 3
	curl -fsS -o "$out" "$@" "$api/v1/audio/speech" -H "Authorization: Bearer $key" \
		-H 'Content-Type: application/json' \
		-d "{\"model\":\"tts-1\",\"voice\":\"alloy\",\"input\":\"$text\",\"response_format\":\"$f\"}"
}
hello="Hello from the voxkit image."
speak wav "$work/first.wav" "$hello" || fail "speech: wav"
first_s=$(since $t0)
say "first audio $first_s s after podman run"

# magic FILE OFFSET HEX: the bytes at OFFSET are HEX.
magic() { [ "$(od -An -tx1 -j "$2" -N $((${#3} / 2)) "$1" | tr -d ' \n')" = "$3" ]; }
for f in wav mp3 pcm opus flac; do
	speak $f "$work/a.$f" "$hello" || fail "speech: $f"
	n=$(wc -c <"$work/a.$f")
	[ "$n" -gt 4000 ] || fail "speech: $f is $n bytes"
	case $f in
	wav) magic "$work/a.$f" 0 52494646 && magic "$work/a.$f" 8 57415645 ;; # RIFF WAVE
	mp3) magic "$work/a.$f" 0 494433 || od -An -tx1 -N2 "$work/a.$f" | grep -Eq 'ff f[2-f]' ;;
	pcm) [ $((n % 2)) = 0 ] ;;
	opus) magic "$work/a.$f" 0 4f676753 && magic "$work/a.$f" 28 4f70757348656164 ;; # OggS OpusHead
	flac) magic "$work/a.$f" 0 664c6143 ;; # fLaC
	esac || fail "speech: $f does not look like $f"
	say "speech: $f, $n bytes"
done

for probe in "$api/healthz" "$api/readyz" "$ops/healthz" "$ops/readyz" "$ops/metrics"; do
	curl -fsS -o "$work/probe" "$probe" || fail "$probe"
done
grep -q '^process_start_time_seconds ' "$work/probe" || fail "/metrics on 9090 has no process metrics"
podman healthcheck run $name >/dev/null || fail "HEALTHCHECK: unhealthy"
say "probes: /healthz /readyz on 8080 and 9090, /metrics on 9090, HEALTHCHECK healthy"

[ "$(podman exec $name id -u)" = 10001 ] || fail "the server does not run as uid 10001"
[ "$(podman inspect --format '{{.HostConfig.ReadonlyRootfs}}' $name)" = true ] || fail "root filesystem not read-only"
podman exec $name sh -c 'touch /usr/local/bin/x' 2>/dev/null && fail "the root filesystem is writable"
podman exec $name sh -c 'test -s /data/voxkit.db' || fail "no store in /data"
say "uid 10001, read-only root filesystem, store in the /data volume"

# A second container on the volume: it lists the first one's key, and a
# key it makes is accepted by the first.
podman run --rm --name $name-2 $limits --read-only -v $volume:/data $image keys list >"$work/keys" 2>&1 ||
	{ cat "$work/keys" >&2; fail "second container: keys list"; }
prefix=$(echo "$key" | cut -c1-11)
grep -q "$prefix" "$work/keys" || { cat "$work/keys" >&2; fail "second container does not see key $prefix"; }
key2=$(podman run --rm --name $name-2 $limits --read-only -v $volume:/data $image \
	keys create --account local --name check --scope speech 2>/dev/null) || fail "second container: keys create"
key=$key2 speak mp3 "$work/b.mp3" "$hello" || fail "the first container refuses the second's key"
say "a second container on the volume sees the same keys"

# Drain: SIGTERM comes while a request is being synthesized (a long text
# in Opus is sent whole, after about 2 s here); it must finish whole and
# the server exit 0.
long="This sentence is said again and again, so that the answer takes a while to read."
long="$long $long $long $long $long $long $long $long"
long="$long $long $long $long $long" # 3,300 characters, about 3 minutes of audio
speak opus "$work/full.opus" "$long" || fail "speech: long opus"
full=$(wc -c <"$work/full.opus")
# A client reading slowly (1 MB/s): the server has written its answer
# long before the client has read it.
speak pcm "$work/full.pcm" "$long" || fail "speech: long pcm"
speak pcm "$work/slow.pcm" "$long" --limit-rate 1000000 &
slow=$!
until [ -s "$work/slow.pcm" ]; do sleep 0.05; done
speak opus "$work/drain.opus" "$long" &
drain=$!
sleep 0.3
podman kill --signal TERM $name >/dev/null
wait $drain || fail "the request in flight at SIGTERM failed"
got=$(wc -c <"$work/drain.opus")
# Sentence by sentence, the same text may differ by a few bytes.
[ $((got * 100 / full)) -ge 99 ] && [ $((got * 100 / full)) -le 101 ] ||
	fail "the request in flight got $got bytes, $full without SIGTERM"
wait $slow || fail "a slow client's request in flight at SIGTERM failed"
[ $(($(wc -c <"$work/slow.pcm") * 100 / $(wc -c <"$work/full.pcm"))) -ge 99 ] || fail "a slow client's request was cut short"
code=$(podman wait $name)
[ "$code" = 0 ] || fail "exit status $code after SIGTERM"
podman logs $name >"$work/log" 2>&1
grep -q '"msg":"stopped"' "$work/log" || fail "no 'stopped' in the log"
# in flight: the request's log line (written when it ends) follows the drain's
awk '/"msg":"shutting down/ { s = 1 } s && /"msg":"request"/ && /"bytes":'"$got"',/ { ok = 1 } END { exit !ok }' "$work/log" ||
	fail "the request was not in flight at SIGTERM"
say "SIGTERM: the requests in flight finished ($got bytes; a client reading 1 MB/s its $(wc -c <"$work/slow.pcm") bytes), exit 0"

echo "image $image: $((size / 1000000)) MB; built in $build_s s; first audio $first_s s after podman run"
