// Copyright 2026 The timingwheel Authors.
//
// twctl cancel, retry, reschedule, discard: the writes on one task; and
// retry-failed, the retry of every FAILED task a prefix matches.

#include <string>

#include "absl/strings/str_cat.h"
#include "tools/twctl/commands.h"
#include "tools/twctl/output.h"

namespace timingwheel {
namespace twctl {
namespace {

const char* OutcomeName(ActionOutcome outcome) {
  switch (outcome) {
    case ActionOutcome::kDone:
      return "done";
    case ActionOutcome::kNotFound:
      return "not_found";
    case ActionOutcome::kWrongState:
      return "wrong_state";
  }
  return "unknown";
}

int ExitCodeOf(ActionOutcome outcome) {
  switch (outcome) {
    case ActionOutcome::kDone:
      return kExitOk;
    case ActionOutcome::kNotFound:
      return kExitNotFound;
    case ActionOutcome::kWrongState:
      return kExitRefused;
  }
  return kExitOther;
}

// Prints `result` for `id` and returns its exit code.
int Report(Context& context, const std::string& id,
           const absl::StatusOr<ActionResult>& result, bool has_due) {
  if (!result.ok()) return Fail(context, result.status());
  const bool found = result->outcome != ActionOutcome::kNotFound;
  const bool done = result->outcome == ActionOutcome::kDone;
  if (context.args->json) {
    JsonWriter j;
    j.BeginObject();
    WriteBytesField(j, "id", id);
    j.Key("outcome").String(OutcomeName(result->outcome));
    j.Key("before");
    if (found) {
      j.String(TaskStateName(result->before));
    } else {
      j.Null();
    }
    j.Key("after");
    if (done && !has_due) {
      j.Null();  // Cancelled: the row is gone.
    } else if (found) {
      j.String(TaskStateName(result->after));
    } else {
      j.Null();
    }
    j.Key("due");
    if (done && has_due) {
      j.Time(result->due);
    } else {
      j.Null();
    }
    j.Key("notified").Bool(result->notified);
    j.Key("message").String(result->message);
    j.EndObject();
    *context.out << j.str() << "\n";
  } else {
    (done ? *context.out : *context.err)
        << (done ? "" : "twctl: ") << EscapeBytes(id) << ": " << result->message
        << "\n";
  }
  return ExitCodeOf(result->outcome);
}

// The task id argument, unescaped.
absl::StatusOr<std::string> IdArg(Context& context) {
  return UnescapeBytes(context.args->positional[0]);
}

// `--at` as an AdminDue (relative times against the database's now).
absl::StatusOr<AdminDue> DueFromAt(const std::string& text) {
  absl::StatusOr<TimeArg> t = ParseTimeArg(text);
  if (!t.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--at: ", t.status().message()));
  }
  return t->relative ? AdminDue::In(t->offset) : AdminDue::At(t->at);
}

}  // namespace

int RunCancel(Context& context) {
  absl::StatusOr<std::string> id = IdArg(context);
  if (!id.ok()) return Fail(context, id.status());
  return Report(context, *id, context.admin->Cancel(*id), /*has_due=*/false);
}

int RunRetry(Context& context) {
  absl::StatusOr<std::string> id = IdArg(context);
  if (!id.ok()) return Fail(context, id.status());
  AdminDue due = AdminDue::Now();
  if (std::optional<std::string> at = context.args->Value("at")) {
    absl::StatusOr<AdminDue> parsed = DueFromAt(*at);
    if (!parsed.ok()) return Fail(context, parsed.status());
    due = *parsed;
  }
  return Report(context, *id, context.admin->Retry(*id, due),
                /*has_due=*/true);
}

int RunDiscard(Context& context) {
  absl::StatusOr<std::string> id = IdArg(context);
  if (!id.ok()) return Fail(context, id.status());
  return Report(context, *id, context.admin->Discard(*id), /*has_due=*/false);
}

int RunRetryFailed(Context& context) {
  AdminDue due = AdminDue::Now();
  if (std::optional<std::string> at = context.args->Value("at")) {
    absl::StatusOr<AdminDue> parsed = DueFromAt(*at);
    if (!parsed.ok()) return Fail(context, parsed.status());
    due = *parsed;
  }
  TaskFilter filter;
  if (std::optional<std::string> prefix = context.args->Value("prefix")) {
    absl::StatusOr<std::string> bytes = UnescapeBytes(*prefix);
    if (!bytes.ok()) return Fail(context, bytes.status());
    filter.id_prefix = *bytes;
  }
  absl::StatusOr<std::optional<std::string>> kind = KindFlag(*context.args);
  if (!kind.ok()) return Fail(context, kind.status());
  filter.kind = *kind;
  filter.limit = 1000;
  absl::StatusOr<int64_t> retried = context.admin->RetryMatching(filter, due);
  if (!retried.ok()) return Fail(context, retried.status());
  if (context.args->json) {
    JsonWriter j;
    j.BeginObject();
    j.Key("retried").Int(*retried);
    j.EndObject();
    *context.out << j.str() << "\n";
  } else {
    *context.out << "retried " << *retried << " FAILED "
                 << (*retried == 1 ? "task" : "tasks") << "\n";
  }
  return kExitOk;
}

int RunReschedule(Context& context) {
  absl::StatusOr<std::string> id = IdArg(context);
  if (!id.ok()) return Fail(context, id.status());
  std::optional<std::string> at = context.args->Value("at");
  std::optional<std::string> in = context.args->Value("in");
  if (at.has_value() == in.has_value()) {
    return Fail(context, absl::InvalidArgumentError(
                             "reschedule needs exactly one of --at and --in"));
  }
  AdminDue due;
  if (at.has_value()) {
    absl::StatusOr<AdminDue> parsed = DueFromAt(*at);
    if (!parsed.ok()) return Fail(context, parsed.status());
    due = *parsed;
  } else {
    absl::StatusOr<absl::Duration> d = ParseDurationArg(*in);
    if (!d.ok()) {
      return Fail(context, absl::InvalidArgumentError(
                               absl::StrCat("--in: ", d.status().message())));
    }
    due = AdminDue::In(*d);
  }
  return Report(context, *id, context.admin->Reschedule(*id, due),
                /*has_due=*/true);
}

}  // namespace twctl
}  // namespace timingwheel
