// Copyright 2026 The timingwheel Authors.

#include "durable/handler_outcome.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace timingwheel {
namespace {

// The payload's type URL; its value is "<verb> <delay in microseconds>".
constexpr char kVerdictUrl[] = "type.timingwheel/durable.HandlerVerdict";

absl::Status WithVerdict(absl::Status status, absl::string_view verb,
                         absl::Duration delay) {
  const int64_t micros =
      absl::ToInt64Microseconds(durable_internal::ClampVerdictDelay(delay));
  status.SetPayload(kVerdictUrl, absl::Cord(absl::StrCat(verb, " ", micros)));
  return status;
}

}  // namespace

absl::Status Snooze(absl::Duration delay) {
  return WithVerdict(absl::UnavailableError(absl::StrCat(
                         "snoozed for ", absl::FormatDuration(delay))),
                     "snooze", delay);
}

absl::Status Discard(absl::string_view reason) {
  return WithVerdict(absl::FailedPreconditionError(reason), "discard",
                     absl::ZeroDuration());
}

absl::Status RetryAfter(absl::Duration delay, absl::string_view reason) {
  return WithVerdict(absl::UnavailableError(reason), "retry", delay);
}

namespace durable_internal {

absl::Duration ClampVerdictDelay(absl::Duration delay) {
  return std::min(std::max(delay, absl::ZeroDuration()), kMaxVerdictDelay);
}

std::string OutcomeErrorText(std::string text) {
  if (text.size() <= kMaxOutcomeErrorBytes) return text;
  size_t keep = kMaxOutcomeErrorBytes;
  // Back up over UTF-8 continuation bytes (10xxxxxx) to a character start.
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) {
    --keep;
  }
  const size_t cut = text.size() - keep;
  text.resize(keep);
  absl::StrAppend(&text, " [", cut, " more bytes cut]");
  return text;
}

std::string HandlerErrorText(const absl::Status& status) {
  if (!status.GetPayload(kVerdictUrl).has_value()) {
    return OutcomeErrorText(status.ToString());
  }
  if (ReadVerdict(status).kind == HandlerVerdict::kDiscard) {
    return OutcomeErrorText(std::string(status.message()));
  }
  absl::Status shown = status;
  shown.ErasePayload(kVerdictUrl);
  return OutcomeErrorText(shown.ToString());
}

HandlerVerdict ReadVerdict(const absl::Status& status) {
  HandlerVerdict verdict;
  if (status.ok()) return verdict;
  verdict.kind = HandlerVerdict::kFailure;
  absl::optional<absl::Cord> payload = status.GetPayload(kVerdictUrl);
  if (!payload.has_value()) return verdict;
  const std::string text(*payload);
  const size_t space = text.find(' ');
  int64_t micros = 0;
  if (space == std::string::npos ||
      !absl::SimpleAtoi(text.substr(space + 1), &micros) || micros < 0) {
    return verdict;
  }
  const std::string verb = text.substr(0, space);
  if (verb == "snooze") {
    verdict.kind = HandlerVerdict::kSnooze;
  } else if (verb == "discard") {
    verdict.kind = HandlerVerdict::kDiscard;
  } else if (verb == "retry") {
    verdict.kind = HandlerVerdict::kRetryAfter;
  } else {
    return verdict;
  }
  verdict.delay = ClampVerdictDelay(absl::Microseconds(micros));
  return verdict;
}

}  // namespace durable_internal
}  // namespace timingwheel
