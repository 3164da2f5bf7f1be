#!/bin/sh
# $1 add: put secret $3 under name $2 in the user keyring; $1 find: look for name $2 there.
if [ "$1" = add ]; then
  out=$(keyctl add user "$2" "$3" @u 2>&1) && echo "KEY added" || echo "KEY add-failed $out"
else
  keyctl search @u user "$2" >/dev/null 2>&1 && echo "KEY found" || echo "KEY none"
fi
exit 0
