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
    field.kind = c.is_text() ? TableLayout::Kind::String
                                   : (c.integer != nullptr ? TableLayout::Kind::Int64 : TableLayout::Kind::Double);
    field.bytes = field.kind == TableLayout::Kind::String ? c.string_bytes : 8;
    field.offset = layout.row_bytes;
    layout.row_bytes += field.bytes;
    layout.fields.push_back(field);
  }
  return layout;
}

template <typename Row>
void pack_row(const Row& row, const std::vector<TableColumn<Row>>& columns, const TableLayout& layout, char* at)
{
  for (std::size_t i = 0; i < columns.size(); ++i) {
    char* field = at + layout.fields[i].offset;
    const auto& c = columns[i];
    if (c.integer != nullptr)
      std::memcpy(field, &(row.*c.integer), 8);
    else if (c.real != nullptr)
      std::memcpy(field, &(row.*c.real), 8);
    else {
      const std::string value = c.text != nullptr ? row.*c.text : c.to_text(row);
      std::memset(field, 0, c.string_bytes);
      // Truncated to the width, one byte kept for the terminator.
      std::memcpy(field, value.data(), std::min(value.size(), c.string_bytes - 1));
    }
  }
}

template <typename Row>
Row unpack_row(const char* at, const std::vector<TableColumn<Row>>& columns, const TableLayout& layout)
{
  Row row{};
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const char* field = at + layout.fields[i].offset;
    const auto& c = columns[i];
    if (c.integer != nullptr)
      std::memcpy(&(row.*c.integer), field, 8);
    else if (c.real != nullptr)
      std::memcpy(&(row.*c.real), field, 8);
    else if (c.text != nullptr)
      row.*c.text = std::string(field, strnlen(field, c.string_bytes));
    else
      c.from_text(row, std::string(field, strnlen(field, c.string_bytes)));
  }
  return row;
}

template <typename Row>
PackedTable pack_table(const std::string& name, const std::string& title, const std::vector<TableColumn<Row>>& columns,
                       const std::vector<Row>& rows)
{
  PackedTable table{name, title, table_layout(columns), {}, rows.size()};
  table.bytes.assign(table.layout.row_bytes * rows.size(), '\0');
  for (std::size_t r = 0; r < rows.size(); ++r)
    pack_row(rows[r], columns, table.layout, table.bytes.data() + r * table.layout.row_bytes);
  return table;
}

template <typename Row>
std::vector<Row> unpack_table(const PackedTable& table, const std::vector<TableColumn<Row>>& columns)
{
  std::vector<Row> rows;
  rows.reserve(table.rows);
  for (std::size_t r = 0; r < table.rows; ++r)
    rows.push_back(unpack_row(table.bytes.data() + r * table.layout.row_bytes, columns, table.layout));
  return rows;
}

} // namespace gpuscale::results
