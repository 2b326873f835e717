// Copyright 2026 The timingwheel Authors.
//
// pg_params.h
// -----------------------------------------------------------------------------
//
// Binary parameters and results for libpq, so that no value ever travels in
// SQL text: `PgParams` builds the arguments of `PQexecParams()` (integers,
// bytes, text, and one-dimensional arrays of them in PostgreSQL's binary
// array format), `PgResult` owns a result and decodes binary columns. Used
// by store.cc only.

#ifndef TIMINGWHEEL_DURABLE_SQL_PG_PARAMS_H_
#define TIMINGWHEEL_DURABLE_SQL_PG_PARAMS_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {

// PostgreSQL type oids used by the store.
inline constexpr Oid kBoolOid = 16;
inline constexpr Oid kByteaOid = 17;
inline constexpr Oid kInt8Oid = 20;
inline constexpr Oid kInt2Oid = 21;
inline constexpr Oid kInt4Oid = 23;
inline constexpr Oid kTextOid = 25;
inline constexpr Oid kBoolArrayOid = 1000;
inline constexpr Oid kByteaArrayOid = 1001;
inline constexpr Oid kInt2ArrayOid = 1005;
inline constexpr Oid kInt4ArrayOid = 1007;
inline constexpr Oid kTextArrayOid = 1009;
inline constexpr Oid kInt8ArrayOid = 1016;

// PgParams
//
// The parameters of one statement, all in binary format, in order ($1, $2,
// ...). Thread-compatible.
class PgParams {
 public:
  PgParams& Int64(int64_t value);
  PgParams& Int32(int32_t value);
  PgParams& Bool(bool value);
  PgParams& Bytes(absl::string_view value);
  PgParams& Text(absl::string_view value);  // Must be valid UTF-8.
  PgParams& Int64Array(const std::vector<int64_t>& values);
  PgParams& Int32Array(const std::vector<int32_t>& values);
  PgParams& Int16Array(const std::vector<int16_t>& values);
  PgParams& BoolArray(const std::vector<bool>& values);
  PgParams& BytesArray(const std::vector<absl::string_view>& values);
  PgParams& TextArray(const std::vector<absl::string_view>& values);  // UTF-8.

  int size() const { return static_cast<int>(values_.size()); }
  const Oid* types() const { return types_.data(); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  PgParams& Add(Oid type, std::string bytes);

  std::deque<std::string> storage_;  // Stable addresses for values_.
  std::vector<Oid> types_;
  std::vector<const char*> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

// PgResult
//
// Owns a `PGresult` whose columns are in binary format.
class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result, &PQclear) {}

  PGresult* get() const { return result_.get(); }
  int rows() const { return PQntuples(result_.get()); }
  bool IsNull(int row, int col) const {
    return PQgetisnull(result_.get(), row, col) != 0;
  }
  // An integer column (int2, int4, int8 or bool); 0 when NULL.
  int64_t Int(int row, int col) const;
  // A bytea or text column, as bytes; empty when NULL.
  std::string Bytes(int row, int col) const;

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> result_;
};

}  // namespace durable_internal
}  // namespace timingwheel

#endif  // TIMINGWHEEL_DURABLE_SQL_PG_PARAMS_H_
