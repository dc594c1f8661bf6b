// Template definitions of Hdf5Table.hpp (row packing; the HDF5 calls are in Hdf5Table.cpp).
#pragma once

#include <algorithm>
#include <cstring>

namespace gpuscale::results {
template <typename Row>
TableLayout table_layout(const std::vector<TableColumn<Row>>& columns)
{
  TableLayout layout;
  for (const auto& c : columns) {
    TableLayout::Field field;
    field.name = c.name;
    field.kind = c.text != nullptr ? TableLayout::Kind::String
                                   : (c.integer != nullptr ? TableLayout::Kind::Int64 : TableLayout::Kind::Double);
    field.bytes = field.kind == TableLayout::Kind::String ? c.string_bytes : 8;
    field.offset = layout.row_bytes;
    layout.row_bytes += field.bytes;
    layout.fields.push_back(field);
  }
  return layout;
}

template <typename Row>
PackedTable pack_table(const std::string& name, const std::string& title, const std::vector<TableColumn<Row>>& columns,
                       const std::vector<Row>& rows)
{
  PackedTable table{name, title, table_layout(columns), {}, rows.size()};
  table.bytes.assign(table.layout.row_bytes * rows.size(), '\0');
  for (std::size_t r = 0; r < rows.size(); ++r) {
    char* row = table.bytes.data() + r * table.layout.row_bytes;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      char* at = row + table.layout.fields[i].offset;
      const auto& c = columns[i];
      if (c.integer != nullptr)
        std::memcpy(at, &(rows[r].*c.integer), 8);
      else if (c.real != nullptr)
        std::memcpy(at, &(rows[r].*c.real), 8);
      else {
        const std::string& value = rows[r].*c.text; // truncated to the width, one byte kept for the terminator
        std::memcpy(at, value.data(), std::min(value.size(), c.string_bytes - 1));
      }
    }
  }
  return table;
}

template <typename Row>
std::vector<Row> unpack_table(const PackedTable& table, const std::vector<TableColumn<Row>>& columns)
{
  std::vector<Row> rows(table.rows);
  for (std::size_t r = 0; r < table.rows; ++r) {
    const char* row = table.bytes.data() + r * table.layout.row_bytes;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const char* at = row + table.layout.fields[i].offset;
      const auto& c = columns[i];
      if (c.integer != nullptr)
        std::memcpy(&(rows[r].*c.integer), at, 8);
      else if (c.real != nullptr)
        std::memcpy(&(rows[r].*c.real), at, 8);
      else
        rows[r].*c.text = std::string(at, strnlen(at, c.string_bytes));
    }
  }
  return rows;
}

} // namespace gpuscale::results
