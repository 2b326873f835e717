// Copyright 2026 The timingwheel Authors.
//
// A consumer's purgatory test, written against @timingwheel//purgatory:testing
// as the README says: a delayed fetch that completes when enough bytes have
// arrived, or times out, tested deterministically with MockPurgatory.

#include <atomic>
#include <string>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "purgatory/delayed_operation_purgatory.h"
#include "purgatory/testing/mock_purgatory.h"

namespace {

// Completes once `min_bytes` are available; answers "ok" or "timeout".
class DelayedFetch : public timingwheel::DelayedOperation {
 public:
  DelayedFetch(absl::Duration timeout, int min_bytes, std::atomic<int>* bytes)
      : DelayedOperation(timeout), min_bytes_(min_bytes), bytes_(bytes) {}

  bool TryComplete() override { return bytes_->load() >= min_bytes_; }
  void OnComplete() override { answer = IsExpired() ? "timeout" : "ok"; }
  void OnExpiration() override { ++expirations; }

  std::string answer;
  int expirations = 0;

 private:
  const int min_bytes_;
  std::atomic<int>* const bytes_;
};

TEST(ConsumerPurgatoryTest, CompletesWhenBytesArriveElseTimesOut) {
  timingwheel::testing::MockPurgatory<std::string> purgatory;
  std::atomic<int> bytes{0};
  auto completes =
      timingwheel::MakeTask<DelayedFetch>(absl::Seconds(1),
                                          /*min_bytes=*/10, &bytes);
  auto times_out = timingwheel::MakeTask<DelayedFetch>(
      absl::Seconds(2), /*min_bytes=*/100, &bytes);
  EXPECT_EQ(purgatory->TryCompleteElseWatch(completes, {"topic-0"}).value(),
            timingwheel::WatchOutcome::kWatching);
  EXPECT_EQ(purgatory->TryCompleteElseWatch(times_out, {"topic-0"}).value(),
            timingwheel::WatchOutcome::kWatching);

  bytes = 10;
  EXPECT_EQ(purgatory->CheckAndComplete("topic-0"), 1);
  EXPECT_EQ(completes->answer, "ok");
  EXPECT_EQ(completes->state(), timingwheel::OperationState::kCompleted);

  EXPECT_EQ(purgatory.AdvanceBy(absl::Milliseconds(1999)), 0);
  EXPECT_EQ(times_out->answer, "");
  EXPECT_EQ(purgatory.AdvanceBy(absl::Milliseconds(1)), 1);
  EXPECT_EQ(times_out->answer, "timeout");
  EXPECT_EQ(times_out->expirations, 1);
  EXPECT_EQ(completes->expirations, 0);
  EXPECT_EQ(purgatory->NumDelayed(), 0);
}

}  // namespace
