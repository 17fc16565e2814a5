// A small CSV reader that remembers where it is, so every complaint about
// the input can name the file, the line and the field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vtenant::sched::sim {

class CsvReader {
 public:
  // Reads `text`; the first non-empty line is the header. `name` (the
  // file's path) names the input in errors.
  static Result<CsvReader> FromText(std::string name, std::string text);

  // Index of a header column, -1 when absent.
  int Column(std::string_view name) const;
  // Like Column, but a missing column is an error naming the file.
  Result<int> RequiredColumn(std::string_view name) const;

  // Advances to the next record; false at the end. Blank lines are skipped.
  bool Next();
  // The field of the current record, spaces around it trimmed; empty when
  // the row is short or `column` is -1 (an optional column that is absent).
  std::string_view Field(int column) const;
  int line() const { return line_; }

  // "pods.csv:17: field gpu_milli: <what>"
  Status Error(std::string_view field, std::string_view what) const;

  // Field parsers that report through Error(). Int: the field as a whole
  // number, an error when it is empty or not one. OptionalInt: `fallback`
  // when the column is absent or the field empty, else as Int.
  Result<int64_t> Int(int column, std::string_view field) const;
  Result<int64_t> OptionalInt(int column, std::string_view field, int64_t fallback) const;

 private:
  CsvReader(std::string name, std::string text);
  Status ReadHeader();
  void Split(std::string_view line, std::vector<std::string>& out) const;

  std::string name_;
  std::string text_;
  size_t pos_ = 0;
  int line_ = 0;
  std::vector<std::string> header_;
  std::vector<std::string> fields_;
};

}  // namespace vtenant::sched::sim
