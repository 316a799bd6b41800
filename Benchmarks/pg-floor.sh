#!/usr/bin/env bash
# What PostgreSQL itself costs to keep what a tick must keep, with nothing of the
# server's layout around it: the floor under the WAL and the PostgreSQL CPU per
# adventure-tick that `server-load.sh` measures.
#
# pgbench plays N adventures' ticks in batches of 100, one transaction a batch,
# at N adventure-ticks a second, on a cluster of this script's own (initdb +
# pg_ctl as the postgres user into a temporary folder, on a free port) with the
# recommended settings of deploy/postgresql.conf. Each adventure-tick writes:
#   - the adventure's new state over the old (its row, keyed by id; nothing else
#     indexed, so the update can stay on its page, HOT);
#   - the tick's events, a row keyed by (adventure, tick);
#   - 1.45 pushes on average, a row each keyed by a sequence;
#   - and, in a transaction of its own as a dispatcher would, each push's answer,
#     a row keyed by the push.
# Sizes are those of ServerLoadBench's adventures (PostgreSQL, 800 adventures,
# 2026-11-28): a 618-byte state whose changes run from near its start (the
# boss's health) to its end (the tick), 374 bytes of events a tick, 558-byte
# payloads, 1.45 pushes an adventure-tick. WAL records are not compressed (only
# full-page images are), so the bytes, not their content, are what counts.
#
# Four layouts: "content" as above; "keyed": the same with foreign keys from the
# tick's events and pushes to their adventure and from an answer to its push, as
# the server's tables have; "compact": the content with the state and the
# events in a binary form a quarter of their JSON's size (what an encoding of
# their own might reach; not the server's), the payload as it goes to APNs; and
# "deflated": the content in the sizes the store keeps it, deflated against its
# dictionaries (StoredPayload, StoredGameText): a 183-byte state, 50 bytes of
# events, 95-byte payloads.
#
# Five more layouts add to "deflated" what lets several dispatchers share the
# pushes, each claimed by one, in five designs (what the floor is for an outbox):
#   - "claimed-rows", as the server's outbox did from v22 to v25: a progress row
#     per push, written when queued, claimed (FOR UPDATE SKIP LOCKED, a version
#     on its page) and answered, with a partial index of the unfinished pushes;
#   - "claimed-rows-deleted", as the server's outbox does since v26: the same
#     progress row and claim, no partial index (the table holds the unfinished
#     pushes only), and the row deleted with its answer;
#   - "claimed-ranges": a claim is one row a batch naming the range of pushes it
#     took (claims taken one at a time under an advisory lock), and a push has a
#     progress row only while unfinished (its retries), deleted with its answer;
#   - "claims-only": the claim's row a batch, and no progress row at all: what is
#     unfinished is what was queued and not answered;
#   - "claims-in-commit-order": claims-only as the server would need it, where
#     pushes queued by several transactions at once commit out of the order of
#     their ids: each push records the transaction that wrote it, indexed with
#     its id, and a claim takes the next pushes in that order, never past the
#     oldest transaction still running (as the push log's reader does), so that
#     no push committed late is passed over. pgbench's one client commits in
#     the order of the ids anyway: what this measures is the bytes.
#
#   bash Benchmarks/pg-floor.sh [adventures=800] [seconds=30]
#   LAYOUTS="content deflated" bash Benchmarks/pg-floor.sh
#   LAYOUTS="deflated claimed-rows claimed-ranges claims-only" bash Benchmarks/pg-floor.sh
#   LAYOUTS="deflated claims-only claims-in-commit-order" bash Benchmarks/pg-floor.sh
#   LAYOUTS="claimed-rows claimed-rows-deleted" bash Benchmarks/pg-floor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
adventures=${1:-800}
seconds=${2:-30}
[[ $adventures =~ ^[1-9][0-9]*00$ ]] || { echo "pg-floor.sh: adventures must be a positive multiple of 100 (the batch), not '$adventures'" >&2; exit 2; }
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "pg-floor.sh: seconds must be a positive whole number, not '$seconds'" >&2; exit 2; }
batches=$((adventures / 100))
known_layouts="content keyed compact deflated claimed-rows claimed-rows-deleted claimed-ranges claims-only claims-in-commit-order"
layouts=${LAYOUTS:-content keyed compact deflated}
for layout in $layouts; do
    [[ " $known_layouts " == *" $layout "* ]] || { echo "pg-floor.sh: no layout '$layout' ($known_layouts)" >&2; exit 2; }
