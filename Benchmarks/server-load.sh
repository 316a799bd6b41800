#!/usr/bin/env bash
# ServerLoadBench on both stores in one session, so their figures compare: for
# each number of adventures, first a SQLite file, then a PostgreSQL cluster of its
# own (initdb + pg_ctl as the postgres user into a temporary folder, on a free
# port; never the system's cluster), with the settings below (durable commits
# either way) and pg_stat_statements loaded to count statements.
# The APNs endpoint is `rangers apns-sim` in a process of its own, so the CPU
# figures are the server's alone; the endpoint's are printed beside them.
#
#   bash Benchmarks/server-load.sh ["adventures ..."=1500] [seconds=60] [tick interval=1]
#   STORES=sqlite bash Benchmarks/server-load.sh "1500 3000 5000"
#   FOLLOWERS=100 CHANNELS="on off" STORES=sqlite bash Benchmarks/server-load.sh 1500
# With FOLLOWERS, each adventure is followed by that many players, once on
# broadcast channels and once each with their own activity, per CHANNELS.
# With BYTES=1, after each run: where the window's write-ahead log went, per
# adventure-tick by table and index (Benchmarks/tick-bytes.py), and on
# PostgreSQL `pg_waldump --stats=record`, the statements by WAL bytes and the
# rows a tick writes by column.
# PostgreSQL runs with the recommended production settings, deploy/postgresql.conf
# (PGCONF=FILE for others, PGCONF=none for PostgreSQL's own defaults);
# INITDB_ARGS are passed to initdb (say "--locale=en_US.UTF-8").
# With SKIP_BUILD=1, the release binaries as they were last built.
# BENCH_ARGS are passed to every ServerLoadBench run (say "--in-flight 2048").
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${1:-1500}
seconds=${2:-60}
interval=${3:-1}
stores=${STORES:-sqlite postgres}
followers=${FOLLOWERS:-0}
channel_modes=${CHANNELS:-on}
bytes=${BYTES:-0}
read -r -a bench_args <<< "${BENCH_ARGS:-}"
pgconf=${PGCONF:-deploy/postgresql.conf}
read -r -a initdb_args <<< "${INITDB_ARGS:-}"
[[ $pgconf == none ]] && pgconf=""
[[ -z $pgconf || -r $pgconf ]] || { echo "server-load.sh: cannot read PGCONF $pgconf" >&2; exit 2; }

# SKIP_BUILD=1 measures the binaries as last built (the same build under other settings).
if [[ ${SKIP_BUILD:-0} != 1 ]]; then
    swift build -c release --product ServerLoadBench >/dev/null
    swift build -c release --product rangers >/dev/null
fi
bench=.build/release/ServerLoadBench
rangers=.build/release/rangers

pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x "$pgbin/initdb" ]] || { echo "server-load.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 2; }
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

folder=$(mktemp -d /tmp/rangers-bench-pg.XXXXXX)
password=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$password" > "$folder/password"
[[ $(id -u) == 0 ]] && chown -R postgres:postgres "$folder"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() { as_postgres "$pgbin/pg_ctl" -D "$folder/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$folder"; }
simulator_pid=""
stop_all() { [[ -n $simulator_pid ]] && kill "$simulator_pid" 2>/dev/null; wait 2>/dev/null; stop; }
trap stop_all EXIT
as_postgres "$pgbin/initdb" -D "$folder/data" -U postgres --auth=scram-sha-256 --pwfile="$folder/password" \
    --encoding=UTF8 "${initdb_args[@]}" >/dev/null
if [[ -n $pgconf ]]; then
    # A copy beside the cluster: the postgres user may not read this checkout.
    cp "$pgconf" "$folder/data/rangers.conf"
    [[ $(id -u) == 0 ]] && chown postgres:postgres "$folder/data/rangers.conf"
    echo "include 'rangers.conf'" >> "$folder/data/postgresql.conf"
fi
# pg_waldump reads the window's WAL after the run: keep it from being recycled.
[[ $bytes == 1 ]] && echo "wal_keep_size = 8GB" >> "$folder/data/postgresql.conf"
as_postgres "$pgbin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w \
    -o "-p $port -k $folder -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements" start >/dev/null
database="postgres://postgres:$password@127.0.0.1:$port"

# The APNs endpoint, in its own process; it answers like APNs and counts.
"$rangers" apns-sim --port 0 --management-port 0 --key-dir "$folder/apns-sim" >"$folder/apns-sim.txt" 2>&1 &
simulator_pid=$!
for _ in $(seq 100); do grep -q "key id:" "$folder/apns-sim.txt" 2>/dev/null && break; sleep 0.2; done
apns_url=$(sed -n 's/^APNs simulator listening on \([^ ]*\).*/\1/p' "$folder/apns-sim.txt")
management_url=$(sed -n 's/.*channel management on: //p' "$folder/apns-sim.txt")
ca_file=$(sed -n 's/.*CA file (its TLS certificate): //p' "$folder/apns-sim.txt")
key_file=$(sed -n 's/.*provider key (.p8, signs JWTs): //p' "$folder/apns-sim.txt")
key_id=$(sed -n 's/.*key id: \([^ ]*\) .*/\1/p' "$folder/apns-sim.txt")
team_id=$(sed -n 's/.*team id: \([^ ]*\).*/\1/p' "$folder/apns-sim.txt")
[[ -n $apns_url && -n $key_id ]] || { echo "server-load.sh: the APNs simulator did not start:" >&2; cat "$folder/apns-sim.txt" >&2; exit 1; }
apns=(--apns-url "$apns_url" --management-url "$management_url" --ca-file "$ca_file" --key-file "$key_file"
      --key-id "$key_id" --team-id "$team_id" --endpoint-pid "$simulator_pid")
echo "APNs simulator (own process) at $apns_url"

psql_as() { PGPASSWORD=$password as_postgres "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres "$@"; }
lsn() { printf '%X/%X' $(( $1 >> 32 )) $(( $1 & 0xFFFFFFFF )); }
# Where the bytes of the run just ended went (BYTES=1); $1: sqlite or the database's name.
report_bytes() {
    local dir=$1 db=$2
    if [[ $db == sqlite ]]; then python3 Benchmarks/tick-bytes.py sqlite "$dir"; rm -f "$dir"/load.sqlite*; return; fi
    local start end ticks
    read -r start end ticks < "$dir/window"
    psql_as -At -F ' ' -c "SELECT relfilenode, relname FROM pg_class WHERE relfilenode <> 0" "$db" > "$dir/relations"
    echo "pg_waldump --stats=record of the window ($ticks ticks):"
    as_postgres "$pgbin/pg_waldump" -p "$folder/data/pg_wal" -s "$(lsn "$start")" -e "$(lsn "$end")" --stats=record \
        | awk 'NR <= 2 || $2 + 0 > 0 || /^Total/'
    as_postgres "$pgbin/pg_waldump" -p "$folder/data/pg_wal" -s "$(lsn "$start")" -e "$(lsn "$end")" 2>/dev/null \
        | python3 Benchmarks/tick-bytes.py postgres "$dir"
    echo "statements of the window, per adventure-tick, by WAL bytes (pg_stat_statements):"
    psql_as -c "SELECT round(calls::numeric / $ticks, 3) AS calls, round(rows::numeric / $ticks, 2) AS rows,
        round(wal_bytes / $ticks) AS wal_bytes, round(wal_fpi::numeric / $ticks, 3) AS page_images,
        round((total_exec_time / $ticks)::numeric, 3) AS ms, left(regexp_replace(query, '\s+', ' ', 'g'), 70) AS statement
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$db')
        ORDER BY wal_bytes DESC, calls DESC LIMIT 20" "$db"
    # PostgreSQL's CPU goes to statements that write little too: the same, by time.
    echo "statements of the window, per adventure-tick, by time spent executing them (pg_stat_statements):"
    psql_as -c "SELECT round(calls::numeric / $ticks, 3) AS calls, round(rows::numeric / $ticks, 2) AS rows,
        round((total_exec_time / $ticks)::numeric, 3) AS ms, left(regexp_replace(query, '\s+', ' ', 'g'), 90) AS statement
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$db')
        ORDER BY total_exec_time DESC LIMIT 15" "$db"
    # What each column of the rows a tick writes takes, on average, as stored
    # (pg_column_size: after compression, with its length header): what a lever
    # on one column would save.
    echo "the rows a tick writes, on average, by column (pg_column_size, bytes):"
    psql_as -At "$db" <<'SQL'
SELECT format('SELECT %L || '' ('' || count(*) || '' rows): row '' || coalesce(round(avg(pg_column_size(t.*)))::text, ''-'')%s FROM %I t',
              c.relname,
              string_agg(format(' || '' · %s '' || coalesce(round(avg(pg_column_size(%I)), 1)::text, ''null'')', a.attname, a.attname),
                         '' ORDER BY a.attnum),
              c.relname)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
WHERE c.relname IN ('tick_log', 'outbox_message', 'outbox', 'push_log') AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
GROUP BY c.relname ORDER BY c.relname
\gexec
SQL
}

run=0
for adventures in $counts; do
  for mode in $( [[ $followers -gt 0 ]] && echo "$channel_modes" || echo none ); do
    extra=(${bench_args[@]+"${bench_args[@]}"})
    label=""
    if [[ $mode != none ]]; then
        extra+=(--followers "$followers" --channels "$mode")
        label=", $followers followers each, channels $mode"
    fi
    for store in $stores; do
        run=$((run + 1))
        echo
        bytes_dir=""
        if [[ $bytes == 1 ]]; then
            bytes_dir="$folder/bytes-$run"
            mkdir -p "$bytes_dir"
            extra+=(--bytes-dir "$bytes_dir")
        fi
        if [[ $store == sqlite ]]; then
            echo "== $adventures adventures$label, SQLite"
            "$bench" --adventures "$adventures" --seconds "$seconds" --tick-interval "$interval" "${apns[@]}" ${extra[@]+"${extra[@]}"}
            [[ -n $bytes_dir ]] && report_bytes "$bytes_dir" sqlite
        else
            echo "== $adventures adventures$label, PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}')"
            # A fresh database per run, with the statement counter in it.
            PGPASSWORD=$password as_postgres "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -q \
                -c "CREATE DATABASE rangers_bench_$run" postgres
            PGPASSWORD=$password as_postgres "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -q \
                -c "CREATE EXTENSION pg_stat_statements" "rangers_bench_$run"
            "$bench" --adventures "$adventures" --seconds "$seconds" --tick-interval "$interval" "${apns[@]}" \
                --database "$database/rangers_bench_$run?sslmode=disable" ${extra[@]+"${extra[@]}"}
            [[ -n $bytes_dir ]] && report_bytes "$bytes_dir" "rangers_bench_$run"
        fi
    done
  done
done
