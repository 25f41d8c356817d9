#!/bin/sh
# check-fleet.sh runs the fleet of examples/deploy/compose.yaml in podman
# containers: PostgreSQL, two workers and a gateway, the workers and the
# gateway from the image check-image.sh builds. It takes the documented
# first steps (init, a speech key for the gateway), drives the gateway
# with examples/loadtest for 30 s, kills one worker 10 s in and starts it
# again 5 s later, and fails unless every request succeeded, the gateway
# saw the worker go and come back, and the restarted worker served again.
# It prints the load tool's figures. See docs/deploy.md.
#
# Usage: examples/deploy/check-fleet.sh
#
# It runs check-image.sh first, which builds voxkit:check from the
# working tree (and seeds the base images when podman lacks them); with
# VOXKIT_FLEET_REUSE=1 it takes the image as it is, when check-image.sh
# has just run. PostgreSQL is Debian's package in an image made here from
# the seeded debian:bookworm-slim (voxkit-postgres:check, kept for the
# next run), as no registry is reachable for postgres:15.
#
# Every container runs with --network host on loopback ports that are
# free when the script starts (docs/deploy.md says why not compose's
# network). VOXKIT_FLEET_SECONDS (30), VOXKIT_FLEET_CLIENTS (8).
set -eu
cd "$(dirname "$0")/../.."

image=${VOXKIT_IMAGE:-voxkit:check}
pgimage=voxkit-postgres:check
slim=docker.io/library/debian:bookworm-slim
seconds=${VOXKIT_FLEET_SECONDS:-30}
clients=${VOXKIT_FLEET_CLIENTS:-8}
kill_at=10 # seconds into the load
down=5     # seconds the worker stays down
p=voxkit-fleet-$$
limits="--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"

say() { printf 'check-fleet: %s\n' "$*" >&2; }
fail() {
	say "FAIL: $*"
	for c in $p-postgres $p-worker1 $p-worker2 $p-gateway; do
		if podman container exists $c 2>/dev/null; then
			say "--- last lines of $c"
			podman logs --tail 20 $c >&2 2>&1 || true
		fi
	done
	exit 1
}
now() { date +%s.%N; }
since() { echo "$1 $(now)" | awk '{printf "%.1f", $2 - $1}'; }

for tool in podman curl go ss sha256sum; do
	command -v $tool >/dev/null 2>&1 || fail "$tool is not installed (.ci/deps.sh image installs it)"
done
if command -v runc >/dev/null 2>&1; then
	podman() { command podman --runtime runc "$@"; }
fi