done

pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x "$pgbin/initdb" && -x "$pgbin/pgbench" ]] || { echo "pg-floor.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 2; }
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

folder=$(mktemp -d /tmp/rangers-pg-floor.XXXXXX)
[[ $(id -u) == 0 ]] && chown -R postgres:postgres "$folder"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() { as_postgres "$pgbin/pg_ctl" -D "$folder/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$folder"; }
trap stop EXIT
as_postgres "$pgbin/initdb" -D "$folder/data" -U postgres --auth=trust --encoding=UTF8 >/dev/null
cp deploy/postgresql.conf "$folder/data/rangers.conf"
[[ $(id -u) == 0 ]] && chown postgres:postgres "$folder/data/rangers.conf"
echo "include 'rangers.conf'" >> "$folder/data/postgresql.conf"
as_postgres "$pgbin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w \
    -o "-p $port -k $folder -c listen_addresses=127.0.0.1" start >/dev/null
psql_() { as_postgres "$pgbin/psql" -h "$folder" -p "$port" -U postgres -X -q "$@"; }

# User and system CPU of every postgres process, in seconds (/proc/<pid>/stat 14,
# 15), and of those that have ended (pgbench's backend among them), which the
# postmaster has waited for (16, 17).
postgres_cpu() {
    local total=0 pid stat
    for pid in $(pgrep -x postgres); do
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
        stat=${stat##*) }
        read -r -a f <<< "$stat"
        total=$((total + f[11] + f[12] + f[13] + f[14]))
    done
    python3 -c "import os; print($total / os.sysconf('SC_CLK_TCK'))"
}

# The outbox's tables of each layout, what queuing a push adds to them, and a
# dispatcher's claim and answers (each claim a transaction, its answers another).
outbox_tables() {
    case $1 in
    claimed-rows) cat <<'SQL' ;;
CREATE TABLE progress (id bigint PRIMARY KEY, next_attempt_at bigint NOT NULL DEFAULT 0, outcome text,
    state text NOT NULL DEFAULT 'pending', finished boolean GENERATED ALWAYS AS (state NOT IN ('pending', 'sending')) STORED,
    attempts int NOT NULL DEFAULT 0, claimed_at timestamptz, claimed_by text) WITH (fillfactor = 30);
CREATE INDEX progress_unfinished ON progress(id) WHERE NOT finished;
SQL
    claimed-rows-deleted) cat <<'SQL' ;;
CREATE TABLE progress (id bigint PRIMARY KEY, next_attempt_at bigint NOT NULL DEFAULT 0, outcome text,
    state text NOT NULL DEFAULT 'pending', attempts int NOT NULL DEFAULT 0, claimed_at timestamptz, claimed_by int)
    WITH (fillfactor = 30);
SQL
    claimed-ranges) cat <<'SQL' ;;
CREATE TABLE claim (id bigserial PRIMARY KEY, claimed_by text NOT NULL, claimed_at timestamptz NOT NULL,
    first_push bigint NOT NULL, last_push bigint NOT NULL);
CREATE TABLE progress (id bigint PRIMARY KEY, next_attempt_at bigint NOT NULL DEFAULT 0, attempts int NOT NULL DEFAULT 0);
SQL
    claims-only) cat <<'SQL' ;;
CREATE TABLE claim (id bigserial PRIMARY KEY, claimed_by text NOT NULL, claimed_at timestamptz NOT NULL,
    first_push bigint NOT NULL, last_push bigint NOT NULL);
SQL
    claims-in-commit-order) cat <<'SQL' ;;
ALTER TABLE push ADD COLUMN written_by xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX push_in_commit_order ON push(written_by, id);
CREATE TABLE claim (id bigserial PRIMARY KEY, claimed_by text NOT NULL, claimed_at timestamptz NOT NULL,
    first_push bigint NOT NULL, last_push bigint NOT NULL, last_written_by xid8 NOT NULL);
SQL
    esac
}
queued() {
    case $1 in
    claimed-rows|claimed-rows-deleted|claimed-ranges) echo "INSERT INTO progress (id) SELECT id FROM pushed;" ;;
    *) echo "SELECT count(*) FROM pushed;" ;;
    esac
}
dispatched() {
    case $1 in
    claimed-rows) cat <<'SQL' ;;
