#!/bin/sh
# The GUI stall benchmark, paired: alternates one fresh process of OLD_CHECKOUT's bench_gui_stall.py --one with
# one of this checkout's, N times, so both sides meet the same load; prints "old|new MAX_GAP_MS P99_MS" per run.
#   benchmarks/ab_gui_stall.sh OLD_CHECKOUT [N] [--release]
# (make OLD_CHECKOUT with `git worktree add /tmp/old COMMIT`; both run with this checkout's .venv)
set -eu
old=$1
n=${2:-5}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")/.." && pwd)
py="$here/.venv/bin/python"
i=0
while [ "$i" -lt "$n" ]; do
  for side in old new; do
    dir=$here
    [ "$side" = old ] && dir=$old
    (cd "$dir" && QT_QPA_PLATFORM=offscreen "$py" benchmarks/bench_gui_stall.py --rows 1000000 --one "$@" 2>/dev/null) |
      tail -1 | "$py" -c "import json, sys; d = json.loads(sys.stdin.read()); print('$side', round(d['max_gap_ms'], 1), round(d['p99_gap_ms'], 1))"
  done
  i=$((i + 1))
done
