#pragma once
/// A PyTables-compatible HDF5 table of fixed-layout rows, described column by column through
/// member pointers, so a row struct becomes a table pandas.read_hdf and h5py open directly. Used for
/// the tables that sit beside /runs (e.g. /mlperf_runs, /mlperf_scores); /runs keeps its own writer.

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscale::results {

/// One column of a table of `Row`s: exactly one of the member pointers is set.
template <typename Row>
struct TableColumn {
  const char* name;
  std::size_t string_bytes = 0; ///< fixed width of a text column (PyTables needs fixed widths)
  std::string Row::*text = nullptr;
  std::int64_t Row::*integer = nullptr;
  double Row::*real = nullptr;
};

template <typename Row>
TableColumn<Row> text_field(const char* name, std::string Row::*field, std::size_t bytes)
{
  return {name, bytes, field, nullptr, nullptr};
}
template <typename Row>
TableColumn<Row> int_field(const char* name, std::int64_t Row::*field)
{
  return {name, 0, nullptr, field, nullptr};
}
template <typename Row>
TableColumn<Row> real_field(const char* name, double Row::*field)
{
  return {name, 0, nullptr, nullptr, field};
}

/// The layout of a table, independent of the row type: names, kinds, widths.
struct TableLayout {
  enum class Kind { Int64, Double, String };
  struct Field {
    std::string name;
    Kind kind = Kind::Double;
    std::size_t bytes = 8;
    std::size_t offset = 0;
  };
  std::vector<Field> fields;
  std::size_t row_bytes = 0;
};

/// A table's rows packed in its layout, ready to write, or as read.
struct PackedTable {
  std::string name;  ///< dataset name under the root group, e.g. "mlperf_scores"
  std::string title; ///< PyTables TITLE attribute
  TableLayout layout;
  std::vector<char> bytes; ///< rows x layout.row_bytes
  std::size_t rows = 0;
};

template <typename Row>
TableLayout table_layout(const std::vector<TableColumn<Row>>& columns);

template <typename Row>
PackedTable pack_table(const std::string& name, const std::string& title, const std::vector<TableColumn<Row>>& columns,
                       const std::vector<Row>& rows);

template <typename Row>
std::vector<Row> unpack_table(const PackedTable& table, const std::vector<TableColumn<Row>>& columns);

/// Writes `tables` to a new file at `path` (replacing it by rename once complete), each with
/// schema_version and gpuscale_version attributes. Throws ResultsFileError.
void write_tables(const std::string& path, const std::vector<PackedTable>& tables, int schema_version,
                  const std::string& gpuscale_version);

/// Reads table `name` of `path`, checking its columns against `layout`. Throws ResultsFileError.
PackedTable read_table(const std::string& path, const std::string& name, const TableLayout& layout);

} // namespace gpuscale::results

#include "sim/results/Hdf5Table.ipp"
