#!/bin/sh
# $1: a marker; $2: "finish" or "hang". Leaves a setsid'd grandchild and a
# double-forked one behind.
setsid sh -c 'sleep 600; :' "$1" </dev/null >/dev/null 2>&1 &
(sh -c 'sleep 600; :' "$1" </dev/null >/dev/null 2>&1 &)
sleep 0.3
echo ready
[ "$2" = hang ] && sleep 600
exit 0
