// Copyright 2026 The timingwheel Authors.

#include "durable/testing/pg_proxy.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_testing {
namespace {

// Startup-phase request codes (the second word of an untyped packet).
constexpr uint32_t kSslRequest = 80877103;
constexpr uint32_t kGssEncRequest = 80877104;
// A direction stops reading while this much waits unsent on the other.
constexpr size_t kMaxPending = 1 << 20;
// Larger startup packets are not PostgreSQL's.
constexpr uint32_t kMaxStartupLength = 10000;

uint32_t ReadBe32(const std::string& buffer, size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(buffer.data() + at);
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
         (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// CString()
//
// The NUL-terminated string at `*at` in `body`; moves `*at` past the NUL.
std::string CString(const std::string& body, size_t* at) {
  if (*at >= body.size()) return "";
  size_t end = body.find('\0', *at);
  if (end == std::string::npos) end = body.size();
  std::string s = body.substr(*at, end - *at);
  *at = end + 1;
  return s;
}

// Quote()
//
// `value` as a single-quoted conninfo value.
std::string Quote(const char* value) {
  std::string out = "'";
  for (const char* c = value; *c != '\0'; ++c) {
    if (*c == '\'' || *c == '\\') out += '\\';
    out += *c;
  }
  out += '\'';
  return out;
}

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

// Connection: one client and its server connection. Owned and used by the
// proxy's thread only.
struct Connection {
  int client = -1;
  int server = -1;
  std::string from_client;  // Bytes read, not yet a whole message.
  std::string from_server;
  std::string to_client;  // Bytes to write.
  std::string to_server;
  bool started = false;     // The startup packet has passed.
  bool swallowing = false;  // Dropping server messages up to 'Z'.
  bool dropped = false;     // The drop is complete: close.
  bool dead = false;        // A side closed or failed: close.
  // Parse text per prepared statement name ("" is the unnamed one).
  std::map<std::string, std::string> statements;
};

// Flush()
//
// Writes as much of `*out` to `fd` as it takes now. False on a write error.
bool Flush(int fd, std::string* out) {
  while (!out->empty()) {
    ssize_t n = send(fd, out->data(), out->size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    out->erase(0, static_cast<size_t>(n));
  }
  return true;
}

// Fill()
//
// Appends what `fd` has to `*in`. False on end of stream or error.
bool Fill(int fd, std::string* in) {
  char buffer[16384];
  while (true) {
    ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n > 0) {
      in->append(buffer, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof(buffer)) return true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

void Close(Connection* c) {
  // Best effort: what is already due to either side goes first.
  if (c->client >= 0) Flush(c->client, &c->to_client);
  if (c->server >= 0) Flush(c->server, &c->to_server);
  CloseFd(&c->client);
  CloseFd(&c->server);
}

absl::StatusOr<int> ConnectUnix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("socket path too long: ", path));
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError("socket() failed");
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return absl::UnavailableError(
        absl::StrCat("connect(", path, "): ", std::strerror(errno)));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

// ParseClient()
//
// Moves every whole message of `c->from_client` to `c->to_server`
// (answering SSL and GSS encryption requests itself). `take_drop` is asked
// about each statement's SQL text. False on a malformed stream.
template <typename TakeDrop>
bool ParseClient(Connection* c, TakeDrop take_drop) {
  std::string& in = c->from_client;
  while (true) {
    if (!c->started) {
      if (in.size() < 8) return true;
      const uint32_t length = ReadBe32(in, 0);
      if (length < 8 || length > kMaxStartupLength) return false;
      if (in.size() < length) return true;
      const uint32_t code = ReadBe32(in, 4);
      if (code == kSslRequest || code == kGssEncRequest) {
        c->to_client += 'N';
      } else {
        c->to_server.append(in, 0, length);
        c->started = true;
      }
      in.erase(0, length);
      continue;
    }
    if (in.size() < 5) return true;
    const uint32_t length = ReadBe32(in, 1);
    if (length < 4) return false;
    const size_t total = size_t{length} + 1;
    if (in.size() < total) return true;
    const char type = in[0];
    const std::string body = in.substr(5, total - 5);
    size_t at = 0;
    std::string sql;
    bool has_sql = false;
    if (type == 'Q') {
      sql = CString(body, &at);
      has_sql = true;
    } else if (type == 'P') {
      std::string name = CString(body, &at);
      sql = CString(body, &at);
      c->statements[name] = sql;
      has_sql = true;
    } else if (type == 'B') {
      CString(body, &at);  // The portal.
      auto it = c->statements.find(CString(body, &at));
      if (it != c->statements.end()) {
        sql = it->second;
        has_sql = true;
      }
    }
    c->to_server.append(in, 0, total);
    in.erase(0, total);
    if (has_sql && !c->swallowing && take_drop(sql)) c->swallowing = true;
  }
}

// ParseServer()
//
// Moves every whole message of `c->from_server` to `c->to_client`, or drops
// it while swallowing (which ends at a ReadyForQuery). False on a malformed
// stream.
bool ParseServer(Connection* c) {
  std::string& in = c->from_server;
  while (!c->dropped) {
    if (in.size() < 5) return true;
    const uint32_t length = ReadBe32(in, 1);
    if (length < 4) return false;
    const size_t total = size_t{length} + 1;
    if (in.size() < total) return true;
    const char type = in[0];
    if (!c->swallowing) {
      c->to_client.append(in, 0, total);
    } else if (type == 'Z') {
      c->dropped = true;
    }
    in.erase(0, total);
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<PgProxy>> PgProxy::Start(
    const std::string& upstream_conninfo) {
  char* error = nullptr;
  PQconninfoOption* options =
      PQconninfoParse(upstream_conninfo.c_str(), &error);
  if (options == nullptr) {
    std::string message = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    return absl::InvalidArgumentError(
        absl::StrCat("cannot parse the conninfo: ", message));
  }
  std::unique_ptr<PgProxy> proxy(new PgProxy());
  std::string host;
  std::string port = "5432";
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    if (std::strcmp(o->keyword, "host") == 0) host = o->val;
    if (std::strcmp(o->keyword, "port") == 0 && *o->val != '\0') port = o->val;
  }
  if (host.empty() || host[0] != '/' || host.find(',') != std::string::npos ||
      port.find(',') != std::string::npos) {
    PQconninfoFree(options);
    return absl::InvalidArgumentError(
        "the upstream host must be one Unix socket directory");
  }
  char dir[] = "/tmp/twpgproxy.XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    PQconninfoFree(options);
    return absl::InternalError("mkdtemp failed");
  }
  proxy->dir_ = dir;
  proxy->upstream_path_ = absl::StrCat(host, "/.s.PGSQL.", port);
  proxy->socket_path_ = absl::StrCat(proxy->dir_, "/.s.PGSQL.", port);
  std::string conninfo;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    const bool is_host = std::strcmp(o->keyword, "host") == 0;
    absl::StrAppend(&conninfo, conninfo.empty() ? "" : " ", o->keyword, "=",
                    Quote(is_host ? dir : o->val));
  }
  PQconninfoFree(options);
  proxy->conninfo_ = conninfo;

  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (proxy->socket_path_.size() >= sizeof(addr.sun_path)) {
    return absl::InternalError("socket path too long");
  }
  std::memcpy(addr.sun_path, proxy->socket_path_.c_str(),
              proxy->socket_path_.size() + 1);
  proxy->listen_fd_ =
      socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (proxy->listen_fd_ < 0 ||
      bind(proxy->listen_fd_, reinterpret_cast<sockaddr*>(&addr),
           sizeof(addr)) != 0 ||
      listen(proxy->listen_fd_, 64) != 0) {
    return absl::InternalError(absl::StrCat(
        "cannot listen at ", proxy->socket_path_, ": ", std::strerror(errno)));
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) {
    return absl::InternalError("pipe2 failed");
  }
  proxy->wake_read_fd_ = pipe_fds[0];
  proxy->wake_write_fd_ = pipe_fds[1];
  proxy->thread_ = std::thread([p = proxy.get()] { p->Run(); });
  return proxy;
}

PgProxy::~PgProxy() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    Wake();
    thread_.join();
  }
  CloseFd(&listen_fd_);
  CloseFd(&wake_read_fd_);
  CloseFd(&wake_write_fd_);
  if (!socket_path_.empty()) unlink(socket_path_.c_str());
  if (!dir_.empty()) rmdir(dir_.c_str());
}

void PgProxy::DropReplyTo(std::string sql_substring) {
  std::lock_guard<std::mutex> lock(mu_);
  drop_armed_ = true;
  drop_substring_ = std::move(sql_substring);
  drops_at_arm_ = drops_;
}

bool PgProxy::WaitDropped(absl::Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout), [this] {
    return !drop_armed_ && drops_ > drops_at_arm_;
  });
}

