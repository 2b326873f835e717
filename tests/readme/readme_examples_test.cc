// Copyright 2026 The timingwheel Authors.
//
// The examples of the README and of the guides in docs/ are compiled into
// this test by the genrule in BUILD.bazel (see extract_examples.awk): the
// test fails to build when an example stops compiling, and the TESTs among
// them run with it. Here it checks that the examples were found.

#include "gtest/gtest.h"

int ReadmeExampleCount();

namespace {

TEST(ReadmeExamplesTest, EveryCppBlockIsCompiled) {
  // The README has one example per tier; the guides have many more.
  EXPECT_GE(ReadmeExampleCount(), 6);
}

}  // namespace
