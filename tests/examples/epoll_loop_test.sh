#!/bin/bash
# Runs the epoll loop example and checks what it printed: nothing early, the
# eventfd woke the loop for the other thread's earlier timer, the 10 s guard
# did not have to fire.
set -u
binary="$1"
output="$("$binary" 2>&1)"
status=$?
echo "$output"
fail() { echo "FAILED: $1"; exit 1; }
[ "$status" -eq 0 ] || fail "exit status $status"
grep -qx "early runs: 0" <<<"$output" || fail "a timer ran early"
grep -q "^eventfd wake-ups: [1-9]" <<<"$output" || fail "no eventfd wake-up"
grep -qx "guard fired: no" <<<"$output" || fail "the loop overslept to the guard"
grep -qx "epoll_loop: OK" <<<"$output" || fail "no OK line"
echo "PASSED"
