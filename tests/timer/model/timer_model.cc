// Copyright 2026 The timingwheel Authors.

#include "tests/timer/model/timer_model.h"

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include "absl/status/status.h"

namespace timingwheel {
namespace model {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t AddSat(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? kMax : sum;
}

int64_t MulSat(int64_t a, int64_t b) {
  int64_t product;
  return __builtin_mul_overflow(a, b, &product) ? kMax : product;
}

// tick * wheel_size^levels, saturated.
int64_t Span(const ModelOptions& options, int levels) {
  int64_t span = absl::ToInt64Nanoseconds(options.tick);
  for (int i = 0; i < levels; ++i) span = MulSat(span, options.wheel_size);
  return span;
}

// `value` reduced into [0, bound].
int64_t UpTo(uint32_t value, int64_t bound) {
  return static_cast<int64_t>(
      value % static_cast<uint64_t>(std::max<int64_t>(1, bound) + 1));
}

const char* KindName(Step::Kind kind) {
  switch (kind) {
    case Step::Kind::kAdd:
      return "add";
    case Step::Kind::kCancel:
      return "cancel";
    case Step::Kind::kAdvance:
      return "advance";
    case Step::Kind::kAdvanceToNext:
      return "advance-to-next";
    case Step::Kind::kShutdown:
      return "shutdown";
  }
  return "?";
}

}  // namespace

std::string Step::ToString() const {
  std::ostringstream out;
  out << KindName(kind);
  switch (kind) {
    case Kind::kAdd:
      out << " slot " << slot << " delay " << absl::FormatDuration(delay);
      break;
    case Kind::kCancel:
      out << " slot " << slot;
      break;
    case Kind::kAdvance:
    case Kind::kAdvanceToNext:
      out << " " << absl::FormatDuration(advance);
      break;
    case Kind::kShutdown:
      break;
  }
  return out.str();
}

uint8_t StepDecoder::Byte() { return pos_ < size_ ? data_[pos_++] : 0; }

uint32_t StepDecoder::Word() {
  uint32_t word = 0;
  for (int i = 0; i < 4; ++i) word = (word << 8) | Byte();
  return word;
}

absl::Duration StepDecoder::Delay(uint8_t shape, uint32_t value) const {
  switch (shape % 10) {
    case 0:
      return absl::ZeroDuration();
    case 1:
      return -absl::Nanoseconds(1 + value % 1'000'000);
    case 2:  // Within the current tick.
      return absl::Nanoseconds(UpTo(value, Span(options_, 0)));
    case 3:  // Within level 0, its end included.
    case 4:
      return absl::Nanoseconds(UpTo(value, Span(options_, 1)));
    case 5:  // A few levels up.
    case 6:
      return absl::Nanoseconds(UpTo(value, Span(options_, 3)));
    case 7:  // Many levels up.
      return absl::Nanoseconds(UpTo(value, Span(options_, 8)));
    case 8:  // Years.
      return absl::Hours(value % 200'000) + absl::Nanoseconds(value);
    default:  // The end of time.
      return value % 2 == 0 ? absl::InfiniteDuration()
                            : absl::Nanoseconds(kMax - value % 4);
  }
}

absl::Duration StepDecoder::Advance(uint8_t shape, uint32_t value) const {
  switch (shape % 16) {
    case 0:
      return absl::ZeroDuration();
    case 1:
      return absl::Nanoseconds(1);
    case 2:
    case 3:
    case 4:
      return absl::Nanoseconds(UpTo(value, Span(options_, 0)));
    case 5:
    case 6:
    case 7:
    case 8:
      return absl::Nanoseconds(UpTo(value, Span(options_, 1)));
    case 9:
    case 10:
    case 11:
      return absl::Nanoseconds(UpTo(value, Span(options_, 3)));
    case 12:
    case 13:
      return absl::Nanoseconds(UpTo(value, Span(options_, 8)));
    case 14:
      return absl::Hours(value % 200'000);
    default:  // To the end of time (the manual clock saturates).
      return absl::Nanoseconds(kMax);
  }
}

bool StepDecoder::Next(Step& step) {
  if (pos_ >= size_) return false;
  const uint8_t op = Byte();
  const uint8_t slot = Byte();
  const uint8_t shape = Byte();
  const uint32_t value = Word();
  step = Step();
  step.slot = slot % options_.num_slots;
  switch (op % 16) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
      step.kind = Step::Kind::kAdd;
      step.delay = Delay(shape, value);
      break;
    case 6:
    case 7:
      step.kind = Step::Kind::kCancel;
      break;
    case 8:
    case 9:
    case 10:
    case 11:
      step.kind = Step::Kind::kAdvance;
      step.advance = Advance(shape, value);
      break;
    case 12:
    case 13:
    case 14:
      step.kind = Step::Kind::kAdvanceToNext;
      step.advance = absl::Nanoseconds(shape % 2);
      break;
    default:
      // Shutdown ends everything; keep it rare.
      if (op == 255 && options_.allow_shutdown) {
        step.kind = Step::Kind::kShutdown;
      } else {
        step.kind = Step::Kind::kAdvance;
        step.advance = Advance(shape, value);
      }
      break;
  }
  return true;
}

// A task of one slot: records each run and the clock reading it ran at.
class TimerModel::SlotTask final : public TimerTask {
 public:
  SlotTask(TimerModel* model, int slot) : model_(model), slot_(slot) {}
  void Run() override { model_->runs_.push_back({slot_, model_->Now()}); }

 private:
  TimerModel* const model_;
  const int slot_;
};

TimerModel::TimerModel(const ModelOptions& options) : options_(options) {
  TimerOptions timer_options;
  timer_options.tick = options.tick;
  timer_options.wheel_size = options.wheel_size;
  mock_ = std::make_unique<testing::MockTimer>(timer_options);
  for (int i = 0; i < options.num_slots; ++i) {
    slots_.push_back(MakeTask<SlotTask>(this, i));
  }
  entry_.resize(static_cast<size_t>(options.num_slots));
  in_reference_.assign(static_cast<size_t>(options.num_slots), false);
}

TimerModel::~TimerModel() {
  mock_.reset();  // Drops the timer's references first.
}

int64_t TimerModel::Now() const { return mock_->clock().NowNanos(); }

int TimerModel::levels() const { return mock_->timer().Metrics().levels; }

std::string TimerModel::Apply(const Step& step) {
  Timer& timer = mock_->timer();
  std::ostringstream error;
  switch (step.kind) {
    case Step::Kind::kAdd: {
      const int64_t delay = step.delay <= absl::ZeroDuration()
                                ? 0
                                : absl::ToInt64Nanoseconds(step.delay);
      const int64_t due = AddSat(Now(), delay);
      // The same add through three entry points: Add(), AddAt()
      // at the clock's reading plus the delay, and a one-entry AddBatch().
      absl::Status status;
      switch (step.slot % 3) {
        case 0:
          status = timer.Add(slots_[step.slot], step.delay);
          break;
        case 1:
          status = timer.AddAt(slots_[step.slot], timer.Now() + step.delay);
          break;
        default: {
          const TimerBatchEntry entry{slots_[step.slot], step.delay};
          status = timer.AddBatch({&entry, 1});
          break;
        }
      }
      if (shut_down_) {
        if (status.code() != absl::StatusCode::kFailedPrecondition) {
          error << "add after shutdown returned " << status;
        }
        break;
      }
      if (!status.ok()) {
        error << "add returned " << status;
        break;
      }
      ++added_;
      if (in_reference_[step.slot]) reference_.erase(entry_[step.slot]);
      entry_[step.slot] = reference_.emplace(due, step.slot);
      in_reference_[step.slot] = true;
      break;
    }
    case Step::Kind::kCancel: {
      const bool expected = in_reference_[step.slot];
      const bool cancelled = timer.Cancel(*slots_[step.slot]);
      if (cancelled != expected) {
        error << "cancel returned " << cancelled << ", expected " << expected;
        break;
      }
      if (expected) {
        reference_.erase(entry_[step.slot]);
        in_reference_[step.slot] = false;
        ++cancelled_;
      }
      break;
    }
    case Step::Kind::kAdvance:
      error << Advance(absl::ToInt64Nanoseconds(step.advance));
      break;
    case Step::Kind::kAdvanceToNext: {
      int64_t delta = 0;
      if (!reference_.empty()) {
        const int64_t target =
            reference_.begin()->first - absl::ToInt64Nanoseconds(step.advance);
        delta = std::max<int64_t>(0, target - Now());
      }
      error << Advance(delta);
      break;
    }
    case Step::Kind::kShutdown: {
      std::vector<TaskPtr<TimerTask>> swept = timer.Shutdown();
      std::set<int> got;
      for (const TaskPtr<TimerTask>& task : swept) {
        const auto it = std::find_if(
            slots_.begin(), slots_.end(),
            [&](const TaskPtr<SlotTask>& s) { return s.get() == task.get(); });
        const int slot = static_cast<int>(it - slots_.begin());
        if (!got.insert(slot).second) {
          error << "shutdown returned slot " << slot << " twice; ";
        }
      }
      std::set<int> expected;
      for (const auto& [due, slot] : reference_) expected.insert(slot);
      if (got != expected) {
        error << "shutdown swept " << got.size() << " tasks, expected "
              << expected.size();
      }
      cancelled_ += static_cast<int64_t>(reference_.size());
      reference_.clear();
      in_reference_.assign(in_reference_.size(), false);
      shut_down_ = true;
      break;
    }
  }
  if (!runs_.empty()) {
    error << runs_.size() << " task(s) ran outside an advance; ";
    runs_.clear();
  }
  std::string result = error.str();
  if (result.empty()) result = CheckMetrics();
  if (!result.empty()) {
    result =
        step.ToString() + " at " + std::to_string(Now()) + " ns: " + result;
  }
  return result;
}

std::string TimerModel::Advance(int64_t nanos) {
  mock_->AdvanceBy(absl::Nanoseconds(nanos));
  const int64_t now = Now();
  std::ostringstream error;
  std::vector<bool> ran(slots_.size(), false);
  for (const Run& run : runs_) {
    if (ran[run.slot]) {
      error << "slot " << run.slot << " ran twice; ";
      continue;
    }
    ran[run.slot] = true;
    if (!in_reference_[run.slot]) {
      error << "slot " << run.slot << " ran but was not pending; ";
      continue;
    }
    const int64_t due = entry_[run.slot]->first;
    if (run.at < due) {
      error << "slot " << run.slot << " ran early at " << run.at << " (due "
            << due << "); ";
    }
    if (due > now) {
      error << "slot " << run.slot << " ran before the clock reached " << due
            << "; ";
    }
    reference_.erase(entry_[run.slot]);
    in_reference_[run.slot] = false;
    ++total_runs_;
  }
  runs_.clear();
  // Whatever is still due in the reference was lost.
  for (auto it = reference_.begin(); it != reference_.end() && it->first <= now;
       ++it) {
    error << "slot " << it->second << " due " << it->first << " did not run by "
          << now << "; ";
  }
  return error.str();
}

std::string TimerModel::CheckMetrics() const {
  const TimerMetrics m = mock_->timer().Metrics();
  const int64_t pending = static_cast<int64_t>(reference_.size());
  std::ostringstream error;
  if (m.pending != pending || mock_->timer().NumPending() != pending) {
    error << "pending " << m.pending << ", expected " << pending << "; ";
  }
  if (m.added != added_) error << "added " << m.added << " vs " << added_;
  if (m.expired != total_runs_) {
    error << "expired " << m.expired << " vs " << total_runs_ << "; ";
  }
  if (m.cancelled != cancelled_) {
    error << "cancelled " << m.cancelled << " vs " << cancelled_ << "; ";
  }
  if (m.callback_errors != 0) error << "callback errors; ";
  return error.str();
}

std::string TimerModel::Finish() {
  if (shut_down_) return "";
  Step shutdown;
  shutdown.kind = Step::Kind::kShutdown;
  return Apply(shutdown);
}

}  // namespace model
}  // namespace timingwheel
