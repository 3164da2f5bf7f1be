#!/bin/sh
# $1: a file to write 2 MiB to, past a 1 MiB file size limit.
head -c 2097152 /dev/zero > "$1"
