#!/bin/sh
# expect_status.sh WANT CMD...: runs CMD, passes if its exit status is WANT.
want=$1; shift
"$@"; got=$?
[ "$got" = "$want" ] || { echo "exit status $got, want $want"; exit 1; }
