#!/bin/bash
# usage: run.sh BIN SHAPE N...
# Runs `summarize FILE --offline --keep-recent 50` on a generated session of each size and
# prints its wall time and peak memory (GNU time). A refusal to compact (exit 1) is expected
# for the shapes whose summary cannot shrink the session; the summarizer has run by then.
DIR=$(mktemp -d)
B=$1; S=$2; shift 2
for n in "$@"; do
  python3 "$(dirname "$0")/growth_round15.py" $S $n "$DIR/$S-$n.jsonl"
  /usr/bin/time -f "$S n=$n %es %MKB" timeout 120 $B summarize "$DIR/$S-$n.jsonl" --offline --keep-recent 50 > /dev/null 2>"$DIR/err" || echo "$S n=$n rc=$? $(tail -1 "$DIR/err")"
  tail -1 "$DIR/err"
done
