#!/usr/bin/env python3
"""Where a tick's bytes go: the write-ahead log of ServerLoadBench's measured
window, per adventure-tick, by table and index. Called by
`BYTES=1 bash Benchmarks/server-load.sh`, which gives it what the bench left in
its --bytes-dir (the file `window`: WAL position at the start and the end, and
the ticks stored in between).

  tick-bytes.py sqlite DIR
      DIR/load.sqlite-wal, copied as the window ended, holds the frames written
      since the WAL last started over: a sample of the window. Each frame is one
      page; the page's owner (table or index) is read with `dbstat` from the
      copied database. Shares of the sample's frames, times the window's WAL
      bytes per tick (SQLite's own count of pages written), are the bytes by
      table; frames carrying a commit mark count the commits.

  tick-bytes.py postgres DIR < pg_waldump output of the window
      DIR/relations maps relfilenode to name (`psql -At -F ' '`). A record's
      bytes go to the relation of its first block reference (the rest of the
      total beyond the record itself is full-page images); records without one
      (commits, ...) by their resource manager and kind.
"""
import os
import re
import sqlite3
import struct
import sys
from collections import Counter


def window(folder):
    with open(os.path.join(folder, "window")) as f:
        start, end, ticks = (int(x) for x in f.read().split())
    return end - start, max(1, ticks)


def table(rows, ticks, total_label):
    """rows: (name, bytes, extra) sorted by bytes; prints bytes per adventure-tick."""
    total = sum(r[1] for r in rows)
    print(f"  {'table or index':<44} {'bytes/tick':>10} {'share':>6}  {''}")
    for name, size, extra in rows:
        print(f"  {name:<44} {size / ticks:>10.0f} {size / max(1, total):>6.1%}  {extra}")
    print(f"  {total_label:<44} {total / ticks:>10.0f}")


def sqlite_bytes(folder):
    window_bytes, ticks = window(folder)
    with open(os.path.join(folder, "load.sqlite-wal"), "rb") as f:
        wal = f.read()
    if len(wal) < 32:
        sys.exit("tick-bytes.py: the WAL copy is empty")
    page_size = struct.unpack(">I", wal[8:12])[0]
    salts = wal[16:24]
    pages, commits, frames = Counter(), 0, 0
    offset = 32
    # Frames are valid while they carry the header's salts; past them lie older frames.
    while offset + 24 + page_size <= len(wal):
        number, commit_size = struct.unpack(">II", wal[offset:offset + 8])
        if wal[offset + 8:offset + 16] != salts:
            break
        pages[number] += 1
        frames += 1
        commits += commit_size != 0
        offset += 24 + page_size
    if frames == 0:
        sys.exit("tick-bytes.py: no frames in the WAL copy")
    # dbstat reads the copy with its WAL; it is read after the frames, since closing may checkpoint it.
    db = sqlite3.connect(os.path.join(folder, "load.sqlite"))
    owner = dict((page, name) for name, page in db.execute("SELECT name, pageno FROM dbstat"))
    db.close()
    by_name = Counter()
    for page, count in pages.items():
        by_name[owner.get(page, "(free or new pages)")] += count
    scale = window_bytes / frames  # bytes of the window per sampled frame
    window_frames = window_bytes / (page_size + 24)
    print(f"SQLite, {ticks} ticks in the window, {window_bytes / ticks:.0f} bytes of WAL per adventure-tick "
          f"({page_size}-byte pages); sample: {frames} frames, {commits} commits, "
          f"{frames / max(1, commits):.1f} pages per commit, "
          f"{ticks / max(1, commits * window_frames / frames):.0f} ticks per commit")
    rows = [(name, count * scale, f"{count / frames * window_frames / ticks:.2f} pages")
            for name, count in by_name.most_common()]
    table(rows, ticks, "all")


def postgres_bytes(folder):
    _, ticks = window(folder)
    names = {}
    with open(os.path.join(folder, "relations")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                names[parts[0]] = parts[1]
    record = re.compile(r"rmgr: (\w+)\s+len \(rec/tot\):\s+(\d+)/\s*(\d+),.*?desc: (\S+)")
    block = re.compile(r"blkref #0: rel \d+/\d+/(\d+)")
    size, images, count, kinds = Counter(), Counter(), Counter(), {}
    for line in sys.stdin:
        m = record.search(line)
        if not m:
            continue
        rmgr, rec, tot, kind = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        b = block.search(line)
        key = names.get(b.group(1), "relfilenode " + b.group(1)) if b else f"({rmgr} {kind})"
        size[key] += tot
        images[key] += tot - rec
        count[key] += 1
        kinds.setdefault(key, Counter())[kind] += 1
    print(f"PostgreSQL, {ticks} ticks in the window, {sum(size.values()) / ticks:.0f} bytes of WAL per adventure-tick")
    # Each relation's records by kind: a LOCK beside a heap UPDATE is the old
    # version marked before its new one goes to another page.
    def by_kind(name):
        return ", ".join(f"{kind} {n / ticks:.2f}" for kind, n in kinds[name].most_common(4))
    rows = [(name, total, f"{count[name] / ticks:.2f} records ({by_kind(name)}), {images[name] / ticks:.0f} B of page images")
            for name, total in size.most_common(25)]
    table(rows, ticks, "all (top 25 shown)")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("sqlite", "postgres"):
        sys.exit(__doc__)
    (sqlite_bytes if sys.argv[1] == "sqlite" else postgres_bytes)(sys.argv[2])
