// Copyright 2026 The timingwheel Authors.

#include "durable/recurrence/occurrence_id.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace timingwheel {
namespace durable_internal {
namespace {

std::string NamePart(absl::string_view name) {
  return absl::StrCat(kOccurrencePrefix, name.size(), ":", name, "@");
}

}  // namespace

std::string OccurrenceId(absl::string_view name, int64_t occurrence_us) {
  return absl::StrCat(NamePart(name), occurrence_us);
}

std::pair<std::string, std::string> OccurrenceRange(absl::string_view name) {
  std::string first = NamePart(name);
  std::string last = first;
  last.back() = '@' + 1;
  return {std::move(first), std::move(last)};
}

bool ParseOccurrenceId(absl::string_view id, std::string* name,
                       int64_t* occurrence_us) {
  if (!absl::ConsumePrefix(&id, kOccurrencePrefix)) return false;
  const size_t colon = id.find(':');
  if (colon == absl::string_view::npos) return false;
  size_t length = 0;
  if (!absl::SimpleAtoi(id.substr(0, colon), &length)) return false;
  id.remove_prefix(colon + 1);
  if (id.size() < length + 2 || id[length] != '@') return false;
  int64_t at = 0;
  if (!absl::SimpleAtoi(id.substr(length + 1), &at)) return false;
  *name = std::string(id.substr(0, length));
  *occurrence_us = at;
  return true;
}

}  // namespace durable_internal
}  // namespace timingwheel
