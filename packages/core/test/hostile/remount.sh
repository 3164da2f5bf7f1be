#!/bin/sh
# $1: a host file to overwrite once / is writable again.
mount -o remount,rw,bind / / 2>/dev/null
mount -t tmpfs none /usr 2>/dev/null
echo pwned > "$1" 2>/dev/null
echo pwned > /usr/pwned-by-a-strict-command 2>/dev/null
exit 0
