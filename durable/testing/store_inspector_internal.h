// Copyright 2026 The timingwheel Authors.
//
// store_inspector_internal.h
// -----------------------------------------------------------------------------
//
// The statement runners StoreInspector's files share: each opens a
// connection of its own, runs one constant statement with its parameters,
// and closes it. Not for use outside store_inspector*.cc.

#ifndef TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_INTERNAL_H_
#define TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "durable/sql/pg_params.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_testing {
namespace store_inspector_internal {

struct ConnCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;

// Connect()
//
// A new connection to `conninfo` (server notices dropped), or Unavailable.
absl::StatusOr<Conn> Connect(const std::string& conninfo);

// Run()
//
// The result of the constant statement `sql` with `params`.
absl::StatusOr<durable_internal::PgResult> Run(
    const std::string& conninfo, const std::string& sql,
    const durable_internal::PgParams& params = durable_internal::PgParams());

// RunInt()
//
// The one integer a one-row, one-column statement returns.
absl::StatusOr<int64_t> RunInt(
    const std::string& conninfo, const std::string& sql,
    const durable_internal::PgParams& params = durable_internal::PgParams());

// RunWrite()
//
// The number of rows a write changed.
absl::StatusOr<int64_t> RunWrite(
    const std::string& conninfo, const std::string& sql,
    const durable_internal::PgParams& params = durable_internal::PgParams());

}  // namespace store_inspector_internal
}  // namespace durable_testing
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_TESTING_STORE_INSPECTOR_INTERNAL_H_
