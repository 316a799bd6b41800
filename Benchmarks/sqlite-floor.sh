#!/usr/bin/env bash
# What SQLite itself costs to keep what a tick must keep, with nothing of the
# server's layout or code around it: the floor under the WAL, the CPU and the
# instructions per adventure-tick that `server-load.sh` and `callgrind.sh`
# measure for the SQLite store.
#
# The sqlite3 shell (the same libsqlite3 the server links) plays 800 adventures'
# ticks in batches of 100, one transaction a batch, on a file with the server's
# settings (2,048-byte pages, WAL, synchronous = NORMAL, a 64 MiB cache). Each
# adventure-tick writes the adventure's new state over the old (its row, by id),
# the tick's events and 1.45 pushes on average, each a row appended in the order
# written (as the server's tick rows and messages are since v15-v16), and, in a
# transaction of its own as a dispatcher would, each push's answer, a row
# appended by push. Sizes are those of ServerLoadBench's rows (a 618-byte state,
# 374 bytes of events a tick, 558-byte payloads). A page goes whole into the
# WAL, so what counts is the pages a batch touches, not the bytes changed.
#
# Figures per adventure-tick: WAL bytes (the frames' pages, as the server counts
# them, SQLITE_DBSTATUS_CACHE_WRITE), with checkpoints off so that the WAL keeps
# every frame; CPU (user and system, the shell's, over ROUNDS rounds of 800);
# instructions (callgrind, 5 and 25 rounds, the difference over the extra
# adventure-ticks, so that start-up cancels out), with the WAL checkpointed at
# 10,000 pages as the server's checkpointer does.
#
#   bash Benchmarks/sqlite-floor.sh [rounds=300]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-300}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "sqlite-floor.sh: rounds must be a positive whole number, not '$rounds'" >&2; exit 2; }
adventures=800
batches=$((adventures / 100))
command -v sqlite3 >/dev/null || { echo "sqlite-floor.sh: sqlite3 is not installed (apt-get install sqlite3)" >&2; exit 2; }
folder=$(mktemp -d /tmp/rangers-sqlite-floor.XXXXXX)
trap 'rm -rf "$folder"' EXIT

# The schema and N rounds of every adventure's tick, as one script for the shell.
script() {
    local rounds=$1 checkpoint=$2 round batch
    cat <<SQL
PRAGMA page_size = 2048;
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -65536;
PRAGMA wal_autocheckpoint = $checkpoint;
CREATE TABLE adventure (id INTEGER PRIMARY KEY, tick INTEGER NOT NULL, state BLOB NOT NULL);
CREATE TABLE tick_log (adventure INTEGER NOT NULL, tick INTEGER NOT NULL, events BLOB NOT NULL);
CREATE TABLE push (adventure INTEGER NOT NULL, tick INTEGER NOT NULL, payload BLOB NOT NULL);
CREATE TABLE answer (push INTEGER PRIMARY KEY, status INTEGER NOT NULL, apns_id BLOB NOT NULL, answered_at INTEGER NOT NULL);
WITH RECURSIVE n(id) AS (SELECT 0 UNION ALL SELECT id + 1 FROM n WHERE id < $adventures - 1)
INSERT INTO adventure SELECT id, 0, zeroblob(618) FROM n;
SQL
    for ((round = 0; round < rounds; round++)); do
        for ((batch = 0; batch < batches; batch++)); do
            cat <<SQL
BEGIN;
UPDATE adventure SET tick = tick + 1, state = zeroblob(618) WHERE id >= $((batch * 100)) AND id < $((batch * 100 + 100));
INSERT INTO tick_log SELECT id, tick, zeroblob(374) FROM adventure WHERE id >= $((batch * 100)) AND id < $((batch * 100 + 100));
INSERT INTO push SELECT id, tick, zeroblob(558) FROM adventure, (SELECT 1 AS n UNION ALL SELECT 2)
    WHERE id >= $((batch * 100)) AND id < $((batch * 100 + 100)) AND (n = 1 OR ((id * 31 + tick) * 2654435761) % 1024 < 461)
    ORDER BY id, n;
COMMIT;
INSERT INTO answer SELECT rowid, 200, randomblob(16), unixepoch() FROM push WHERE rowid > (SELECT coalesce(max(push), 0) FROM answer);
SQL
        done
    done
    echo "SELECT 'ticks', count(*), (SELECT count(*) FROM push) FROM tick_log;"
    # The WAL's frames so far (all of them with checkpoints off): its second column.
    echo "PRAGMA wal_checkpoint(PASSIVE);"
}

# WAL and CPU.
script "$rounds" 0 > "$folder/ticks.sql"
TIMEFORMAT='%U %S'
{ time sqlite3 "$folder/floor.db" < "$folder/ticks.sql" > "$folder/out.txt"; } 2> "$folder/time.txt"
read -r user system < "$folder/time.txt"
IFS='|' read -r _ ticks pushes < <(grep '^ticks' "$folder/out.txt")
IFS='|' read -r _ frames _ < <(tail -1 "$folder/out.txt")
# The setup's frames (800 adventures' rows) are in the WAL too: a run of no rounds gives them.
script 0 0 > "$folder/setup.sql"
IFS='|' read -r _ setup_frames _ < <(sqlite3 "$folder/setup.db" < "$folder/setup.sql" | tail -1)
python3 - "$frames" "$setup_frames" "$ticks" "$pushes" "$user" "$system" <<'PY'
import sys
frames, setup_frames, ticks, pushes, user, system = sys.argv[1:]
ticks = int(ticks)
frames = int(frames) - int(setup_frames)
print(f"{ticks} adventure-ticks, {int(pushes) / ticks:.2f} pushes each: "
      f"{frames * 2048 / ticks:,.0f} B of WAL ({frames / ticks:.2f} pages), "
      f"{(float(user) + float(system)) * 1000 / ticks:.4f} ms of CPU per adventure-tick")
PY

# Instructions, if valgrind is here.
if command -v valgrind >/dev/null; then
    for n in 5 25; do
        rm -f "$folder"/count.db*
        script "$n" 10000 > "$folder/count.sql"
        valgrind --tool=callgrind --callgrind-out-file="$folder/callgrind.$n" sqlite3 "$folder/count.db" \
            < "$folder/count.sql" > /dev/null 2> "$folder/valgrind.$n"
    done
    python3 - "$folder/valgrind.5" "$folder/valgrind.25" "$adventures" <<'PY'
import re, sys
def total(path):
    return int(re.search(r"Collected : (\d+)", open(path).read()).group(1))
short, long, adventures = total(sys.argv[1]), total(sys.argv[2]), int(sys.argv[3])
print(f"{(long - short) / (20 * adventures):,.0f} instructions per adventure-tick (callgrind, 25 rounds minus 5)")
PY
else
    echo "(no valgrind: instructions not counted)"
fi
