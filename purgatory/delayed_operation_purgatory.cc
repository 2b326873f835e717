// Copyright 2026 The timingwheel Authors.
//
// One instantiation of DelayedOperationPurgatory (for std::string keys), so
// that its member functions are compiled with the library, and checked by
// clang's -Wthread-safety (.ci/jobs.d/thread-safety-analysis compiles every
// .cc in purgatory/): a template's bodies are analysed only when
// instantiated.

#include "purgatory/delayed_operation_purgatory.h"

#include <string>

namespace timingwheel {

template class DelayedOperationPurgatory<std::string>;

}  // namespace timingwheel
