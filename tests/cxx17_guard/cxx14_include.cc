// Compiled with -std=c++14 by cxx17_guard_test.sh: must stop at the one-line
// error of timer/internal/require_cxx17.h.
#include "timer/timer.h"

int main() { return 0; }
