#include "scheduler-core/sim/csv.h"

#include <charconv>

namespace vtenant::sched::sim {

CsvReader::CsvReader(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {}

Result<CsvReader> CsvReader::FromText(std::string name, std::string text) {
  CsvReader reader(std::move(name), std::move(text));
  VT_RETURN_IF_ERROR(reader.ReadHeader());
  return reader;
}

Status CsvReader::ReadHeader() {
  if (!Next()) return InvalidArgument(name_ + ": empty file, expected a header line");
  header_ = fields_;
  for (std::string& h : header_) {
    while (!h.empty() && (h.back() == ' ' || h.back() == '\r')) h.pop_back();
    while (!h.empty() && h.front() == ' ') h.erase(h.begin());
  }
  return Status::Ok();
}

int CsvReader::Column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return static_cast<int>(i);
  return -1;
}

Result<int> CsvReader::RequiredColumn(std::string_view name) const {
  int c = Column(name);
  if (c < 0) return InvalidArgument(name_ + ":1: header lacks the column " + std::string(name));
  return c;
}

void CsvReader::Split(std::string_view line, std::vector<std::string>& out) const {
  out.clear();
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field.push_back(c);
    }
  }
  out.push_back(std::move(field));
}

bool CsvReader::Next() {
  while (pos_ < text_.size()) {
    size_t end = text_.find('\n', pos_);
    if (end == std::string::npos) end = text_.size();
    std::string_view line(text_.data() + pos_, end - pos_);
    pos_ = end + 1;
    ++line_;
    if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
    Split(line, fields_);
    return true;
  }
  return false;
}

std::string_view CsvReader::Field(int column) const {
  if (column < 0 || static_cast<size_t>(column) >= fields_.size()) return {};
  std::string_view f = fields_[column];
  while (!f.empty() && f.front() == ' ') f.remove_prefix(1);
  while (!f.empty() && f.back() == ' ') f.remove_suffix(1);
  return f;
}

Status CsvReader::Error(std::string_view field, std::string_view what) const {
  return InvalidArgument(name_ + ":" + std::to_string(line_) + ": field " + std::string(field) +
                         ": " + std::string(what));
}

Result<int64_t> CsvReader::Int(int column, std::string_view field) const {
  std::string_view text = Field(column);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty()) return Error(field, "is empty; expected a whole number");
  if (ec != std::errc() || ptr != text.data() + text.size())
    return Error(field, "\"" + std::string(text) + "\" is not a whole number");
  return value;
}

Result<int64_t> CsvReader::OptionalInt(int column, std::string_view field, int64_t fallback) const {
  if (column < 0 || Field(column).empty()) return fallback;
  return Int(column, field);
}

}  // namespace vtenant::sched::sim
