// Copyright 2026 The timingwheel Authors.

#include "tools/twctl/serve_routes.h"

#include <sys/socket.h>

#include <chrono>
#include <optional>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "durable/sql/redact.h"
#include "httplib.h"
#include "tools/twctl/serve_chart.h"
#include "tools/twctl/serve_html.h"
#include "tools/twctl/serve_pages.h"
#include "tools/twctl/serve_token.h"
#include "tools/twctl/status_summary.h"

namespace timingwheel {
namespace twctl {
namespace {

// The most due times a chart reads (a store with more tasks due within
// the hour shows the first ones only, and says so in the count).
constexpr int kChartCap = 100000;

constexpr char kHtml[] = "text/html; charset=utf-8";

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

void Send(httplib::Response& res, int status, std::string html) {
  res.status = status;
  res.set_content(std::move(html), kHtml);
}

// Whether the request carries the token given at start (the header
// X-Twctl-Token or the form field `token`); sends the 403 page when not.
bool Authorized(const DashboardOptions& o, const httplib::Request& req,
                httplib::Response& res) {
  std::string given = req.get_header_value("X-Twctl-Token");
  if (given.empty()) given = req.get_param_value("token");
  if (TokenAllows(o.token, given)) return true;
  Send(res, 403,
       MessagePage("Forbidden", o.token.empty()
                                    ? "read-only: twctl serve was started "
                                      "without --token"
                                    : "wrong or missing token"));
  return false;
}

// The id a request names: `idx` (hex, exact bytes) or `id` (as given).
std::optional<std::string> RequestedId(const httplib::Request& req) {
  if (req.has_param("idx")) return HexDecode(req.get_param_value("idx"));
  if (req.has_param("id")) return req.get_param_value("id");
  return std::nullopt;
}

int Limit(const httplib::Request& req, int fallback) {
  int limit = fallback;
  if (req.has_param("limit") &&
      (!absl::SimpleAtoi(req.get_param_value("limit"), &limit) || limit < 1 ||
       limit > 1000)) {
    return -1;
  }
  return limit;
}

// Every due time of tasks in `state` with due in [after, before), up to
// `cap` of them (paging through List()).
absl::Status CollectDue(AdminStore& store, TaskState state, absl::Time after,
                        absl::Time before, std::vector<absl::Time>* dues) {
  TaskFilter filter;
  filter.state = state;
  filter.due_after = after;
  filter.due_before = before;
  filter.limit = kMaxListLimit;
  for (;;) {
    absl::StatusOr<TaskPage> page = store.List(filter);
    if (!page.ok()) return page.status();
    for (const TaskSummary& t : page->tasks) dues->push_back(t.due);
    if (!page->more || static_cast<int>(dues->size()) >= kChartCap) break;
    filter.after_id = page->next_after;
  }
  return absl::OkStatus();
}

// The auto-refresh a request asks for: `refresh=off` (or 0), a period in
// seconds in [2, 3600], or the default; nullopt for anything else. `self`
// is the request's path and query without `refresh`.
std::optional<Refresh> RequestedRefresh(const httplib::Request& req) {
  Refresh refresh;
  refresh.seconds = kDefaultRefreshSeconds;
  std::vector<std::string> params;
  for (const auto& [name, value] : req.params) {
    if (name == "refresh") {
      if (value == "off" || value == "0") {
        refresh.seconds = 0;
      } else if (!absl::SimpleAtoi(value, &refresh.seconds) ||
                 refresh.seconds < 2 || refresh.seconds > 3600) {
        return std::nullopt;
      }
      continue;
    }
    params.push_back(absl::StrCat(UrlEncode(name), "=", UrlEncode(value)));
  }
  refresh.self = req.path;
  if (!params.empty())
    absl::StrAppend(&refresh.self, "?", absl::StrJoin(params, "&"));
  return refresh;
}

}  // namespace

Dashboard::Dashboard(AdminStore* store, DashboardOptions options)
    : store_(store), options_(std::move(options)) {}

absl::StatusOr<std::unique_ptr<Dashboard>> Dashboard::Start(
    AdminStore* store, DashboardOptions options) {
  if (options.page_size < 1 || options.page_size > 1000) {
    return absl::InvalidArgumentError("page size must be in [1, 1000]");
  }
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError("port must be in [0, 65535]");
  }
  std::unique_ptr<Dashboard> self(new Dashboard(store, std::move(options)));
  self->server_ = std::make_unique<httplib::Server>();
  self->Route();
  httplib::Server& server = *self->server_;
  // Address reuse only: httplib's default SO_REUSEPORT would let a second
  // server share the port silently.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    (void)setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  const std::string& host = self->options_.host;
  if (self->options_.port == 0) {
    self->port_ = std::max(0, server.bind_to_any_port(host));
  } else if (server.bind_to_port(host, self->options_.port)) {
    self->port_ = self->options_.port;
  }
  if (self->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", host, ":", self->options_.port,
                     " (in use, or not an address of this machine)"));
  }
  self->thread_ = std::thread([&server] { server.listen_after_bind(); });
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server.is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return absl::UnavailableError("the HTTP server did not start");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return self;
}

