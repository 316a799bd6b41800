#!/usr/bin/env bash
# The database fails over under a playing cluster, on loopback: etcd (one member),
# two PostgreSQL 15 servers managed by Patroni (a leader and a synchronous standby),
# HAProxy in front of them sending the one database URL to whichever is the
# primary (Patroni's REST API answers GET /primary with 200 on the leader only),
# and two `rangers serve` nodes on that URL. It plays a few parties' adventures
# through both nodes, kill -9s the primary's postmaster mid-adventure, prints the
# timeline (the kill, the standby promoted, the first write the API acknowledges
# again, the first tick stored on the new primary, each adventure's end), checks
# the outcome and stops everything it started, also when interrupted.
#
# Exit 0 only when all of these held: both nodes ran from start to end without a
# restart; every adventure ended with ticks 1..last stored once each and `rangers
# replay` says identical (its event log is its uninterrupted run's); every tick
# stored before the kill and every player the API acknowledged creating, before,
# during or after the failover, is still there; the standby was promoted and the
# nodes stored ticks on it. Exit 1 when one did not, 3 when it cannot run (a tool
# is missing: bash scripts/install-system-packages.sh installs them).
#
#   bash scripts/ha-database.sh [--rangers PATH] [--parties N] [--time-limit TICKS]
#                               [--kill-at-tick N] [--lease SECONDS] [--keep]
#
# Without --rangers (or RANGERS_BIN), it builds `rangers` (swift build, debug).
# Everything runs in a temporary folder; --keep leaves it (with every log) behind.
# The logs are kept, and their folder named, when a check fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

rangers=${RANGERS_BIN:-}
parties=4
time_limit=30
kill_at_tick=6
lease=3
keep=false
usage() { sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --rangers) rangers=$2; shift 2 ;;
        --parties) parties=$2; shift 2 ;;
        --time-limit) time_limit=$2; shift 2 ;;
        --kill-at-tick) kill_at_tick=$2; shift 2 ;;
        --lease) lease=$2; shift 2 ;;
        --keep) keep=true; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "ha-database: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

