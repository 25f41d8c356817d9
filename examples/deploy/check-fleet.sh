#!/bin/sh
# check-fleet.sh brings up the fleet of examples/deploy/compose.yaml with
# podman-compose: PostgreSQL, two workers and a gateway, the workers and
# the gateway from the image check-image.sh builds. It takes the
# documented first steps (init, a speech key for the gateway), drives the
# gateway with examples/loadtest for 30 s, kills one worker 10 s in and
# starts it again 5 s later, and fails unless every request succeeded but
# those the killed worker had taken (at most one per client: the gateway
# does not send a request a worker took to another), the gateway saw the
# worker go and come back, and the restarted worker served again. It
# prints the load tool's figures. See docs/deploy.md.
#
# Usage: examples/deploy/check-fleet.sh
#
# It runs check-image.sh first, which builds voxkit:check from the
# working tree (and seeds the base images when podman lacks them); with
# VOXKIT_FLEET_REUSE=1 it takes the image as it is, when check-image.sh
# has just run. No registry is reachable for postgres:15: PostgreSQL is
# Debian's package in an image made here from the seeded
# debian:bookworm-slim, with the part of the official image's entrypoint
# that compose.yaml uses (voxkit-postgres:check, kept for the next run).
#
# podman-compose runs a copy of compose.yaml in which only the images'
# names and the gateway's published ports differ: its 127.0.0.1:8080,
# 9090 and 10200 become loopback ports free when the script starts.
# Prometheus (prom/prometheus, from a registry) is not started. Podman
# runs with runc and explicit rlimits (a containers.conf of its own, as
# podman-compose calls podman itself). VOXKIT_FLEET_SECONDS (30),
# VOXKIT_FLEET_CLIENTS (8).
set -eu
cd "$(dirname "$0")/../.."

image=${VOXKIT_IMAGE:-voxkit:check}
pgimage=voxkit-postgres:check
slim=debian:bookworm-slim # seeded by check-image.sh
seconds=${VOXKIT_FLEET_SECONDS:-30}
clients=${VOXKIT_FLEET_CLIENTS:-8}
kill_at=10 # seconds into the load
down=5     # seconds the worker stays down
p=voxkitfleet$$ # the compose project
limits="--ulimit nofile=1024:1024 --ulimit nproc=1024:1024"

say() { printf 'check-fleet: %s\n' "$*" >&2; }
fail() {
	say "FAIL: $*"
	for c in postgres worker1 worker2 gateway; do
		if podman container exists ${p}_${c}_1 2>/dev/null; then
			say "--- last lines of $c"
			podman logs --tail 20 ${p}_${c}_1 >&2 2>&1 || true
		fi
	done
	exit 1
}
now() { date +%s.%N; }
since() { echo "$1 $(now)" | awk '{printf "%.1f", $2 - $1}'; }

for tool in podman podman-compose curl go ss od sha256sum; do
	command -v $tool >/dev/null 2>&1 || fail "$tool is not installed"
done

