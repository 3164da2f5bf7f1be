#!/bin/sh
# $1: a marker in every process's command line. A bounded fork bomb: 2,000
# processes asked for, the preset allows far fewer.
i=0
while [ "$i" -lt 2000 ]; do
  sh -c 'sleep 30; :' "$1" 2>/dev/null &
  i=$((i + 1))
done 2>/dev/null
exec sleep 30