UPDATE progress SET state = 'sending', claimed_at = now(), claimed_by = 'node-1', attempts = attempts + 1
WHERE id IN (SELECT id FROM progress WHERE NOT finished AND state = 'pending' ORDER BY id LIMIT 1000 FOR UPDATE SKIP LOCKED);
WITH answered AS (
    UPDATE progress SET state = 'sent', outcome = 'sent' WHERE NOT finished AND state = 'sending' AND claimed_by = 'node-1' RETURNING id
) INSERT INTO push_answer SELECT id, 200, gen_random_uuid(), now() FROM answered ORDER BY id;
SQL
    claimed-rows-deleted) cat <<'SQL' ;;
UPDATE progress SET state = 'sending', claimed_at = now(), claimed_by = 1, attempts = attempts + 1
WHERE id IN (SELECT id FROM progress WHERE state = 'pending' ORDER BY id LIMIT 1000 FOR UPDATE SKIP LOCKED);
WITH answered AS (
    DELETE FROM progress WHERE id > :answered AND state = 'sending' AND claimed_by = 1 RETURNING id
) INSERT INTO push_answer SELECT id, 200, gen_random_uuid(), now() FROM answered ORDER BY id;
SQL
    claims-in-commit-order) cat <<'SQL' ;;
BEGIN;
SELECT pg_advisory_xact_lock(1);
WITH last AS (
    SELECT last_written_by, last_push FROM claim ORDER BY id DESC LIMIT 1
), taken AS (
    SELECT id, written_by FROM push
    WHERE (written_by, id) > (SELECT coalesce((SELECT last_written_by FROM last), '0'::xid8), coalesce((SELECT last_push FROM last), 0))
      AND written_by < pg_snapshot_xmin(pg_current_snapshot())
    ORDER BY written_by, id LIMIT 1000
)
INSERT INTO claim (claimed_by, claimed_at, first_push, last_push, last_written_by)
SELECT 'node-1', now(), (SELECT min(id) FROM taken), id, written_by FROM taken ORDER BY written_by DESC, id DESC LIMIT 1;
COMMIT;
INSERT INTO push_answer SELECT id, 200, gen_random_uuid(), now() FROM push
WHERE id > :answered AND id <= (SELECT last_push FROM claim ORDER BY id DESC LIMIT 1) ORDER BY id;
SQL
    claimed-ranges|claims-only)
        local queue="push WHERE id > :answered AND"
        [[ $1 == claimed-ranges ]] && queue="progress WHERE"
        cat <<SQL
BEGIN;
SELECT pg_advisory_xact_lock(1);
INSERT INTO claim (claimed_by, claimed_at, first_push, last_push)
SELECT 'node-1', now(), min(id), max(id) FROM $queue id > (SELECT coalesce(max(last_push), 0) FROM claim)
HAVING count(*) > 0;
COMMIT;
SQL
        if [[ $1 == claimed-ranges ]]; then cat <<'SQL'
WITH answered AS (DELETE FROM progress WHERE id <= (SELECT max(last_push) FROM claim) RETURNING id)
INSERT INTO push_answer SELECT id, 200, gen_random_uuid(), now() FROM answered ORDER BY id;
SQL
        else cat <<'SQL'
INSERT INTO push_answer SELECT id, 200, gen_random_uuid(), now() FROM push
WHERE id > :answered AND id <= (SELECT max(last_push) FROM claim) ORDER BY id;
SQL
        fi ;;
    *) echo "INSERT INTO push_answer SELECT id, 200, gen_random_uuid(), now() FROM push WHERE id > :answered ORDER BY id;" ;;
    esac
}

run() {
    local layout=$1 state_bytes=618 events_bytes=374 payload_bytes=558 adventure_key="" push_key=""
    if [[ $layout == compact ]]; then state_bytes=155; events_bytes=94; fi
    case $layout in deflated|claimed-rows|claimed-rows-deleted|claimed-ranges|claims-only|claims-in-commit-order) state_bytes=183; events_bytes=50; payload_bytes=95 ;; esac
    if [[ $layout == keyed ]]; then adventure_key="REFERENCES adventure"; push_key="REFERENCES push"; fi
    local db="floor_${layout//-/_}"
    psql_ -c "CREATE DATABASE $db" postgres
    psql_ "$db" <<SQL
