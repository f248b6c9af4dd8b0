#!/bin/sh
# Focus instructions: a process extension that only steers the built-in summary.
#
# It ignores the event and answers "continue" with extra instructions, which are appended
# to the user's custom instructions. The focus is the first argument, or a default:
#   compaction run --extension "sh examples/extensions/focus.sh 'the database migration'" SESSION
# For after_* events the answer is ignored, so it says nothing then.
case "$COMPACTION_EXTENSION_EVENT" in
  before_*) ;;
  *) exit 0 ;;
esac
cat > /dev/null
focus=${1:-"decisions made, open problems and the exact next step"}
# JSON-escape backslashes and double quotes; newlines become spaces.
escaped=$(printf '%s' "$focus" | tr '\n' ' ' | sed 's/\\/\\\\/g; s/"/\\"/g')
printf '{"action":"continue","instructions":"Pay particular attention to %s."}\n' "$escaped"