void PgProxy::CutAll() {
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t target = ++cuts_requested_;
  Wake();
  cv_.wait(lock, [&] { return cuts_done_ >= target || stop_; });
}

void PgProxy::SetRefuseNew(bool refuse) {
  std::lock_guard<std::mutex> lock(mu_);
  refuse_new_ = refuse;
}

int64_t PgProxy::drops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return drops_;
}

int64_t PgProxy::connections_accepted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return accepted_;
}

void PgProxy::Wake() {
  const char byte = 1;
  // A full pipe already wakes the loop.
  ssize_t ignored = write(wake_write_fd_, &byte, 1);
  (void)ignored;
}

bool PgProxy::TakeDrop(const std::string& sql) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!drop_armed_ || sql.find(drop_substring_) == std::string::npos) {
    return false;
  }
  drop_armed_ = false;
  return true;
}

void PgProxy::Run() {
  std::vector<std::unique_ptr<Connection>> connections;
  std::vector<pollfd> fds;
  auto take_drop = [this](const std::string& sql) { return TakeDrop(sql); };
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) break;
      if (cuts_done_ < cuts_requested_) {
        for (auto& c : connections) Close(c.get());
        connections.clear();
        cuts_done_ = cuts_requested_;
        cv_.notify_all();
      }
    }
    fds.clear();
    fds.push_back({wake_read_fd_, POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (auto& c : connections) {
      short client_events = c->to_server.size() < kMaxPending ? POLLIN : 0;
      if (!c->to_client.empty()) client_events |= POLLOUT;
      short server_events = c->to_client.size() < kMaxPending ? POLLIN : 0;
      if (!c->to_server.empty()) server_events |= POLLOUT;
      fds.push_back({c->client, client_events, 0});
      fds.push_back({c->server, server_events, 0});
    }
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) {
      char drain[64];
      while (read(wake_read_fd_, drain, sizeof(drain)) > 0) {
      }
    }
    const size_t polled = connections.size();
    for (size_t i = 0; i < polled; ++i) {
      Connection* c = connections[i].get();
      const short client = fds[2 + 2 * i].revents;
      const short server = fds[3 + 2 * i].revents;
      if ((client & (POLLIN | POLLHUP | POLLERR)) != 0) {
        if (!Fill(c->client, &c->from_client)) c->dead = true;
        if (!ParseClient(c, take_drop)) c->dead = true;
      }
      if ((server & (POLLIN | POLLHUP | POLLERR)) != 0) {
        if (!Fill(c->server, &c->from_server)) c->dead = true;
        if (!ParseServer(c)) c->dead = true;
      }
      if (!c->dropped) {
        if (!Flush(c->client, &c->to_client)) c->dead = true;
        if (!Flush(c->server, &c->to_server)) c->dead = true;
      }
    }
    int64_t new_drops = 0;
    for (auto it = connections.begin(); it != connections.end();) {
      Connection* c = it->get();
      if (c->dropped || c->dead) {
        if (c->dropped) ++new_drops;
        Close(c);
        it = connections.erase(it);
      } else {
        ++it;
      }
    }
    if (new_drops > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      drops_ += new_drops;
      cv_.notify_all();
    }
    if ((fds[1].revents & POLLIN) != 0) {
      while (true) {
        int client =
            accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client < 0) break;
        bool refuse;
        {
          std::lock_guard<std::mutex> lock(mu_);
          ++accepted_;
          refuse = refuse_new_;
        }
        absl::StatusOr<int> server = refuse ? absl::UnavailableError("refused")
                                            : ConnectUnix(upstream_path_);
        if (!server.ok()) {
          close(client);
          continue;
        }
        auto c = std::make_unique<Connection>();
        c->client = client;
        c->server = *server;
        connections.push_back(std::move(c));
      }
    }
  }
  for (auto& c : connections) Close(c.get());
  std::lock_guard<std::mutex> lock(mu_);
  cuts_done_ = cuts_requested_;
  cv_.notify_all();
}

}  // namespace durable_testing
}  // namespace timingwheel
