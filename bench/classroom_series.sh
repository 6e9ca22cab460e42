#!/bin/sh
# The classroom series behind docs/speed.md's tables: one process at N = 1..100, then two
# processes behind nginx. Results append to bench/logs/series.jsonl; about 20 minutes on 2 cores.
# glibc returns freed memory to the system with these (see docs/speed.md, "Memory").
set -eu
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
OUT=bench/logs/series.jsonl
export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072
for spec in "1 0" "10 3" "30 10" "60 10" "100 10"; do
    set -- $spec
    timeout 900 "$PY" bench/classroom.py --sessions "$1" --uploaders "$2" --seconds 60 --settle 15 --json "$OUT"
done
for spec in "30 10" "60 10"; do
    set -- $spec
    timeout 900 "$PY" bench/balanced.py --processes 2 --sessions "$1" --uploaders "$2" --seconds 60 --settle 15 --json "$OUT"
done
