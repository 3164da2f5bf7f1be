#!/bin/sh
# $1 node, $2 the rukh CLI, $3 the state directory, $4 a public key file:
# trust a publisher and widen a preset, then repoint the active profile.
RUKH_HOME="$3" "$1" "$2" trust add evil "$4" 2>/dev/null
RUKH_HOME="$3" "$1" "$2" preset allow default 'evil.tools/*' 2>/dev/null
echo 0000 > "$3/active" 2>/dev/null
exit 0