CREATE TABLE adventure (id int PRIMARY KEY, tick int NOT NULL, state bytea NOT NULL);
CREATE TABLE tick_log (adventure int $adventure_key, tick int, events bytea NOT NULL, PRIMARY KEY (adventure, tick));
CREATE TABLE push (id bigserial PRIMARY KEY, adventure int NOT NULL $adventure_key, tick int NOT NULL, payload bytea NOT NULL);
CREATE TABLE push_answer (push bigint PRIMARY KEY $push_key, status smallint NOT NULL, apns_id uuid NOT NULL,
                          answered_at timestamptz NOT NULL);
-- A state of $state_bytes bytes: what changes each tick sits at its start and at its end.
CREATE FUNCTION state_of(tick int) RETURNS bytea LANGUAGE sql IMMUTABLE AS
  \$\$ SELECT int4send(tick * 7919) || decode(repeat('7b', $state_bytes - 8), 'hex') || int4send(tick) \$\$;
INSERT INTO adventure SELECT id, 0, state_of(0) FROM generate_series(0, $adventures - 1) id;
$(outbox_tables "$layout")
VACUUM ANALYZE;
SQL
    # One batch of 100 adventures' ticks, then the answers to the pushes queued so far.
    cat > "$folder/tick.sql" <<SQL
\set batch random(0, $((batches - 1)))
BEGIN;
WITH ticked AS (
    UPDATE adventure SET tick = tick + 1, state = state_of(tick + 1)
    WHERE id >= :batch * 100 AND id < :batch * 100 + 100 RETURNING id, tick
), events AS (
    INSERT INTO tick_log SELECT id, tick, decode(repeat('5b', $events_bytes), 'hex') FROM ticked
), pushed AS (
    INSERT INTO push (adventure, tick, payload)
    SELECT id, tick, decode(repeat('7b', $payload_bytes), 'hex') FROM ticked, generate_series(1, 2) n
    WHERE n = 1 OR (hashint4(id * 31 + tick) & 1023) < 461
    RETURNING id
)
$(queued "$layout")
COMMIT;
$(dispatched "$layout")
SELECT coalesce(max(push), 0) AS answered FROM push_answer \gset
SQL
    # Warm-up, so that the tables have pages and the statistics their rows.
    as_postgres "$pgbin/pgbench" -h "$folder" -p "$port" -U postgres -n -f "$folder/tick.sql" -D answered=0 \
        -R "$batches" -T 5 "$db" >/dev/null
    psql_ -c "ANALYZE" "$db"
    local wal_start cpu_start wal_end cpu_end ticks_start ticks_end pushes
    wal_start=$(psql_ -At -c "SELECT pg_current_wal_insert_lsn() - '0/0'" "$db")
    ticks_start=$(psql_ -At -c "SELECT count(*) FROM tick_log" "$db")
    cpu_start=$(postgres_cpu)
    as_postgres "$pgbin/pgbench" -h "$folder" -p "$port" -U postgres -n -f "$folder/tick.sql" \
        -D answered="$(psql_ -At -c 'SELECT coalesce(max(push), 0) FROM push_answer' "$db")" \
        -R "$batches" -T "$seconds" "$db" > "$folder/pgbench.txt"
    cpu_end=$(postgres_cpu)
    wal_end=$(psql_ -At -c "SELECT pg_current_wal_insert_lsn() - '0/0'" "$db")
    ticks_end=$(psql_ -At -c "SELECT count(*) FROM tick_log" "$db")
    pushes=$(psql_ -At -c "SELECT round(count(*)::numeric / (SELECT count(*) FROM tick_log), 2) FROM push" "$db")
    python3 - "$layout" "$wal_start" "$wal_end" "$cpu_start" "$cpu_end" "$ticks_start" "$ticks_end" "$pushes" "$seconds" <<'PY'
import sys
layout, w0, w1, c0, c1, t0, t1, pushes, seconds = sys.argv[1:]
ticks = int(t1) - int(t0)
print(f"{layout:14} {ticks / float(seconds):7.0f} adventure-ticks/s · {pushes} pushes each · "
      f"{(int(w1) - int(w0)) / ticks:6.0f} B of WAL · {(float(c1) - float(c0)) * 1000 / ticks:.3f} ms of PostgreSQL CPU per adventure-tick")
PY
}

echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), deploy/postgresql.conf, $adventures adventures at a 1 s tick, $seconds s each:"
for layout in $layouts; do run "$layout"; done
