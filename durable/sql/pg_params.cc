// Copyright 2026 The timingwheel Authors.

#include "durable/sql/pg_params.h"

#include <utility>

namespace timingwheel {
namespace durable_internal {
namespace {

void PutBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  }
}

uint64_t GetBigEndian(const char* data, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value = (value << 8) | static_cast<unsigned char>(data[i]);
  }
  return value;
}

// The header of a one-dimensional binary array of `count` elements of
// `element_type` (PostgreSQL's array_recv format).
std::string ArrayHeader(Oid element_type, size_t count) {
  std::string out;
  PutBigEndian(out, count == 0 ? 0 : 1, 4);  // Dimensions.
  PutBigEndian(out, 0, 4);                   // No NULLs.
  PutBigEndian(out, element_type, 4);
  if (count > 0) {
    PutBigEndian(out, count, 4);  // Length of the dimension.
    PutBigEndian(out, 1, 4);      // Lower bound.
  }
  return out;
}

}  // namespace

PgParams& PgParams::Add(Oid type, std::string bytes) {
  storage_.push_back(std::move(bytes));
  types_.push_back(type);
  values_.push_back(storage_.back().data());
  lengths_.push_back(static_cast<int>(storage_.back().size()));
  formats_.push_back(1);
  return *this;
}

PgParams& PgParams::Int64(int64_t value) {
  std::string out;
  PutBigEndian(out, static_cast<uint64_t>(value), 8);
  return Add(kInt8Oid, std::move(out));
}

PgParams& PgParams::Int32(int32_t value) {
  std::string out;
  PutBigEndian(out, static_cast<uint32_t>(value), 4);
  return Add(kInt4Oid, std::move(out));
}

PgParams& PgParams::Bool(bool value) {
  return Add(kBoolOid, std::string(1, value ? 1 : 0));
}

PgParams& PgParams::Bytes(absl::string_view value) {
  return Add(kByteaOid, std::string(value));
}

PgParams& PgParams::Text(absl::string_view value) {
  return Add(kTextOid, std::string(value));
}

PgParams& PgParams::Int64Array(const std::vector<int64_t>& values) {
  std::string out = ArrayHeader(kInt8Oid, values.size());
  for (int64_t v : values) {
    PutBigEndian(out, 8, 4);
    PutBigEndian(out, static_cast<uint64_t>(v), 8);
  }
  return Add(kInt8ArrayOid, std::move(out));
}

PgParams& PgParams::Int32Array(const std::vector<int32_t>& values) {
  std::string out = ArrayHeader(kInt4Oid, values.size());
  for (int32_t v : values) {
    PutBigEndian(out, 4, 4);
    PutBigEndian(out, static_cast<uint32_t>(v), 4);
  }
  return Add(kInt4ArrayOid, std::move(out));
}

PgParams& PgParams::Int16Array(const std::vector<int16_t>& values) {
  std::string out = ArrayHeader(kInt2Oid, values.size());
  for (int16_t v : values) {
    PutBigEndian(out, 2, 4);
    PutBigEndian(out, static_cast<uint16_t>(v), 2);
  }
  return Add(kInt2ArrayOid, std::move(out));
}

PgParams& PgParams::BoolArray(const std::vector<bool>& values) {
  std::string out = ArrayHeader(kBoolOid, values.size());
  for (bool v : values) {
    PutBigEndian(out, 1, 4);
    out.push_back(v ? 1 : 0);
  }
  return Add(kBoolArrayOid, std::move(out));
}

PgParams& PgParams::BytesArray(const std::vector<absl::string_view>& values) {
  std::string out = ArrayHeader(kByteaOid, values.size());
  for (absl::string_view v : values) {
    PutBigEndian(out, v.size(), 4);
    out.append(v.data(), v.size());
  }
  return Add(kByteaArrayOid, std::move(out));
}

PgParams& PgParams::TextArray(const std::vector<absl::string_view>& values) {
  std::string out = ArrayHeader(kTextOid, values.size());
  for (absl::string_view v : values) {
    PutBigEndian(out, v.size(), 4);
    out.append(v.data(), v.size());
  }
  return Add(kTextArrayOid, std::move(out));
}

int64_t PgResult::Int(int row, int col) const {
  if (IsNull(row, col)) return 0;
  const char* data = PQgetvalue(result_.get(), row, col);
  int length = PQgetlength(result_.get(), row, col);
  uint64_t raw = GetBigEndian(data, length);
  switch (length) {
    case 1:
      return static_cast<int8_t>(raw);
    case 2:
      return static_cast<int16_t>(raw);
    case 4:
      return static_cast<int32_t>(raw);
    default:
      return static_cast<int64_t>(raw);
  }
}

std::string PgResult::Bytes(int row, int col) const {
  if (IsNull(row, col)) return std::string();
  return std::string(PQgetvalue(result_.get(), row, col),
                     PQgetlength(result_.get(), row, col));
}

}  // namespace durable_internal
}  // namespace timingwheel
