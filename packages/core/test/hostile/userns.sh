#!/bin/sh
# What a strict command is, and whether it can make itself more: its uid and
# uid map, a user namespace of its own (unshare -Ur) and a mount in it.
if unshare -Ur true 2>/dev/null; then userns=made; else userns=denied; fi
if unshare -Ur mount -t tmpfs none /tmp 2>/dev/null || mount -t tmpfs none /tmp 2>/dev/null; then mount=made; else mount=denied; fi
map=$(tr -s ' ' < /proc/self/uid_map | sed 's/^ //')
echo "USERNS $userns MOUNT $mount UID $(id -u) MAP $map"
exit 0
