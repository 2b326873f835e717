// Copyright 2026 The timingwheel Authors.
//
// The README's examples are compiled into this test by the genrule in
// BUILD.bazel (see extract_examples.awk): the test fails to build when an
// example stops compiling. Here it checks that the examples were found.

#include "gtest/gtest.h"

int ReadmeExampleCount();

namespace {

TEST(ReadmeExamplesTest, EveryCppBlockIsCompiled) {
  // The README has a timer, a purgatory and a testing example at least.
  EXPECT_GE(ReadmeExampleCount(), 3);
}

}  // namespace