cannot_run() { echo "ha-database: cannot run: $* (bash scripts/install-system-packages.sh)" >&2; exit 3; }
pgbin=/usr/lib/postgresql/15/bin
[[ -x $pgbin/initdb ]] || pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -n $pgbin && -x $pgbin/initdb ]] || cannot_run "PostgreSQL is not installed"
command -v patroni >/dev/null || cannot_run "patroni is not installed"
command -v etcd >/dev/null || cannot_run "etcd is not installed (package etcd-server)"
haproxy=$(command -v haproxy || echo /usr/sbin/haproxy)
[[ -x $haproxy ]] || cannot_run "haproxy is not installed"
for tool in python3 curl; do command -v "$tool" >/dev/null || cannot_run "$tool is not installed"; done
id postgres >/dev/null 2>&1 || cannot_run "there is no postgres user"
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }
step() { echo "== [$SECONDS s] $*"; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

if [[ -z $rangers ]]; then
    step "building rangers"
    swift build --product rangers >/dev/null 2>&1 || { echo "ha-database: swift build failed" >&2; exit 1; }
    rangers="$(swift build --show-bin-path)/rangers"
fi
[[ -x $rangers ]] || cannot_run "no rangers binary at $rangers"

folder=$(mktemp -d "${TMPDIR:-/tmp}/rangers-ha.XXXXXX")
chmod 755 "$folder"
# What this script started, stopped in this order: each group at once.
prober_pids=() node_pids=() haproxy_pids=() patroni_pids=() etcd_pids=()
failed=()
fail() { failed+=("$*"); echo "  FAILED: $*"; }
# A process that exited stays a zombie until waited for; it no longer counts.
alive() { local state; state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $state != Z* ]]; }
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    set +e
    step "stopping everything this script started"
    local stopping=$SECONDS
    # The nodes give their leases up while the database is still there; Patroni
    # stops PostgreSQL while etcd runs. SIGTERM, then SIGKILL after 15 s.
    stop() {
        local what=$1 began=$SECONDS pid
        shift
        (($#)) || return 0
        for pid in "$@"; do kill -TERM "$pid" 2>/dev/null; done
        for pid in "$@"; do
            for _ in $(seq 150); do alive "$pid" || break; sleep 0.1; done
            if alive "$pid"; then
                kill -KILL "$pid" 2>/dev/null
                echo "  $what: $pid did not stop within 15 s of SIGTERM: killed"
                killed+=("$pid")
            fi
            wait "$pid" 2>/dev/null
        done
        echo "  $what stopped in $((SECONDS - began)) s"
    }
    local killed=() n
    stop probers "${prober_pids[@]}"
    for n in 1 2; do [[ -f $folder/node-$n.log ]] && wc -l < "$folder/node-$n.log" > "$folder/node-$n.lines-at-stop"; done
    stop "the nodes" "${node_pids[@]}"
    for n in 1 2; do
        if [[ -n ${node_pid[$n]:-} && " ${killed[*]} " == *" ${node_pid[$n]} "* ]]; then
            echo "  what node-$n logged after SIGTERM:"
            tail -n +$(( $(cat "$folder/node-$n.lines-at-stop") + 1 )) "$folder/node-$n.log" | tail -15 | cut -c1-300 | sed 's/^/    /'
        fi
    done
    stop HAProxy "${haproxy_pids[@]}"
    stop Patroni "${patroni_pids[@]}"
    stop etcd "${etcd_pids[@]}"
    # Patroni stops its PostgreSQL when it stops; a postmaster it left behind goes too.
    for data in "$folder"/pg1/data "$folder"/pg2/data; do
        [[ -f $data/postmaster.pid ]] && as_postgres "$pgbin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
    done
    if [[ $keep == true || ( $status != 0 && $status != 3 && $status != 130 ) ]]; then
        rm -rf "$folder"/pg1/data "$folder"/pg2/data "$folder"/etcd
        echo "ha-database: logs kept in $folder"
    else
        rm -rf "$folder"
    fi
    echo "  stopped in $((SECONDS - stopping)) s"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
timeline() { echo "$1 $2" >> "$folder/timeline"; }

step "etcd (one member)"
etcd_port=$(free_port); etcd_peer=$(free_port)
etcd --name ha-etcd --data-dir "$folder/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "ha-etcd=http://127.0.0.1:$etcd_peer" --initial-cluster-state new \
    > "$folder/etcd.log" 2>&1 &
etcd_pids+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$etcd_port/health" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$etcd_port/health" >/dev/null || { tail -20 "$folder/etcd.log"; echo "ha-database: etcd did not start" >&2; exit 1; }

secret() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
superuser_password=$(secret); replication_password=$(secret); rewind_password=$(secret)
# The nodes' database connections stay open across the failover: HAProxy's health
# check runs every 300 ms; a server marked down has its sessions cut at once.
declare -A pg_port rest_port
for member in pg1 pg2; do
    pg_port[$member]=$(free_port); rest_port[$member]=$(free_port)
    mkdir -p "$folder/$member"
    cat > "$folder/$member/patroni.yml" <<EOF
scope: rangers-ha
name: $member
log:
  level: INFO
  format: '%(asctime)s %(levelname)s: %(message)s'
restapi:
  listen: 127.0.0.1:${rest_port[$member]}
  connect_address: 127.0.0.1:${rest_port[$member]}
etcd3:
  hosts: 127.0.0.1:$etcd_port
bootstrap:
  dcs:
    # Patroni's rule: loop_wait + 2 × retry_timeout ≤ ttl.
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    # A crashed primary is failed over at once rather than restarted in place
    # (Patroni's default waits 300 s for it to come back).
    primary_start_timeout: 0
    # Each commit waits for the standby, so promoting it loses nothing committed.
    # Not strict: with the other member down the primary goes on alone rather
    # than stopping every write until it is back.
    synchronous_mode: true
    synchronous_mode_strict: false
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 100
  initdb:
    - encoding: UTF8
    - auth-host: scram-sha-256
    - auth-local: scram-sha-256
postgresql:
  listen: 127.0.0.1:${pg_port[$member]}
  connect_address: 127.0.0.1:${pg_port[$member]}
  data_dir: $folder/$member/data
  bin_dir: $pgbin
  pgpass: $folder/$member/pgpass
  authentication:
    superuser: { username: postgres, password: '$superuser_password' }
    replication: { username: replicator, password: '$replication_password' }
    rewind: { username: rewinder, password: '$rewind_password' }
  parameters:
    unix_socket_directories: '$folder/$member'
  pg_hba:
    - local all all scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
    - host replication replicator 127.0.0.1/32 scram-sha-256
EOF
done
[[ $(id -u) == 0 ]] && chown -R postgres:postgres "$folder/pg1" "$folder/pg2"
chmod 700 "$folder/pg1" "$folder/pg2"

rest() { curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:${rest_port[$1]}/$2" 2>/dev/null || true; }
wait_rest() { # member path seconds
    local deadline=$((SECONDS + $3))
    while ((SECONDS < deadline)); do [[ $(rest "$1" "$2") == 200 ]] && return 0; sleep 0.2; done
    return 1
}
start_patroni() {
    # setpriv runs patroni itself (no process in between), so the pid stopped at the end is Patroni's.
    if [[ $(id -u) == 0 ]]; then
        HOME="$folder/$1" setpriv --reuid=postgres --regid=postgres --init-groups patroni "$folder/$1/patroni.yml" > "$folder/$1.log" 2>&1 &
    else
        patroni "$folder/$1/patroni.yml" > "$folder/$1.log" 2>&1 &
    fi
    patroni_pids+=($!)
}
step "Patroni: pg1 (port ${pg_port[pg1]}, REST ${rest_port[pg1]}) and pg2 (port ${pg_port[pg2]}, REST ${rest_port[pg2]})"
start_patroni pg1
start_patroni pg2
first=""
for _ in $(seq 600); do
    for member in pg1 pg2; do [[ $(rest "$member" primary) == 200 ]] && first=$member; done
    [[ -n $first ]] && break
    sleep 0.2
done
[[ -n $first ]] || { tail -20 "$folder/pg1.log" "$folder/pg2.log"; echo "ha-database: no member became the primary" >&2; exit 1; }
second=$([[ $first == pg1 ]] && echo pg2 || echo pg1)
echo "  $first bootstrapped the primary; $second makes itself a copy of it"
wait_rest "$second" sync 120 ||
    { tail -30 "$folder/$second.log"; echo "ha-database: $second did not become the synchronous standby" >&2; exit 1; }
echo "  $second is the synchronous standby"

step "HAProxy: one URL, to whichever answers GET /primary with 200 and is out of recovery"
db_port=$(free_port)
cat > "$folder/haproxy.cfg" <<EOF
global
    maxconn 256
    pidfile $folder/haproxy.pid
defaults
    mode tcp
    timeout connect 1s
    timeout client 30m
    timeout server 30m
    timeout check 1s
listen primary
    bind 127.0.0.1:$db_port
    # 200 from GET /primary: this member's Patroni holds the leader key. It does so
    # from the moment it takes the key, while PostgreSQL is still being promoted; the
    # role in the answer is PostgreSQL's own (pg_is_in_recovery), so both must hold.
    option httpchk
    http-check send meth GET uri /primary
    http-check expect status 200
    http-check expect rstring '"role": "(master|primary)"'
    default-server inter 300ms fastinter 300ms downinter 300ms fall 2 rise 1 on-marked-down shutdown-sessions
    server pg1 127.0.0.1:${pg_port[pg1]} check port ${rest_port[pg1]}
    server pg2 127.0.0.1:${pg_port[pg2]} check port ${rest_port[pg2]}
EOF
"$haproxy" -db -f "$folder/haproxy.cfg" > "$folder/haproxy.log" 2>&1 &
haproxy_pids+=($!)
psql() { PGPASSWORD=$superuser_password PGCONNECT_TIMEOUT=2 "$pgbin/psql" -h 127.0.0.1 -p "$db_port" -U postgres -qAt "$@"; }
# HAProxy counts every server up until its checks say otherwise (2.6 has no initial
# state), so for its first half second a connection may reach the standby: wait
# until four connections in a row (round robin: both servers, were both up) reach
# the primary.
in_a_row=0
for _ in $(seq 150); do
    if [[ $(psql -c "SELECT pg_is_in_recovery()" postgres 2>/dev/null) == f ]]; then
        in_a_row=$((in_a_row + 1)); ((in_a_row >= 4)) && break
    else
        in_a_row=0; sleep 0.2
    fi
done
psql -c "CREATE DATABASE rangers" postgres
echo "  primary through HAProxy: $(psql -c "SELECT inet_server_port() || ', synchronous_standby_names ' || current_setting('synchronous_standby_names')" postgres)"

export RANGERS_DATABASE_URL="postgres://postgres:$superuser_password@127.0.0.1:$db_port/rangers?sslmode=disable"
export RANGERS_GAME_MASTER_KEY=$(secret)$(secret)
# Every player here signs up from this machine's one address: no limit on that.
export RANGERS_SIGNUPS_PER_MINUTE=100000 RANGERS_FAILED_AUTH_PER_MINUTE=100000

step "two nodes on that URL (lease $lease s, pushes to the built-in APNs simulator)"
declare -A node_pid node_port
for n in 1 2; do
    node_port[$n]=$(free_port)
    "$rangers" serve --port "${node_port[$n]}" --node-id "node-$n" --lease-seconds "$lease" --apns simulator \
        > "$folder/node-$n.log" 2>&1 &
    node_pid[$n]=$!
    node_pids+=($!)
done
for n in 1 2; do
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:${node_port[$n]}/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    curl -sf "http://127.0.0.1:${node_port[$n]}/healthz" >/dev/null ||
        { tail -30 "$folder/node-$n.log"; echo "ha-database: node-$n did not start" >&2; exit 1; }
    echo "  node-$n: $(curl -s "http://127.0.0.1:${node_port[$n]}/healthz")"
done

step "$parties parties start their adventures, through both nodes (1 tick/s, time limit $time_limit)"
python3 - "${node_port[1]}" "${node_port[2]}" "$parties" "$time_limit" > "$folder/adventures" <<'EOF'
import json, os, sys, urllib.request
ports, parties, limit = sys.argv[1:3], int(sys.argv[3]), int(sys.argv[4])
def call(port, method, path, body=None, key=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
    if key: request.add_header("Authorization", f"Bearer {key}")
    with urllib.request.urlopen(request, timeout=10) as answer: return json.loads(answer.read() or b"{}")
heroes = ["power-panda", "egghead", "spouty"]
for p in range(parties):
    port = ports[p % 2]
    keys = []
    for hero in heroes:
        key = call(port, "POST", "/v1/players", {"name": f"{hero} {p}"})["apiKey"]
        call(port, "PUT", "/v1/players/me/heroes", {"heroes": [hero]}, key)
        keys.append(key)
    party = call(port, "POST", "/v1/parties", {"name": f"Party {p}", "hero": heroes[0]}, keys[0])
    for key, hero in zip(keys[1:], heroes[1:]):
        call(port, "POST", "/v1/parties/join", {"inviteCode": party["inviteCode"], "hero": hero}, key)
    adventure = call(port, "POST", "/v1/gm/adventures", {"partyID": party["id"], "route": "whispering-woods", "tickInterval": 1,
                                                          "timeLimit": limit, "seed": 40 + p}, os.environ["RANGERS_GAME_MASTER_KEY"])
    for index, (key, hero) in enumerate(zip(keys, heroes)):
        call(port, "POST", f"/v1/adventures/{adventure['id']}/activities",
             {"activityID": f"ha{p}-{index}", "pushToken": f"{p:02x}{index:02x}" + "cd" * 30, "hero": hero,
              "frequentPushesEnabled": index == 0, "locale": "en-US"}, key)
    print(adventure["id"], flush=True)
EOF
mapfile -t adventures < "$folder/adventures"
for id in "${adventures[@]}"; do echo "  adventure $id"; done
timeline "$(now)" "adventures started"

# Every 200 ms, a write through one node then the other (a new player), each on
# its own thread (one that hangs holds up none after it), each attempt logged:
# when it was sent, answered, and with what.
python3 - "${node_port[1]}" "${node_port[2]}" "$folder/stop-prober" > "$folder/prober.jsonl" <<'EOF' &
import json, os, sys, threading, time, urllib.error, urllib.request
ports, stop = sys.argv[1:3], sys.argv[3]
lock = threading.Lock()
def probe(n):
    port = ports[n % 2]
    sent = time.time()
    record = {"n": n, "node": n % 2 + 1, "sent": sent}
    try:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/players", method="POST",
                                         data=json.dumps({"name": f"probe {n}"}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            record.update(status=answer.status, id=json.loads(answer.read())["player"]["id"])
    except urllib.error.HTTPError as error:
        record.update(status=error.code, body=error.read()[:200].decode(errors="replace"),
                      retryAfter=error.headers.get("Retry-After"))
    except Exception as error:
        record.update(status=0, error=str(error)[:200])
    record["answered"] = time.time()
    with lock:
        print(json.dumps(record), flush=True)
threads, n = [], 0
while not os.path.exists(stop):
    threads.append(threading.Thread(target=probe, args=(n,)))
    threads[-1].start()
    n += 1
    time.sleep(0.2)
for thread in threads:
    thread.join()
EOF
prober_pid=$!
prober_pids+=("$prober_pid")

step "waiting until every adventure has stored tick $kill_at_tick"
ids_sql=$(printf "'%s'," "${adventures[@]}"); ids_sql=${ids_sql%,}
deadline=$((SECONDS + kill_at_tick * 3 + 60))
until [[ $(psql -c "SELECT count(*) FROM adventure WHERE id IN ($ids_sql) AND last_tick >= $kill_at_tick" rangers 2>/dev/null) == "$parties" ]]; do
    ((SECONDS < deadline)) || { fail "the adventures did not reach tick $kill_at_tick"; exit 1; }
    sleep 0.2
done
running_at_kill=$(psql -c "SELECT count(*) FROM adventure WHERE id IN ($ids_sql) AND status = 'running'" rangers)
sync_names=$(psql -c "SHOW synchronous_standby_names" rangers)
psql -c "SELECT adventure || ' ' || tick || ' ' || node || ' ' || stored_at FROM tick_log_with_ids ORDER BY 1" rangers > "$folder/ticks-before-kill"
psql -c "SELECT id FROM player ORDER BY id" rangers > "$folder/players-before-kill"

primary=""
for member in pg1 pg2; do [[ $(rest "$member" primary) == 200 ]] && primary=$member; done
[[ -n $primary ]] || { fail "no member answers GET /primary before the kill"; exit 1; }
standby=$([[ $primary == pg1 ]] && echo pg2 || echo pg1)
[[ $(rest "$standby" sync) == 200 ]] || fail "$standby was not the synchronous standby at the kill"
postmaster=$(head -1 "$folder/$primary/data/postmaster.pid")
step "kill -9 the primary's postmaster: $primary, pid $postmaster ($running_at_kill of $parties adventures running," \
    "$(wc -l < "$folder/ticks-before-kill") ticks stored, synchronous_standby_names $sync_names)"
for n in 1 2; do wc -l < "$folder/node-$n.log" > "$folder/node-$n.lines-at-kill"; done
# Each node's GET /readyz every 200 ms from now on (a server without it answers 404).
python3 - "${node_port[1]}" "${node_port[2]}" "$folder/stop-prober" > "$folder/readiness.jsonl" <<'EOF' &
import json, os, sys, threading, time, urllib.error, urllib.request
ports, stop = sys.argv[1:3], sys.argv[3]
lock = threading.Lock()
def poll(node, port):
    while not os.path.exists(stop):
        sent = time.time()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=5) as answer:
                status, body = answer.status, ""
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read()[:300].decode(errors="replace")
        except Exception as error:
            status, body = 0, str(error)[:200]
        with lock:
            print(json.dumps({"node": node, "sent": sent, "answered": time.time(), "status": status, "body": body}), flush=True)
        time.sleep(max(0, 0.2 - (time.time() - sent)))
threads = [threading.Thread(target=poll, args=(n + 1, port)) for n, port in enumerate(ports)]
for thread in threads: thread.start()
for thread in threads: thread.join()
EOF
readiness_pid=$!
prober_pids+=("$readiness_pid")
sleep 0.3
kill -KILL "$postmaster"
killed_at=$(now)
timeline "$killed_at" "kill -9 $primary's postmaster (pid $postmaster)"
((running_at_kill == parties)) || fail "only $running_at_kill of $parties adventures were running at the kill"

# Promotion: the standby's Patroni answers GET /primary with 200.
promoted_at=""
deadline=$((SECONDS + 60))
while ((SECONDS < deadline)); do
    if [[ $(rest "$standby" primary) == 200 ]]; then promoted_at=$(now); break; fi
    sleep 0.1
done
if [[ -n $promoted_at ]]; then
    timeline "$promoted_at" "$standby answers GET /primary: promoted"
else
    fail "$standby was not promoted within 60 s"
fi
# Reachable again through HAProxy, and not in recovery.
reachable_at=""
deadline=$((SECONDS + 60))
while ((SECONDS < deadline)); do
    if [[ $(PGCONNECT_TIMEOUT=1 psql -c "SELECT pg_is_in_recovery()" rangers 2>/dev/null) == f ]]; then reachable_at=$(now); break; fi
    sleep 0.1
done
[[ -n $reachable_at ]] && timeline "$reachable_at" "a new connection through HAProxy reaches a primary (port $(psql -c "SELECT inet_server_port()" rangers))"

step "waiting for every adventure to end"
deadline=$((SECONDS + time_limit * 2 + 90))
until [[ $(psql -c "SELECT count(*) FROM adventure WHERE id IN ($ids_sql) AND status <> 'running'" rangers 2>/dev/null) == "$parties" ]]; do
    ((SECONDS < deadline)) || { fail "not every adventure ended in time"; break; }
    sleep 1
done
# The old primary comes back as a standby of the new one (pg_rewind if it must).
rejoined_at=""
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)); do
    if [[ $(rest "$primary" replica) == 200 ]]; then rejoined_at=$(now); break; fi
    sleep 0.2
done
touch "$folder/stop-prober"
wait "$prober_pid" "$readiness_pid" 2>/dev/null || true

step "the outcome"
# 1. Both nodes up the whole time: the processes started at the beginning still run.
for n in 1 2; do
    if kill -0 "${node_pid[$n]}" 2>/dev/null && curl -sf "http://127.0.0.1:${node_port[$n]}/healthz" >/dev/null; then
        echo "  node-$n (pid ${node_pid[$n]}) ran throughout: $(curl -s "http://127.0.0.1:${node_port[$n]}/healthz")"
    else
        fail "node-$n (pid ${node_pid[$n]}) is no longer running or answering; the end of its log:"
        tail -20 "$folder/node-$n.log" | sed 's/^/    /'
    fi
done
# 2. Every adventure ended, its ticks 1..last each stored once (a tick's events are in its row).
# The query's answer is read into a variable first: a query that fails must fail
# the check, not leave a loop that reads nothing and so finds nothing wrong.
if ended=$(psql -F '|' -c "SELECT a.id, a.status, a.last_tick, count(t.tick), min(t.tick), max(t.tick)
                           FROM adventure a LEFT JOIN tick_log_with_ids t ON t.adventure = a.id
                           WHERE a.id IN ($ids_sql) GROUP BY a.id ORDER BY a.id" rangers 2>&1); then
    checked=0
    while IFS='|' read -r id status last count lo hi; do
        checked=$((checked + 1))
        echo "  ${id:0:8}: $status at tick $last, ticks stored $count ($lo..$hi)"
        [[ $status != running ]] || fail "${id:0:8} is still running"
        [[ $count == "$last" && $lo == 1 && $hi == "$last" ]] || fail "${id:0:8}: ticks not 1..$last once each"
    done <<< "$ended"
    ((checked == parties)) || fail "the ticks of $checked adventures were read, not $parties"
else
    fail "the stored ticks could not be read: $ended"
fi
echo "  who stored which ticks:"
psql -c "SELECT '    ' || left(adventure, 8) || ': ' || string_agg(node || ' ' || first || '-' || last, ', ' ORDER BY first)
         FROM (SELECT adventure, node, min(tick) AS first, max(tick) AS last FROM tick_log_with_ids
               WHERE adventure IN ($ids_sql) GROUP BY adventure, node) runs GROUP BY adventure ORDER BY adventure" rangers
# 3. Replay: each event log is the adventure's uninterrupted run.
for id in "${adventures[@]}"; do
    set +e
    verdict=$("$rangers" replay "$id" 2>&1)
    code=$?
    set -e
    echo "  replay ${id:0:8}: $(head -1 <<< "$verdict")"
    [[ $code == 0 && $verdict == identical:* ]] || fail "replay of $id exited $code: $verdict"
done
# 4. Nothing committed lost: every tick stored before the kill, as it was stored, and
# every player the API acknowledged creating (before, during and after the failover).
psql -c "SELECT adventure || ' ' || tick || ' ' || node || ' ' || stored_at FROM tick_log_with_ids ORDER BY 1" rangers > "$folder/ticks-after"
psql -c "SELECT id FROM player ORDER BY id" rangers > "$folder/players-after"
lost_ticks=$(comm -23 <(sort "$folder/ticks-before-kill") <(sort "$folder/ticks-after") | wc -l)
python3 - "$folder/prober.jsonl" > "$folder/players-acknowledged" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record.get("status") == 201: print(record["id"])
EOF
lost_players=$(comm -23 <(sort "$folder/players-acknowledged" "$folder/players-before-kill" | sort -u) <(sort "$folder/players-after") | wc -l)
echo "  ticks stored before the kill: $(wc -l < "$folder/ticks-before-kill"), missing or changed after it: $lost_ticks"
echo "  players the API acknowledged: $(wc -l < "$folder/players-acknowledged") (+ $(wc -l < "$folder/players-before-kill") before the kill), missing: $lost_players"
((lost_ticks == 0)) || fail "$lost_ticks ticks stored before the kill are missing or changed"
((lost_players == 0)) || fail "$lost_players players the API acknowledged are missing"

# 5. The figures.
first_tick=$(psql -F ' ' -c "SELECT extract(epoch FROM stored_at), left(adventure, 8), tick, node FROM tick_log_with_ids
                             WHERE extract(epoch FROM stored_at) > $killed_at ORDER BY stored_at LIMIT 1" rangers)
if [[ -n $first_tick ]]; then
    read -r first_tick_at first_tick_adventure first_tick_number first_tick_node <<< "$first_tick"
    timeline "$first_tick_at" "first tick stored on the new primary: ${first_tick_adventure} tick $first_tick_number by $first_tick_node"
else
    fail "no tick was stored after the kill"
fi
python3 - "$folder/prober.jsonl" "$killed_at" > "$folder/prober-summary" <<'EOF'
import json, sys
from collections import Counter
records = [json.loads(line) for line in open(sys.argv[1])]
killed = float(sys.argv[2])
after = [r for r in records if r["sent"] >= killed]
first_ok = next((r for r in after if r.get("status") == 201), None)
failures = [r for r in records if r.get("status") != 201]
outcomes = Counter((r["status"], r.get("retryAfter"), (r.get("error") or r.get("body") or "")[:90]) for r in failures)
print(f"FIRST_OK {first_ok['answered'] if first_ok else ''} {first_ok['node'] if first_ok else ''}")
print(f"WRITES {len(records)} {len(records) - len(failures)} {len(failures)}")
if failures:
    print(f"FAILED_SPAN {min(r['sent'] for r in failures) - killed:.2f} {max(r['answered'] for r in failures) - killed:.2f}")
for (status, retry, text), count in outcomes.most_common(8):
    print(f"OUTCOME {count} x status {status}{' Retry-After ' + retry if retry else ''}: {text}")
EOF
first_ok=$(awk '$1 == "FIRST_OK" { print $2 }' "$folder/prober-summary")
first_ok_node=$(awk '$1 == "FIRST_OK" { print $3 }' "$folder/prober-summary")
[[ -n $first_ok ]] && timeline "$first_ok" "first write the API acknowledges after the kill (node-$first_ok_node)"
[[ -n $first_ok ]] || fail "no write was acknowledged after the kill"
while read -r ended id status; do
    timeline "$ended" "${id:0:8} ends: $status"
done < <(psql -F ' ' -c "SELECT extract(epoch FROM max(t.stored_at)), a.id, a.status FROM adventure a JOIN tick_log_with_ids t ON t.adventure = a.id
                         WHERE a.id IN ($ids_sql) GROUP BY a.id, a.status" rangers)
[[ -n $rejoined_at ]] && timeline "$rejoined_at" "$primary is back, a standby of $standby"
# Each node's /readyz: when it first said otherwise than 200 after the kill, and 200 again.
python3 - "$folder/readiness.jsonl" "$killed_at" >> "$folder/timeline" <<'EOF'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
killed = float(sys.argv[2])
for node in (1, 2):
    mine = [r for r in records if r["node"] == node]
    if mine and all(r["status"] == 404 for r in mine):
        print(f"{killed + 0.001} node-{node} has no /readyz (404)")
        continue
    down = next((r for r in mine if r["sent"] >= killed and r["status"] != 200), None)
    if not down:
        print(f"{killed + 0.001} node-{node}'s /readyz said 200 throughout")
        continue
    back = next((r for r in mine if r["sent"] > down["sent"] and r["status"] == 200), None)
    print(f"{down['answered']} node-{node}'s /readyz: {down['status']} {' '.join(down['body'].split())[:160]}")
    if back:
        print(f"{back['answered']} node-{node}'s /readyz: 200 again")
EOF
[[ -n $rejoined_at ]] || echo "  ($primary did not come back as a standby within 30 s of the adventures' end: see $primary.log)"

step "timeline (seconds from the kill)"
sort -n "$folder/timeline" | while read -r at what; do printf '  %+8.2f  %s\n' "$(since "$killed_at" "$at")" "$what"; done

step "what the nodes did while the primary was gone"
read -r _ writes ok_writes failed_writes < <(grep '^WRITES' "$folder/prober-summary")
echo "  writes through the API every 200 ms: $writes sent, $ok_writes acknowledged, $failed_writes refused or failed"
grep '^FAILED_SPAN' "$folder/prober-summary" | awk '{ printf "  refused or failed from %+.2f s to %+.2f s\n", $2, $3 }' || true
grep '^OUTCOME' "$folder/prober-summary" | sed 's/^OUTCOME /    /' || true
for n in 1 2; do
    from=$(( $(cat "$folder/node-$n.lines-at-kill") + 1 ))
    echo "  node-$n logged after the kill ($(tail -n +"$from" "$folder/node-$n.log" | wc -l) lines; distinct ones, ids and numbers masked):"
    tail -n +"$from" "$folder/node-$n.log" |
        sed -E 's/^[0-9T:.+-]+Z? *//; s/[0-9a-f]{8}-[0-9a-f-]{27}/<id>/g; s/[0-9]+(\.[0-9]+)?/N/g' | cut -c1-220 |
        sort | uniq -c | sort -rn | head -12 | sed 's/^/    /'
done

step "figures"
kill_to_promotion=$([[ -n $promoted_at ]] && since "$killed_at" "$promoted_at" || echo "-")
kill_to_write=$([[ -n $first_ok ]] && since "$killed_at" "$first_ok" || echo "-")
kill_to_tick=$([[ -n ${first_tick_at:-} ]] && since "$killed_at" "$first_tick_at" || echo "-")
echo "  kill -> promotion seen: $kill_to_promotion s; kill -> first API write acknowledged: $kill_to_write s;" \
    "kill -> first tick stored on the new primary: $kill_to_tick s"
echo "FAILOVER promotion=$kill_to_promotion write=$kill_to_write tick=$kill_to_tick"

if ((${#failed[@]})); then
    echo "ha-database: ${#failed[@]} check(s) failed:" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
echo "ha-database: every check held"