Dashboard::~Dashboard() { Stop(); }

void Dashboard::Stop() {
  std::lock_guard<std::mutex> lock(stop_mu_);
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

void Dashboard::Route() {
  httplib::Server& server = *server_;
  AdminStore& store = *store_;
  const DashboardOptions& o = options_;

  // A store error as a 503 page, never with the password; what the store
  // refused before asking the database (InvalidArgument: an empty id, one
  // over kMaxIdBytes) as the request's fault, a 400 that says why.
  const auto fail = [&o](httplib::Response& res, const absl::Status& status) {
    if (absl::IsInvalidArgument(status)) {
      return Send(res, 400,
                  MessagePage("Bad request",
                              durable_internal::ScrubSecrets(
                                  std::string(status.message()), o.secrets)));
    }
    Send(res, 503,
         MessagePage("Store unavailable", durable_internal::ScrubSecrets(
                                              status.ToString(), o.secrets)));
  };

  server.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) {
        res.set_header("Content-Security-Policy",
                       "default-src 'none'; style-src 'self'; img-src 'self'; "
                       "form-action 'self'; frame-ancestors 'none'; base-uri "
                       "'none'");
        res.set_header("X-Content-Type-Options", "nosniff");
        res.set_header("X-Frame-Options", "DENY");
        res.set_header("Referrer-Policy", "no-referrer");
        res.set_header("Cache-Control", "no-store");
        if (IsLoopback(options_.host)) {
          // A page of another site that rebinds its name to 127.0.0.1 sends
          // its own name as Host: refuse it.
          const std::string got = req.get_header_value("Host");
          const std::string port = absl::StrCat(":", port_);
          const std::string bracketed =
              options_.host == "::1" ? std::string("[::1]") : options_.host;
          if (got != bracketed + port && got != "localhost" + port &&
              got != bracketed && got != "localhost") {
            Send(res, 403,
                 MessagePage("Forbidden",
                             "This dashboard answers only to its own loopback "
                             "address (Host header refused)."));
            return httplib::Server::HandlerResponse::Handled;
          }
        }
        return httplib::Server::HandlerResponse::Unhandled;
      });

  server.Get("/static/dashboard.css",
             [](const httplib::Request&, httplib::Response& res) {
               res.set_content(kStylesheet, "text/css; charset=utf-8");
             });

  // The refresh a page asks for; false after sending a 400.
  const auto parse_refresh = [](const httplib::Request& req,
                                httplib::Response& res, Refresh* refresh) {
    std::optional<Refresh> r = RequestedRefresh(req);
    if (!r) {
      Send(res, 400,
           MessagePage("Bad request", "refresh: off, or 2 to 3600 seconds"));
      return false;
    }
    *refresh = *std::move(r);
    return true;
  };

  server.Get("/", [&store, &o, fail, parse_refresh](const httplib::Request& req,
                                                    httplib::Response& res) {
    Refresh refresh;
    if (!parse_refresh(req, res, &refresh)) return;
    absl::StatusOr<StoreStatus> status = store.Status();
    if (!status.ok()) return fail(res, status.status());
    const absl::Time now = status->db_now;
    std::vector<absl::Time> upcoming, overdue;
    absl::Status collected;
    for (TaskState state : {TaskState::kPending, TaskState::kScheduled}) {
      if (collected.ok()) {
        collected =
            CollectDue(store, state, now, now + absl::Hours(1), &upcoming);
      }
      if (collected.ok()) {
        collected = CollectDue(store, state, absl::UnixEpoch(),
                               now + absl::Microseconds(1), &overdue);
      }
    }
    if (!collected.ok()) return fail(res, collected);
    Send(res, 200,
         OverviewPage(*status, Summarize(*status, o.stale_after),
                      DueHistogram(upcoming, now),
                      LatenessHistogram(overdue, now), refresh));
  });

  server.Get(
      "/slots", [&store, &o, fail, parse_refresh](const httplib::Request& req,
                                                  httplib::Response& res) {
        Refresh refresh;
        if (!parse_refresh(req, res, &refresh)) return;
        absl::StatusOr<StoreStatus> status = store.Status();
        if (!status.ok()) return fail(res, status.status());
        Send(res, 200,
             SlotsPage(*status, Summarize(*status, o.stale_after), refresh));
      });

  server.Get("/schedules", [&store, &o, fail, parse_refresh](
                               const httplib::Request& req,
                               httplib::Response& res) {
    Refresh refresh;
    if (!parse_refresh(req, res, &refresh)) return;
    absl::StatusOr<std::vector<ScheduleInfo>> schedules = store.Schedules();
    if (!schedules.ok()) return fail(res, schedules.status());
    absl::StatusOr<absl::Time> now = store.DbNow();
    if (!now.ok()) return fail(res, now.status());
    Send(res, 200, SchedulesPage(*schedules, *now, refresh, !o.token.empty()));
  });

  // The filter of a paged list (state, kind, occurrences, afterx, limit)
  // and what the page shows of it; false after sending a 400 for bad
  // parameters. Recurring occurrences are left out unless
  // `occurrences=include|only` or `schedulex=HEX` (one schedule's only),
  // as `twctl list` does.
  const auto parse_filter = [&o](const httplib::Request& req,
                                 httplib::Response& res, TaskFilter* filter,
                                 TaskList* list) {
    filter->limit = Limit(req, o.page_size);
    if (filter->limit < 0) {
      Send(res, 400, MessagePage("Bad request", "limit: 1 to 1000"));
      return false;
    }
    if (req.has_param("state")) {
      filter->state = ParseTaskState(req.get_param_value("state"));
      if (!filter->state) {
        Send(res, 400, MessagePage("Bad request", "unknown state"));
        return false;
      }
    }
    // The kind: `kindx` (hex, exact; empty: the default kind) from links,
    // or `kind` (text; empty: every kind) from the filter form.
    if (req.has_param("kindx")) {
      filter->kind = HexDecode(req.get_param_value("kindx"));
      if (!filter->kind) {
        Send(res, 400, MessagePage("Bad request", "kindx: hex bytes"));
        return false;
      }
    } else if (req.has_param("kind") && !req.get_param_value("kind").empty()) {
      filter->kind = req.get_param_value("kind");
    }
    if (filter->kind) {
      absl::Status valid = CheckKindFilter(*filter->kind);
      if (!valid.ok()) {
        Send(res, 400,
             MessagePage("Bad request",
                         absl::StrCat("kind: ", valid.message())));
        return false;
      }
    }
    if (req.has_param("afterx")) {
      filter->after_id = HexDecode(req.get_param_value("afterx"));
      if (!filter->after_id) {
        Send(res, 400, MessagePage("Bad request", "afterx: hex bytes"));
        return false;
      }
    }
    filter->occurrences = TaskFilter::Occurrences::kExclude;
    if (req.has_param("occurrences")) {
      const std::string value = req.get_param_value("occurrences");
      if (value == "include") {
        filter->occurrences = TaskFilter::Occurrences::kInclude;
      } else if (value == "only") {
        filter->occurrences = TaskFilter::Occurrences::kOnly;
      } else if (value != "exclude") {
        Send(res, 400,
             MessagePage("Bad request",
                         "occurrences: include, only or exclude"));
        return false;
      }
    }
    if (req.has_param("schedulex")) {
      std::optional<std::string> name =
          HexDecode(req.get_param_value("schedulex"));
      if (!name || name->empty() || name->size() > kMaxScheduleNameBytes) {
        Send(res, 400,
             MessagePage("Bad request", "schedulex: a schedule's name, hex"));
        return false;
      }
      // The ids of one schedule's occurrences (occurrence_id.h).
      filter->id_prefix =
          absl::StrCat("\x1btw-schedule:", name->size(), ":", *name, "@");
      filter->occurrences = TaskFilter::Occurrences::kOnly;
      list->schedule = std::move(name);
    }
    list->state = filter->state;
    list->kind = filter->kind;
    list->occurrences = filter->occurrences;
    return true;
  };

  server.Get("/tasks",
             [&store, fail, parse_filter, parse_refresh](
                 const httplib::Request& req, httplib::Response& res) {
               TaskFilter filter;
               TaskList list;
               Refresh refresh;
               if (!parse_filter(req, res, &filter, &list)) return;
               if (!parse_refresh(req, res, &refresh)) return;
               absl::StatusOr<TaskPage> page = store.List(filter);
               if (!page.ok()) return fail(res, page.status());
               Send(res, 200, TasksPage(list, *page, filter.limit, refresh));
             });

  server.Get(
      "/failed", [&store, &o, fail, parse_filter](const httplib::Request& req,
                                                  httplib::Response& res) {
        TaskFilter filter;
        TaskList list;
        if (!parse_filter(req, res, &filter, &list)) return;
        filter.state = TaskState::kFailed;
        absl::StatusOr<TaskPage> page = store.List(filter);
        if (!page.ok()) return fail(res, page.status());
        std::vector<TaskDetail> details;
        for (const TaskSummary& t : page->tasks) {
          absl::StatusOr<TaskDetail> detail = store.Show(t.id);
          if (absl::IsNotFound(detail.status())) continue;  // Gone meanwhile.
          if (!detail.ok()) return fail(res, detail.status());
          details.push_back(*std::move(detail));
        }
        Send(res, 200,
             FailedPage(details, *page, filter.limit, !o.token.empty(), list));
      });

  server.Get("/task", [&store, &o, fail](const httplib::Request& req,
                                         httplib::Response& res) {
    std::optional<std::string> id = RequestedId(req);
    if (!id) {
      return Send(res, 400, MessagePage("Bad request", "idx (hex) or id"));
    }
    absl::StatusOr<TaskDetail> detail = store.Show(*id);
    if (absl::IsNotFound(detail.status())) {
      return Send(res, 404,
                  MessagePage("Not found", absl::StrCat("no task ", *id)));
    }
    if (!detail.ok()) return fail(res, detail.status());
    Send(res, 200, TaskDetailPage(*detail, !o.token.empty()));
  });

  // POST actions: the token, then the id, then the store.
  const auto action = [&store, &o, fail](absl::string_view name) {
    return [&store, &o, fail, name](const httplib::Request& req,
                                    httplib::Response& res) {
      if (!Authorized(o, req, res)) return;
      std::optional<std::string> id = RequestedId(req);
      if (!id) {
        return Send(res, 400, MessagePage("Bad request", "idx (hex) or id"));
      }
      absl::StatusOr<ActionResult> result =
          name == "Retry" ? store.Retry(*id, AdminDue::Now())
                          : store.Cancel(*id);
      if (!result.ok()) return fail(res, result.status());
      const int code = result->outcome == ActionOutcome::kDone       ? 200
                       : result->outcome == ActionOutcome::kNotFound ? 404
                                                                     : 409;
      Send(res, code, ActionPage(name, *id, *result));
    };
  };
  server.Post("/retry", action("Retry"));
  server.Post("/cancel", action("Cancel"));

  // POST schedule actions: the token, then the schedule's name (`namex`,
  // hex), then the store.
  const auto schedule_action = [&store, &o, fail](absl::string_view name) {
    return [&store, &o, fail, name](const httplib::Request& req,
                                    httplib::Response& res) {
      if (!Authorized(o, req, res)) return;
      std::optional<std::string> schedule;
      if (req.has_param("namex")) {
        schedule = HexDecode(req.get_param_value("namex"));
      }
      if (!schedule) {
        return Send(res, 400, MessagePage("Bad request", "namex (hex)"));
      }
      absl::Status status = name == "Pause" ? store.PauseSchedule(*schedule)
                                            : store.ResumeSchedule(*schedule);
      if (absl::IsInvalidArgument(status)) {
        return Send(res, 400, MessagePage("Bad request", status.message()));
      }
      if (absl::IsFailedPrecondition(status)) {
        return Send(res, 409, MessagePage("Refused", status.message()));
      }
      if (!status.ok() && !absl::IsNotFound(status)) return fail(res, status);
      Send(res, status.ok() ? 200 : 404,
           ScheduleActionPage(name, *schedule, status.ok()));
    };
  };
  server.Post("/pause-schedule", schedule_action("Pause"));
  server.Post("/resume-schedule", schedule_action("Resume"));

  const auto post_only = [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Allow", "POST");
    Send(res, 405, MessagePage("Method not allowed", "actions are POST only"));
  };
  server.Get("/retry", post_only);
  server.Get("/cancel", post_only);
  server.Get("/pause-schedule", post_only);
  server.Get("/resume-schedule", post_only);

  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) {
      Send(res, 404, MessagePage("Not found", "no such page"));
    }
  });
}

}  // namespace twctl
}  // namespace timingwheel