work=$(mktemp -d)
# podman-compose runs podman itself: the runtime and rlimits go in a
# containers.conf. crun, podman's default, fails on hosts with hybrid
# cgroups; runc runs everywhere podman does.
{
	echo '[containers]'
	echo 'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]'
	if command -v runc >/dev/null 2>&1; then
		echo '[engine]'
		echo 'runtime = "runc"'
	fi
} >"$work/containers.conf"
export CONTAINERS_CONF="$work/containers.conf"
compose() { podman-compose --project-name $p -f "$work/compose.yaml" "$@"; }
cleanup() {
	# The containers with their anonymous volumes (the image's /data),
	# then what compose made: the pgdata volume and the network.
	ids=$(podman ps -aq --filter label=io.podman.compose.project=$p 2>/dev/null) || true
	[ -z "$ids" ] || podman rm -f -t 0 -v $ids >/dev/null 2>&1 || true
	podman rm -f -t 0 -v ${p}_older >/dev/null 2>&1 || true
	podman volume rm -f ${p}_pgdata >/dev/null 2>&1 || true
	podman network rm -f ${p}_default >/dev/null 2>&1 || true
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

# What the official postgres image's entrypoint does, as far as
# compose.yaml uses it: on an empty data directory, initdb with
# POSTGRES_USER and POSTGRES_PASSWORD (scram-sha-256, from every address)
# and POSTGRES_DB created; then the server, listening on every address,
# its socket where pg_isready (the compose file's health check) looks.
mkdir "$work/pg"
cat >"$work/pg/entrypoint.sh" <<-'END'
	#!/bin/sh
	set -eu
	bin=$(echo /usr/lib/postgresql/*/bin)
	if [ ! -s "$PGDATA/PG_VERSION" ]; then
		echo "$POSTGRES_PASSWORD" >/tmp/pwfile
		"$bin/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile --auth=scram-sha-256 >/dev/null
		rm /tmp/pwfile
		echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
		"$bin/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
		PGPASSWORD=$POSTGRES_PASSWORD "$bin/createdb" -U "$POSTGRES_USER" "${POSTGRES_DB:-$POSTGRES_USER}"
		"$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
	fi
	exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*'
END
cat >"$work/pg/Containerfile" <<-END
	# base $(podman image inspect --format '{{.Id}}' $slim)
	FROM $slim
	RUN apt-get update \\
	 && apt-get install -y --no-install-recommends postgresql \\
	 && rm -rf /var/lib/apt/lists/* \\
	 && install -d -o postgres -g postgres /var/lib/postgresql/data /var/run/postgresql
	COPY entrypoint.sh /usr/local/bin/postgres-entrypoint
	USER postgres
	ENV PGDATA=/var/lib/postgresql/data
	VOLUME /var/lib/postgresql/data
	EXPOSE 5432
	ENTRYPOINT ["sh", "/usr/local/bin/postgres-entrypoint"]
END
seed=$(cat "$work/pg/entrypoint.sh" "$work/pg/Containerfile" | sha256sum | cut -c1-16)
if [ "$(podman image inspect --format '{{index .Config.Labels "voxkit.seed"}}' $pgimage 2>/dev/null)" != "$seed" ]; then
	say "building $pgimage: $slim and Debian's postgresql"
	t=$(now)
	podman build --quiet --network host $limits --label voxkit.seed="$seed" -t $pgimage "$work/pg" >"$work/pg.log" 2>&1 ||
		{ tail -30 "$work/pg.log" >&2; fail "building $pgimage"; }
	say "built $pgimage in $(since $t) s"
fi

# --- the compose file ----------------------------------------------------------

# ports N: N loopback TCP ports, distinct, that nobody listens on now.
ports() {
	ss -Htln | awk '{ sub(/.*:/, "", $4); print $4 }' >"$work/used"
	od -An -tu2 -N4000 /dev/urandom | tr -s ' ' '\n' |
		awk -v n="$1" 'NR == FNR { used[$1] = 1; next }
			$1 >= 20000 && $1 < 60000 && !used[$1]++ { print; if (++k == n) exit }' "$work/used" -
}
set -- $(ports 3)
[ $# = 3 ] || fail "no free ports"
api=$1 ops=$2 wyoming=$3
sed -e "s|^  image: voxkit\$|  image: localhost/$image|" \
	-e "s|^    image: postgres:15\$|    image: localhost/$pgimage|" \
	-e "s|\"127.0.0.1:8080:8080\"|\"127.0.0.1:$api:8080\"|" \
	-e "s|\"127.0.0.1:9090:9090\"|\"127.0.0.1:$ops:9090\"|" \
	-e "s|\"127.0.0.1:10200:10200\"|\"127.0.0.1:$wyoming:10200\"|" \
	examples/deploy/compose.yaml >"$work/compose.yaml"
[ "$(diff examples/deploy/compose.yaml "$work/compose.yaml" | grep -c '^>')" = 5 ] ||
	fail "compose.yaml: the images or the gateway's ports are no longer where this script looks"

# --- PostgreSQL and the first steps ------------------------------------------

# healthy SERVICE: its container's HEALTHCHECK passes (podman runs none by
# itself without systemd, and podman-compose 1.0.3 does not wait for
# `condition: service_healthy`).
healthy() { podman healthcheck run ${p}_$1_1 >/dev/null 2>&1; }
# wait_healthy SERVICE...: each one healthy within 60 s.
wait_healthy() {
	for s; do
		tw=$(now)
		until healthy $s; do
			[ "$(podman inspect --format '{{.State.Running}}' ${p}_${s}_1 2>/dev/null)" = true ] || fail "$s is not running"
			[ "$(since $tw | cut -d. -f1)" -lt 60 ] || fail "$s not healthy after 60 s"
			sleep 0.2
		done
	done
}
t0=$(now)
compose up -d postgres >"$work/up.log" 2>&1 || { cat "$work/up.log" >&2; fail "podman-compose up -d postgres"; }
wait_healthy postgres
say "postgres healthy in $(since $t0) s"

# psql SQL: a query on the fleet's database, its rows unaligned.
psql() { podman exec -e PGPASSWORD=voxkit ${p}_postgres_1 psql -h 127.0.0.1 -U voxkit -d voxkit -tAc "$1"; }

# Upgrades: two replicas of the image opening the empty database at once
# migrate it once (the advisory lock): both succeed, each version once.
compose run --rm worker1 accounts list >"$work/m1" 2>&1 &
m1=$!
compose run --rm worker2 accounts list >"$work/m2" 2>&1 &
m2=$!
wait $m1 || { cat "$work/m1" >&2; fail "replica 1 opening the empty database"; }
wait $m2 || { cat "$work/m2" >&2; fail "replica 2 opening the empty database"; }
migrations=$(psql "SELECT count(*) || ' ' || count(DISTINCT version) || ' ' || max(version) FROM schema_migrations")
set -- $migrations
[ "${1:-0}" -gt 0 ] && [ "$1" = "$2" ] && [ "$1" = "$3" ] || fail "schema_migrations after two replicas: $migrations (rows, versions, last)"
say "two replicas migrated the empty database together: versions 1 to $3, each once"

# podman-compose run gives the container a tty: its lines end in \r.
compose run --rm worker1 init >"$work/init" 2>&1 || { cat "$work/init" >&2; fail "init"; }
admin=$(tr -d '\r' <"$work/init" | sed -n 's/^api key: *//p')
[ -n "$admin" ] || { cat "$work/init" >&2; fail "init printed no API key"; }
compose run --rm worker1 keys create --account gateway --create-account --scope gateway >"$work/key" 2>&1 ||
	{ cat "$work/key" >&2; fail "keys create"; }
export VOXKIT_UPSTREAM_KEY=$(tr -d '\r' <"$work/key" | grep -x 'sk_[A-Za-z0-9]*')
say "init: account local and its admin key; keys create: the gateway's speech key"

# --- workers and the gateway -------------------------------------------------

compose up -d postgres worker1 worker2 gateway >"$work/up.log" 2>&1 ||
	{ cat "$work/up.log" >&2; fail "podman-compose up -d"; }
wait_healthy worker1 worker2 gateway
# workers N: the gateway's metrics count N workers in rotation.
workers() {
	[ "$(curl -fsS "http://127.0.0.1:$ops/metrics" | awk '/^voxkit_upstream_healthy\{/ { n += $2 } END { print n + 0 }')" = "$1" ]
}
t=$(now)
until workers 2; do
	[ "$(since $t | cut -d. -f1)" -lt 30 ] || fail "the gateway does not have both workers in rotation"
	sleep 0.2
done
curl -fsS -o /dev/null "http://127.0.0.1:$api/readyz" || fail "the gateway's /readyz on 127.0.0.1:$api"
say "fleet up in $(since $t0) s: the gateway on 127.0.0.1:$api (metrics :$ops), both workers in rotation"

# --- load, with a worker killed and started again ------------------------------

go build -o "$work/loadtest" ./examples/loadtest || fail "go build ./examples/loadtest"
"$work/loadtest" -url http://127.0.0.1:$api -key "$admin" -c $clients -d ${seconds}s >"$work/load" 2>&1 &
load=$!
sleep $kill_at
podman kill ${p}_worker1_1 >/dev/null || fail "podman kill worker1"
say "killed worker1 (SIGKILL) $kill_at s in"
gone=no
t=$(now)
while [ "$(since $t | cut -d. -f1)" -lt $down ]; do
	workers 1 && gone=yes
	sleep 0.2
done
[ "$(podman inspect --format '{{.State.Running}}' ${p}_worker1_1)" = false ] ||
	fail "worker1 was running again before podman start (its restart policy)"
restarted_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
t=$(now)
podman start ${p}_worker1_1 >/dev/null 2>"$work/start.err" || { cat "$work/start.err" >&2; fail "podman start worker1"; }
wait_healthy worker1
say "started worker1 again $down s later: healthy $(since $t) s after podman start"
back=no
until [ $back = yes ] || ! kill -0 $load 2>/dev/null; do
	workers 2 && back=yes || sleep 0.2
done
wait $load || { cat "$work/load" >&2; fail "loadtest"; }
cat "$work/load"

# --- an older replica: a database a newer version migrated ------------------

# The fleet's schema one version ahead (as a newer release would leave it):
# a replica of this image stays up, alive and not ready, and stops cleanly.
psql "INSERT INTO schema_migrations(version) SELECT max(version) + 1 FROM schema_migrations" >/dev/null ||
	fail "advancing the schema"
set -- $(ports 1)
podman run -d --name ${p}_older --runtime runc $limits --read-only --network ${p}_default -p 127.0.0.1:$1:8080 \
	-e VOXKIT_STORE='postgres://voxkit:voxkit@postgres:5432/voxkit?sslmode=disable' $image >/dev/null || fail "podman run the older replica"
t=$(now)
until code=$(curl -s -o "$work/older" -w '%{http_code}' "http://127.0.0.1:$1/readyz") && [ "$code" != 000 ]; do
	[ "$(since $t | cut -d. -f1)" -lt 30 ] || fail "the older replica does not answer"
	sleep 0.2
done
[ "$code" = 503 ] && grep -q schema_too_new "$work/older" || fail "the older replica's /readyz: $code $(cat "$work/older")"
curl -fsS -o /dev/null "http://127.0.0.1:$1/healthz" || fail "the older replica's /healthz"
podman stop -t 10 ${p}_older >/dev/null
[ "$(podman inspect --format '{{.State.ExitCode}}' ${p}_older)" = 0 ] || fail "the older replica's exit status"
podman logs ${p}_older 2>&1 | grep -q 'not serving: the store cannot be used by this version' || fail "the older replica's log says nothing"
podman rm ${p}_older >/dev/null
psql "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)" >/dev/null
say "an older replica on a newer schema: /healthz 200, /readyz 503 schema_too_new, exit 0 on SIGTERM"

# --- verdict -----------------------------------------------------------------

grep -q '^requests: [1-9]' "$work/load" || fail "no request succeeded"
# The requests worker1 had taken when it was killed fail, each a 502
# proxy_error or a stream cut short (transport): the gateway does not send
# a request a worker took to another (docs/server.md, "Gateway and
# workers"). Each client has one request in flight: at most one each.
errs=$(sed -n 's/^errors: //p' "$work/load")
if [ "$errs" != none ]; then
	other=$(echo "$errs" | sed 's/502 proxy_error×[0-9]*//; s/transport×[0-9]*//; s/ //g')
	[ -z "$other" ] || fail "failed requests other than those worker1 had taken: $errs"
	failed=$(echo "$errs" | grep -o '×[0-9]*' | tr -d '×' | awk '{ n += $1 } END { print n + 0 }')
	[ "$failed" -le "$clients" ] || fail "$failed requests failed, more than the $clients worker1 can have taken: $errs"
	say "requests failed with worker1 (taken when it was killed): $errs"
fi
[ $gone = yes ] || fail "the gateway never took worker1 out of rotation"
[ $back = yes ] || fail "the gateway did not take worker1 back before the load ended"
# The restarted worker1 served speech again (its log since the restart).
podman logs --since "$restarted_at" ${p}_worker1_1 2>&1 | grep '"msg":"request"' |
	grep -q '"path":"/v1/audio/speech","status":200' || fail "worker1 served no speech after its restart"
podman logs ${p}_gateway_1 >"$work/gateway.log" 2>&1
retries=$(grep -c 'retrying on another worker' "$work/gateway.log" || true)
taken=$(grep -c 'failed a piece it had taken' "$work/gateway.log" || true)
# Why the gateway retried (by worker), and its slowest requests.
grep 'retrying on another worker' "$work/gateway.log" |
	sed 's/.*"worker":"\([^"]*\)".*"err":"\(.*\)"}$/\1: \2/; s/\\"/"/g' | cut -c1-160 | sort | uniq -c | sort -rn | head -5
grep '"msg":"request"' "$work/gateway.log" | grep '"path":"/v1/audio/speech"' |
	sed 's/.*"ms":"\([0-9.]*\)".*/\1/' | sort -rn | head -3 | tr '\n' ' ' | sed 's/^/gateway: slowest requests (ms): /; s/ $/\n/'
echo "fleet: worker1 killed $kill_at s in, started $down s later, served again; gateway retries on another worker: $retries, pieces failed on the worker that had them: $taken; $(since $t_all) s in all"
