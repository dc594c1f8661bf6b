#pragma once
/// A PyTables-compatible HDF5 table of fixed-layout rows, described column by column through
/// member pointers, so a row struct becomes a table pandas.read_hdf and h5py open directly. The one
/// table layer of the project: /runs (ResultsFile, appended to in place) and the tables written
/// whole beside it (/mlperf_runs, /mlperf_scores) share its layout, row packing, HDF5 row type and
/// PyTables attributes.

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscale::results {

/// One column of a table of `Row`s: exactly one of the member pointers, or the text conversions
/// pair (a text column of a field that is not a string, such as an enum), is set.
template <typename Row>
struct TableColumn {
  const char* name;
  std::size_t string_bytes = 0; ///< fixed width of a text column (PyTables needs fixed widths)
  std::string Row::*text = nullptr;
  std::int64_t Row::*integer = nullptr;
  double Row::*real = nullptr;
  std::string (*to_text)(const Row&) = nullptr;
  void (*from_text)(Row&, const std::string&) = nullptr;

  bool is_text() const { return text != nullptr || to_text != nullptr; }
};

template <typename Row>
TableColumn<Row> text_field(const char* name, std::string Row::*field, std::size_t bytes)
{
  return {name, bytes, field, nullptr, nullptr, nullptr, nullptr};
}
template <typename Row>
TableColumn<Row> int_field(const char* name, std::int64_t Row::*field)
{
  return {name, 0, nullptr, field, nullptr, nullptr, nullptr};
}
template <typename Row>
TableColumn<Row> real_field(const char* name, double Row::*field)
{
  return {name, 0, nullptr, nullptr, field, nullptr, nullptr};
}

template <typename Row>
TableColumn<Row> converted_text_field(const char* name, std::string (*to_text)(const Row&),
                                      void (*from_text)(Row&, const std::string&), std::size_t bytes)
{
  return {name, bytes, nullptr, nullptr, nullptr, to_text, from_text};
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

/// Packs one row at `at` (layout.row_bytes bytes); a text longer than its column is truncated.
template <typename Row>
void pack_row(const Row& row, const std::vector<TableColumn<Row>>& columns, const TableLayout& layout, char* at);

template <typename Row>
Row unpack_row(const char* at, const std::vector<TableColumn<Row>>& columns, const TableLayout& layout);

template <typename Row>
PackedTable pack_table(const std::string& name, const std::string& title, const std::vector<TableColumn<Row>>& columns,
                       const std::vector<Row>& rows);

template <typename Row>
std::vector<Row> unpack_table(const PackedTable& table, const std::vector<TableColumn<Row>>& columns);

/// The HDF5 compound type of a row of `layout` (the caller closes it).
hid_t table_row_type(const TableLayout& layout);

/// Creates table `name` in `file` with `rows` rows (extendible, chunked) and the schema_version,
/// gpuscale_version and PyTables attributes (CLASS, VERSION, TITLE, FIELD_i_NAME); the caller
/// closes the returned dataset. Throws ResultsFileError.
hid_t create_table(hid_t file, const std::string& name, const std::string& title, const TableLayout& layout,
                   std::size_t rows, int schema_version, const std::string& gpuscale_version);

/// Writes `rows` packed rows at row `first` of `dataset`, extending it to fit. Throws ResultsFileError.
void write_rows(hid_t dataset, const TableLayout& layout, const char* bytes, std::size_t first, std::size_t rows);

/// Reads every row of `dataset` in `layout`. Throws ResultsFileError with `what` on failure.
std::vector<char> read_rows(hid_t dataset, const TableLayout& layout, std::size_t& rows, const std::string& what);

/// True when the stored row type of `dataset` has the size and column count of `layout`.
bool has_layout(hid_t dataset, const TableLayout& layout);

/// Writes `tables` to a new file at `path` (replacing it by rename once complete), each with
/// schema_version and gpuscale_version attributes. Throws ResultsFileError.
void write_tables(const std::string& path, const std::vector<PackedTable>& tables, int schema_version,
                  const std::string& gpuscale_version);

/// Reads table `name` of `path`, checking its columns against `layout`. Throws ResultsFileError.
PackedTable read_table(const std::string& path, const std::string& name, const TableLayout& layout);

} // namespace gpuscale::results

#include "sim/results/Hdf5Table.ipp"
