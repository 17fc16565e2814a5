// A plain text table as kubectl prints them: a header row, columns as wide
// as their widest cell, three spaces apart.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace vtenant::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  // Adds a row; missing cells print empty, extra ones are kept.
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void Print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace vtenant::cli