work=$(mktemp -d)
cleanup() {
	podman rm -f -t 0 -v $p-postgres $p-worker1 $p-worker2 $p-gateway >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
t_all=$(now)

# --- images ----------------------------------------------------------------

if [ "${VOXKIT_FLEET_REUSE:-}" = 1 ]; then
	podman image exists $image || fail "no image $image: run examples/deploy/check-image.sh"
else
	say "running examples/deploy/check-image.sh (builds $image)"
	VOXKIT_IMAGE=$image sh examples/deploy/check-image.sh >&2 || fail "check-image.sh"
fi
podman image exists $slim || fail "no $slim (check-image.sh seeds it)"

# What the official postgres image's entrypoint does, as far as the
# compose file uses it: on an empty data directory, initdb with
# POSTGRES_USER and POSTGRES_PASSWORD (scram) and POSTGRES_DB created;
# then the server, on PGPORT, listening on every address.
mkdir "$work/pg"
cat >"$work/pg/entrypoint.sh" <<-'END'
	#!/bin/sh
	set -eu
	bin=$(echo /usr/lib/postgresql/*/bin)
	data=${PGDATA:-/var/lib/postgresql/data}
	if [ ! -s "$data/PG_VERSION" ]; then
		echo "$POSTGRES_PASSWORD" >/tmp/pwfile
		"$bin/initdb" -D "$data" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth=scram-sha-256 >/dev/null
		rm /tmp/pwfile
		echo "host all all all scram-sha-256" >>"$data/pg_hba.conf"
		"$bin/pg_ctl" -D "$data" -o "-c listen_addresses='' -k /tmp" -w start >/dev/null
		PGPASSWORD=$POSTGRES_PASSWORD "$bin/createdb" -h /tmp -U "$POSTGRES_USER" "${POSTGRES_DB:-$POSTGRES_USER}"
		"$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
	fi
	exec "$bin/postgres" -D "$data" -k /tmp -c listen_addresses='*' -p "${PGPORT:-5432}"
END
cat >"$work/pg/Containerfile" <<-END
	# base $(podman image inspect --format '{{.Id}}' $slim)
	FROM $slim
	RUN apt-get update \\
	 && apt-get install -y --no-install-recommends postgresql \\
	 && rm -rf /var/lib/apt/lists/* \\
	 && install -d -o postgres -g postgres /var/lib/postgresql/data
	COPY entrypoint.sh /usr/local/bin/postgres-entrypoint
	USER postgres
	ENV PGDATA=/var/lib/postgresql/data
	VOLUME /var/lib/postgresql/data
	ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint"]
END
cat "$work/pg/entrypoint.sh" >>"$work/pg/Containerfile.sum"
cat "$work/pg/Containerfile" >>"$work/pg/Containerfile.sum"
seed=$(sha256sum "$work/pg/Containerfile.sum" | cut -c1-16)
rm "$work/pg/Containerfile.sum"
if [ "$(podman image inspect --format '{{index .Config.Labels "voxkit.seed"}}' $pgimage 2>/dev/null)" != "$seed" ]; then
	say "building $pgimage: $slim and Debian's postgresql"
	t=$(now)
	podman build --quiet --network host $limits --label voxkit.seed="$seed" -t $pgimage "$work/pg" >"$work/pg.log" 2>&1 ||
		{ tail -30 "$work/pg.log" >&2; fail "building $pgimage"; }
	say "built $pgimage in $(since $t) s"
fi

# --- ports -----------------------------------------------------------------

# ports N: N loopback TCP ports, distinct, that nobody listens on now.
ports() {
	ss -Htln | awk '{ sub(/.*:/, "", $4); print $4 }' >"$work/used"
	od -An -tu2 -N4000 /dev/urandom | tr -s ' ' '\n' |
		awk -v n="$1" 'NR == FNR { used[$1] = 1; next }
			$1 >= 20000 && $1 < 60000 && !used[$1]++ { print; if (++k == n) exit }' "$work/used" -
}
set -- $(ports 7)
[ $# = 7 ] || fail "no free ports"
pg_port=$1 w1=$2 w1m=$3 w2=$4 w2m=$5 gw=$6 gwm=$7
store="postgres://voxkit:voxkit@127.0.0.1:$pg_port/voxkit?sslmode=disable"

# --- PostgreSQL and the first steps ------------------------------------------

t0=$(now)
podman run -d --name $p-postgres $limits --network host \
	-e POSTGRES_USER=voxkit -e POSTGRES_PASSWORD=voxkit -e POSTGRES_DB=voxkit -e PGPORT=$pg_port \
	$pgimage >/dev/null || fail "podman run postgres"
until podman exec $p-postgres sh -c "PGPASSWORD=voxkit /usr/lib/postgresql/*/bin/psql -h 127.0.0.1 -p $pg_port -U voxkit -d voxkit -qAtc 'select 1'" >/dev/null 2>&1; do
	[ "$(podman inspect --format '{{.State.Running}}' $p-postgres)" = true ] || fail "postgres exited"
	[ "$(since $t0 | cut -d. -f1)" -lt 60 ] || fail "postgres not ready after 60 s"
	sleep 0.2
done
say "postgres ready on 127.0.0.1:$pg_port in $(since $t0) s"

# voxkit ARGS...: a one-off container of the image on the store.
voxkit() { podman run --rm $limits --network host --read-only -e VOXKIT_STORE="$store" $image "$@"; }
voxkit init >"$work/init" 2>"$work/init.err" || { cat "$work/init.err" >&2; fail "init"; }
admin=$(sed -n 's/^api key: *//p' "$work/init")
[ -n "$admin" ] || { cat "$work/init" "$work/init.err" >&2; fail "init printed no API key"; }
upkey=$(voxkit keys create --account gateway --create-account --scope speech 2>"$work/keys.err") ||
	{ cat "$work/keys.err" >&2; fail "keys create"; }
say "init: account local and its admin key; keys create: the gateway's speech key"

# --- workers and the gateway -------------------------------------------------

# serve NAME PORT METRICS-PORT [podman run options]: a server container
# as compose.yaml runs it, but on loopback ports of the host's network.
serve() {
	n=$1 a=$2 m=$3
	shift 3
	podman run -d --name $p-$n $limits --network host --read-only \
		-e VOXKIT_STORE="$store" -e VOXKIT_ADDR=127.0.0.1:$a -e VOXKIT_METRICS_ADDR=127.0.0.1:$m \
		"$@" $image >/dev/null 2>"$work/run.err" || { cat "$work/run.err" >&2; fail "podman run $n"; }
}
# ready NAME PORT: its /readyz answers 200 within 60 s.
ready() {
	tr=$(now)
	until curl -fsS -o /dev/null "http://127.0.0.1:$2/readyz" 2>/dev/null; do
		[ "$(podman inspect --format '{{.State.Running}}' $p-$1)" = true ] || fail "$1 exited"
		[ "$(since $tr | cut -d. -f1)" -lt 60 ] || fail "$1 not ready after 60 s"
		sleep 0.1
	done
}
serve worker1 $w1 $w1m
serve worker2 $w2 $w2m
ready worker1 $w1
ready worker2 $w2
serve gateway $gw $gwm -e VOXKIT_UPSTREAM=http://127.0.0.1:$w1,http://127.0.0.1:$w2 -e VOXKIT_UPSTREAM_KEY="$upkey"
ready gateway $gw
for c in worker1 worker2 gateway; do
	podman healthcheck run $p-$c >/dev/null || fail "$c: HEALTHCHECK unhealthy"
done
# healthy N: the gateway's metrics count N workers in rotation.
healthy() {
	[ "$(curl -fsS "http://127.0.0.1:$gwm/metrics" | awk '/^voxkit_upstream_healthy\{/ { n += $2 } END { print n + 0 }')" = "$1" ]
}
t=$(now)
until healthy 2; do
	[ "$(since $t | cut -d. -f1)" -lt 30 ] || fail "the gateway does not have both workers in rotation"
	sleep 0.2
done
say "fleet up in $(since $t0) s: postgres :$pg_port, workers :$w1 :$w2, gateway :$gw (metrics :$gwm)"

# --- load, with a worker killed and started again ------------------------------

go build -o "$work/loadtest" ./examples/loadtest || fail "go build ./examples/loadtest"
"$work/loadtest" -url http://127.0.0.1:$gw -key "$admin" -c $clients -d ${seconds}s >"$work/load" 2>&1 &
load=$!
sleep $kill_at
podman kill $p-worker1 >/dev/null || fail "podman kill worker1"
say "killed worker1 (SIGKILL) $kill_at s in"
gone=no
t=$(now)
while [ "$(since $t | cut -d. -f1)" -lt $down ]; do
	healthy 1 && gone=yes
	sleep 0.2
done
restarted_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
t=$(now)
podman start $p-worker1 >/dev/null 2>"$work/run.err" || { cat "$work/run.err" >&2; fail "podman start worker1"; }
ready worker1 $w1
say "started worker1 again $down s later: ready $(since $t) s after podman start"
back=no
until [ $back = yes ] || ! kill -0 $load 2>/dev/null; do
	healthy 2 && back=yes || sleep 0.2
done
wait $load || { cat "$work/load" >&2; fail "loadtest"; }
cat "$work/load"

# --- verdict -----------------------------------------------------------------

grep -q '^requests: [1-9]' "$work/load" || fail "no request succeeded"
grep -qx 'errors: none' "$work/load" || fail "failed requests: $(grep '^errors:' "$work/load")"
[ $gone = yes ] || fail "the gateway never took worker1 out of rotation"
[ $back = yes ] || fail "the gateway did not take worker1 back before the load ended"
# The restarted worker1 served speech again (its log since the restart).
podman logs --since "$restarted_at" $p-worker1 2>&1 | grep '"msg":"request"' | grep -q '"path":"/v1/audio/speech","status":200' ||
	fail "worker1 served no speech after its restart"
retries=$(podman logs $p-gateway 2>&1 | grep -c 'retrying on another worker' || true)
echo "fleet: worker1 killed ${kill_at} s in, started ${down} s later, served again; gateway retries on another worker: $retries; $(since $t_all) s in all"
