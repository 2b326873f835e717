// Copyright 2026 The timingwheel Authors.

#include "durable/sql/redact.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "libpq-fe.h"

namespace timingwheel {
namespace durable_internal {
namespace {

constexpr char kMask[] = "***";

void Add(std::vector<std::string>* out, std::string value) {
  if (value.empty()) return;
  if (std::find(out->begin(), out->end(), value) == out->end()) {
    out->push_back(std::move(value));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = absl::ascii_tolower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// %xx escapes decoded (as libpq decodes a URI's parts); others kept.
std::string PercentDecoded(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 &&
        HexValue(s[i + 2]) >= 0) {
      out.push_back(
          static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Replaces the value after each `password=` (any case, spaces around '=')
// in `text` with the mask; a value ends at whitespace or '&' (or at its
// closing quote when quoted).
std::string MaskPasswordValues(absl::string_view text) {
  std::string out;
  const std::string lower = absl::AsciiStrToLower(text);
  size_t pos = 0;
  for (;;) {
    size_t key = lower.find("password", pos);
    if (key == std::string::npos) break;
    size_t i = key + 8;
    while (i < text.size() && absl::ascii_isspace(text[i])) ++i;
    if (i >= text.size() || text[i] != '=') {
      absl::StrAppend(&out, text.substr(pos, key + 8 - pos));
      pos = key + 8;
      continue;
    }
    ++i;
    while (i < text.size() && absl::ascii_isspace(text[i])) ++i;
    absl::StrAppend(&out, text.substr(pos, i - pos));
    size_t end = i;
    if (end < text.size() && text[end] == '\'') {
      ++end;
      while (end < text.size() && text[end] != '\'') {
        if (text[end] == '\\') ++end;
        ++end;
      }
      end = std::min(end + 1, text.size());
    } else {
      while (end < text.size() && !absl::ascii_isspace(text[end]) &&
             text[end] != '&' && text[end] != '"') {
        ++end;
      }
    }
    out.append(kMask);
    pos = end;
  }
  absl::StrAppend(&out, text.substr(pos));
  return out;
}

// Replaces VALUE in each `://USER:VALUE@` of `text` with the mask (VALUE
// runs to the last '@' before the next whitespace or quote).
std::string MaskUriPasswords(absl::string_view text) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    size_t scheme = text.find("://", pos);
    if (scheme == absl::string_view::npos) break;
    size_t start = scheme + 3;
    size_t end = start;
    while (end < text.size() && !absl::ascii_isspace(text[end]) &&
           text[end] != '"' && text[end] != '\'') {
      ++end;
    }
    absl::string_view authority = text.substr(start, end - start);
    size_t at = authority.rfind('@');
    size_t colon =
        authority.substr(0, at == absl::string_view::npos ? 0 : at).find(':');
    if (at == absl::string_view::npos || colon == absl::string_view::npos) {
      absl::StrAppend(&out, text.substr(pos, end - pos));
    } else {
      absl::StrAppend(&out, text.substr(pos, start + colon + 1 - pos));
      out.append(kMask);
      absl::StrAppend(&out, text.substr(start + at, end - start - at));
    }
    pos = end;
  }
  absl::StrAppend(&out, text.substr(pos));
  return out;
}

}  // namespace

std::vector<std::string> PasswordCandidates(absl::string_view conninfo) {
  std::vector<std::string> out;
  const std::string text(conninfo);
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &error);
  if (options != nullptr) {
    for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
      if (o->val != nullptr && absl::string_view(o->keyword) == "password") {
        Add(&out, o->val);
      }
    }
    PQconninfoFree(options);
  }
  PQfreemem(error);

  // URI userinfo: scheme://user:pass@...
  size_t scheme = text.find("://");
  if (scheme != std::string::npos) {
    size_t start = scheme + 3;
    size_t at = text.rfind('@');
    if (at != std::string::npos && at > start) {
      absl::string_view userinfo(text.data() + start, at - start);
      size_t colon = userinfo.find(':');
      if (colon != absl::string_view::npos) {
        absl::string_view pass = userinfo.substr(colon + 1);
        Add(&out, std::string(pass));
        Add(&out, PercentDecoded(pass));
      }
    }
  }
  // password=VALUE, keyword form (quoted or not) or URI query form.
  const std::string lower = absl::AsciiStrToLower(text);
  for (size_t key = lower.find("password"); key != std::string::npos;
       key = lower.find("password", key + 1)) {
    size_t i = key + 8;
    while (i < text.size() && absl::ascii_isspace(text[i])) ++i;
    if (i >= text.size() || text[i] != '=') continue;
    ++i;
    while (i < text.size() && absl::ascii_isspace(text[i])) ++i;
    std::string raw, unescaped;
    if (i < text.size() && text[i] == '\'') {
      for (size_t j = i + 1; j < text.size() && text[j] != '\''; ++j) {
        raw.push_back(text[j]);
        if (text[j] == '\\' && j + 1 < text.size()) {
          raw.push_back(text[++j]);
        }
        unescaped.push_back(text[j]);
      }
    } else {
      for (size_t j = i;
           j < text.size() && !absl::ascii_isspace(text[j]) && text[j] != '&';
           ++j) {
        raw.push_back(text[j]);
      }
      unescaped = PercentDecoded(raw);
    }
    Add(&out, raw);
    Add(&out, unescaped);
  }
  // Longest first, so that a secret containing another is masked whole.
  std::sort(out.begin(), out.end(),
            [](const std::string& a, const std::string& b) {
              return a.size() > b.size();
            });
  return out;
}

std::string ScrubSecrets(absl::string_view message,
                         const std::vector<std::string>& secrets) {
  std::string out(message);
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    out = absl::StrReplaceAll(out, {{secret, kMask}});
  }
  return MaskUriPasswords(MaskPasswordValues(out));
}

bool ConnInfoParses(const std::string& conninfo, std::string* error) {
  char* message = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &message);
  if (options != nullptr) {
    PQconninfoFree(options);
    return true;
  }
  if (error != nullptr) {
    *error = message != nullptr ? message : "";
    while (!error->empty() && error->back() == '\n') error->pop_back();
  }
  PQfreemem(message);
  return false;
}

}  // namespace durable_internal
}  // namespace timingwheel
