#!/usr/bin/env bash
# A cluster on loopback, to watch: a PostgreSQL of its own (initdb + pg_ctl as
# the postgres user into a temporary folder, never the system's cluster), the
# APNs simulator, three `rangers serve` nodes and nginx round-robin in front.
# It plays a few parties' adventures through nginx, kills the busiest node with
# SIGKILL mid-adventure, prints the adventures moving and finishing, and stops
# everything it started, also when interrupted. Meanwhile it follows the live page
# of one of the killed node's adventures through nginx, as a browser would
# (reconnecting with the last event id it saw), and checks that the page got each
# push once and in order.
#
#   bash scripts/cluster.sh [parties=6] [lease seconds=3]
set -euo pipefail
cd "$(dirname "$0")/.."
parties=${1:-6}
lease=${2:-3}

for tool in nginx python3; do
    command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] ||
        { echo "cluster.sh: $tool is missing (apt-get install $tool)" >&2; exit 2; }
done
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x "$pgbin/initdb" ]] || { echo "cluster.sh: PostgreSQL is missing (apt-get install postgresql)" >&2; exit 2; }
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

swift build --product rangers >/dev/null 2>&1
rangers="$(swift build --show-bin-path)/rangers"

folder=$(mktemp -d /tmp/rangers-cluster.XXXXXX)
pids=()
cleanup() {
    trap - EXIT INT TERM
    echo "== stopping everything this script started"
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    as_postgres "$pgbin/pg_ctl" -D "$folder/pg" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$folder"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== PostgreSQL"
password=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$password" > "$folder/pgpass"
[[ $(id -u) == 0 ]] && chown -R postgres:postgres "$folder"
pgport=$(free_port)
as_postgres "$pgbin/initdb" -D "$folder/pg" -U postgres --auth=scram-sha-256 --pwfile="$folder/pgpass" >/dev/null
as_postgres "$pgbin/pg_ctl" -D "$folder/pg" -l "$folder/pg.log" -w \
    -o "-p $pgport -k $folder -c listen_addresses=127.0.0.1" start >/dev/null
[[ $(id -u) == 0 ]] && chmod 777 "$folder"
psql() { PGPASSWORD=$password as_postgres "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -qAt "$@"; }
psql -c "CREATE DATABASE rangers" postgres
export RANGERS_DATABASE_URL="postgres://postgres:$password@127.0.0.1:$pgport/rangers?sslmode=disable"
export RANGERS_GAME_MASTER_KEY=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
# Every player here signs up from this machine's one address: no limit on that.
export RANGERS_SIGNUPS_PER_MINUTE=100000 RANGERS_FAILED_AUTH_PER_MINUTE=100000
# The same on every node: a live-page link from one opens the page on any.
export RANGERS_LIVE_LINK_SECRET=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')

echo "== APNs simulator"
simport=$(free_port)
"$rangers" apns-sim --port "$simport" --management-port "$(free_port)" --key-dir "$folder/apns" > "$folder/apns.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "key id:" "$folder/apns.log" 2>/dev/null && break; sleep 0.1; done
keyid=$(sed -n 's/.*key id: \([^ ]*\).*/\1/p' "$folder/apns.log")
teamid=$(sed -n 's/.*team id: \([^ ]*\).*/\1/p' "$folder/apns.log")

echo "== three nodes (lease $lease s)"
nodeports=()
for n in 1 2 3; do
    port=$(free_port)
    nodeports+=("$port")
    "$rangers" serve --port "$port" --node-id "node-$n" --lease-seconds "$lease" --apns apple \
        --apns-url "https://127.0.0.1:$simport" --ca-file "$folder/apns/tls/cert.pem" \
        --key-file "$folder/apns/AuthKey_$keyid.p8" --key-id "$keyid" --team-id "$teamid" > "$folder/node-$n.log" 2>&1 &
    pids+=($!)
    nodepids[$n]=$!
done

echo "== nginx"
lbport=$(free_port)
cat > "$folder/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $folder/nginx.pid;
error_log $folder/nginx-error.log;
events { worker_connections 512; }
http {
    access_log off;
    client_body_temp_path $folder/nginx-body;
    proxy_temp_path $folder/nginx-proxy;
    upstream nodes { $(for p in "${nodeports[@]}"; do printf 'server 127.0.0.1:%s max_fails=0; ' "$p"; done) }
    server {
        listen 127.0.0.1:$lbport;
        # The client's Host goes on, so the live-page links the nodes hand out name nginx. A node
        # that is not ready answers 503 (its /readyz says why): a read goes to the next node
        # instead (nginx without the commercial active checks learns it from the answers).
        location / { proxy_pass http://nodes; proxy_set_header Host \$http_host; proxy_next_upstream error timeout http_503; proxy_connect_timeout 1s; }
    }
}
EOF
nginx=$(command -v nginx || echo /usr/sbin/nginx)
"$nginx" -p "$folder" -c "$folder/nginx.conf" -e "$folder/nginx-error.log" &
pids+=($!)
# Each node ready (its database answers, its heartbeat is current, APNs answers), then nginx.
for port in "${nodeports[@]}"; do
    for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
    curl -s "http://127.0.0.1:$port/readyz"; echo
done
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$lbport/readyz" >/dev/null 2>&1 && break; sleep 0.1; done

echo "== $parties parties start their adventures through nginx (http://127.0.0.1:$lbport)"
python3 - "$lbport" "$parties" <<'EOF'
import json, os, sys, urllib.request
base, parties = f"http://127.0.0.1:{sys.argv[1]}", int(sys.argv[2])
def call(method, path, body=None, key=None):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
    if key: request.add_header("Authorization", f"Bearer {key}")
    with urllib.request.urlopen(request) as answer: return json.loads(answer.read() or b"{}")
heroes = ["power-panda", "egghead", "spouty"]
for p in range(parties):
    keys = []
    for hero in heroes:
        key = call("POST", "/v1/players", {"name": f"{hero} {p}"})["apiKey"]
        call("PUT", "/v1/players/me/heroes", {"heroes": [hero]}, key)
        keys.append(key)
    party = call("POST", "/v1/parties", {"name": f"Party {p}", "hero": heroes[0]}, keys[0])
    for key, hero in zip(keys[1:], heroes[1:]):
        call("POST", "/v1/parties/join", {"inviteCode": party["inviteCode"], "hero": hero}, key)
    adventure = call("POST", "/v1/gm/adventures", {"partyID": party["id"], "route": "whispering-woods", "tickInterval": 1,
                                                     "timeLimit": 40, "seed": 7 + p}, os.environ["RANGERS_GAME_MASTER_KEY"])
    for index, (key, hero) in enumerate(zip(keys, heroes)):
        call("POST", f"/v1/adventures/{adventure['id']}/activities",
             {"activityID": f"a{p}-{index}", "pushToken": f"{p:02x}{index:02x}" + "ab" * 30, "hero": hero,
              "frequentPushesEnabled": index == 0, "locale": "en-US"}, key)
    print(f"  party {p}: adventure {adventure['id']}")
EOF

holders() { psql -c "SELECT left(id, 8) || ' ' || COALESCE(lease_holder, '-') || ' tick ' || last_tick FROM adventure WHERE status = 'running' ORDER BY id" rangers; }
sleep 6
echo "== who plays what"
holders
victim=$(psql -c "SELECT lease_holder FROM adventure WHERE status = 'running' AND lease_until > now() GROUP BY lease_holder ORDER BY count(*) DESC LIMIT 1" rangers)
watched=$(psql -c "SELECT id FROM adventure WHERE status = 'running' AND lease_holder = '$victim' ORDER BY id LIMIT 1" rangers)
echo "== the live page of adventure ${watched:0:8} (played by $victim), through nginx"
python3 - "http://127.0.0.1:$lbport" "$watched" "$RANGERS_GAME_MASTER_KEY" $((lease + 12)) <<'EOF' &
import json, sys, time, urllib.request
base, adventure, key, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
request = urllib.request.Request(f"{base}/v1/adventures/{adventure}/live-links", method="POST",
                                 headers={"Authorization": f"Bearer {key}"})
link = json.loads(urllib.request.urlopen(request).read())
print(f"  open it in a browser: {link['url']}", flush=True)
stream = base + link["path"].replace("?token", "/events?token")
seen, last, start, connections = [], "", time.time(), 0
while time.time() - start < seconds:
    connections += 1
    try:
        headers = {"Last-Event-ID": last} if last else {}
        with urllib.request.urlopen(urllib.request.Request(stream, headers=headers), timeout=5) as answer:
            event, id = None, None
            while time.time() - start < seconds:
                line = answer.readline().decode()
                if not line:
                    break
                line = line.rstrip("\n")
                if line.startswith("id: "):
                    id = line[4:]
                elif line.startswith("event: "):
                    event = line[7:]
                elif line == "":
                    if id:
                        last = id
                    if event == "push":
                        seen.append(tuple(int(part) for part in id.split(":")[1].split(".")))
                    event, id = None, None
    except Exception as error:
        print(f"  the page's stream, connection {connections}, ended: {error}; reconnecting from event {last}", flush=True)
        time.sleep(1)
ok = seen == sorted(seen) and len(set(seen)) == len(seen) and len(seen) > 0
print(f"  the page's stream through nginx: {len(seen)} pushes over {connections} connection(s), "
      f"each once and in order: {'yes' if ok else 'NO'}", flush=True)
sys.exit(0 if ok else 1)
EOF
watcher=$!
pids+=("$watcher")
sleep 2
echo "== kill -9 $victim (its leases run out after $lease s; the others take its adventures)"
kill -KILL "${nodepids[${victim#node-}]}"
killed_at=$(psql -c "SELECT extract(epoch FROM now())" rangers)
sleep $((lease + 3))
holders
wait "$watcher" || { echo "cluster.sh: the live page's stream through nginx missed or repeated pushes" >&2; exit 1; }
while [[ $(psql -c "SELECT count(*) FROM adventure WHERE status = 'running'" rangers) != 0 ]]; do sleep 2; done
echo "== every adventure has ended; who stored which ticks"
psql -c "SELECT left(adventure, 8) || ': ' || string_agg(node || ' ' || first || '-' || last, ', ' ORDER BY first)
         FROM (SELECT adventure, node, min(tick) AS first, max(tick) AS last FROM tick_log_with_ids GROUP BY adventure, node) runs
         GROUP BY adventure ORDER BY adventure" rangers
psql -c "SELECT 'taken over after ' || round(min(extract(epoch FROM t.stored_at) - $killed_at)::numeric, 1) || ' s at the earliest, '
         || round(max(extract(epoch FROM t.stored_at) - $killed_at)::numeric, 1) || ' s at the latest'
         FROM tick_log_with_ids t WHERE t.node <> '$victim' AND extract(epoch FROM t.stored_at) > $killed_at
         AND t.adventure IN (SELECT adventure FROM tick_log_with_ids WHERE node = '$victim')
         AND t.tick = (SELECT min(tick) FROM tick_log_with_ids u WHERE u.adventure = t.adventure AND extract(epoch FROM u.stored_at) > $killed_at)" rangers
sleep $((lease + 6))
# Unfinished pushes are in the outbox, finished ones in outbox_end, except those
# sent since v26, whose push log entries hold their claims.
psql -c "SELECT 'pushes: ' || string_agg(state || ' ' || n, ', ') FROM (SELECT state, count(*) AS n FROM (
             SELECT state FROM outbox UNION ALL SELECT state FROM outbox_end
             UNION ALL SELECT 'sent' FROM push_log l WHERE l.claims IS NOT NULL AND NOT EXISTS (SELECT 1 FROM outbox_end e WHERE e.id = l.outbox)
         ) pushes GROUP BY state) s" rangers
