#!/bin/sh
# What an ordinary strict command does: start programs with its standard
# streams on /dev/null, as git, a shell or Python's subprocess would, and
# try one program it may not start (the host's home is not in its view).
# $1 a program under the host's home.
try() { name=$1; shift; if "$@"; then echo "SPAWN $name ok"; else echo "SPAWN $name failed $?"; fi; }
try sh /bin/sh -c 'true' </dev/null
try devnull /bin/sh -c 'echo x >/dev/null && head -c 4 /dev/zero | wc -c >/dev/null' </dev/null
try urandom /bin/sh -c 'head -c 4 /dev/urandom | wc -c >/dev/null'
if [ -x /usr/bin/python3 ]; then
  try python /usr/bin/python3 -c 'import subprocess; subprocess.run(["/bin/sh", "-c", "true"], capture_output=True, stdin=subprocess.DEVNULL, check=True)'
fi
if "$1" 2>/dev/null; then echo "SPAWN home ran"; else echo "SPAWN home refused $?"; fi
exit 0
