#include "sim/results/Hdf5Table.hpp"

#include "sim/results/Hdf5Handle.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/results/ResultsFileLock.hpp"

#include <hdf5.h>

#include <filesystem>
#include <unistd.h>

namespace gpuscale::results {
namespace {

namespace fs = std::filesystem;
using Id = hdf5::Handle;

void check(herr_t status, const std::string& what) { hdf5::check_status(status, what); }
hid_t checked(hid_t id, const std::string& what) { return hdf5::checked_id(id, what); }
void string_attribute(hid_t object, const std::string& name, const std::string& value)
{
  hdf5::write_string_attribute(object, name, value);
}
void int_attribute(hid_t object, const std::string& name, long long value) { hdf5::write_int_attribute(object, name, value); }

void write_one(hid_t file, const PackedTable& table, int schema_version, const std::string& version)
{
  Id dataset(create_table(file, table.name, table.title, table.layout, table.rows, schema_version, version), H5Dclose);
  write_rows(dataset.get(), table.layout, table.bytes.data(), 0, table.rows);
}

} // namespace

hid_t table_row_type(const TableLayout& layout)
{
  Id type(checked(H5Tcreate(H5T_COMPOUND, layout.row_bytes), "cannot create a row type"), H5Tclose);
  for (const auto& f : layout.fields) {
    if (f.kind == TableLayout::Kind::Int64)
      check(H5Tinsert(type.get(), f.name.c_str(), f.offset, H5T_NATIVE_INT64), "row type");
    else if (f.kind == TableLayout::Kind::Double)
      check(H5Tinsert(type.get(), f.name.c_str(), f.offset, H5T_NATIVE_DOUBLE), "row type");
    else {
      Id text(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(text.get(), f.bytes);
      H5Tset_strpad(text.get(), H5T_STR_NULLPAD);
      check(H5Tinsert(type.get(), f.name.c_str(), f.offset, text.get()), "row type");
    }
  }
  return type.release();
}

hid_t create_table(hid_t file, const std::string& name, const std::string& title, const TableLayout& layout,
                   std::size_t rows, int schema_version, const std::string& gpuscale_version)
{
  const hsize_t initial = rows;
  const hsize_t unlimited = H5S_UNLIMITED;
  Id space(H5Screate_simple(1, &initial, &unlimited), H5Sclose);
  Id properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const hsize_t chunk = 64;
  H5Pset_chunk(properties.get(), 1, &chunk);
  Id type(table_row_type(layout), H5Tclose);
  Id dataset(checked(H5Dcreate2(file, name.c_str(), type.get(), space.get(), H5P_DEFAULT, properties.get(), H5P_DEFAULT),
                     "cannot create /" + name),
             H5Dclose);
  int_attribute(dataset.get(), "schema_version", schema_version);
  string_attribute(dataset.get(), "gpuscale_version", gpuscale_version);
  // What PyTables looks for to recognise a table (pandas.read_hdf(path, name)).
  string_attribute(dataset.get(), "CLASS", "TABLE");
  string_attribute(dataset.get(), "VERSION", "2.7");
  string_attribute(dataset.get(), "TITLE", title);
  for (std::size_t i = 0; i < layout.fields.size(); ++i)
    string_attribute(dataset.get(), "FIELD_" + std::to_string(i) + "_NAME", layout.fields[i].name);
  return dataset.release();
}

void write_rows(hid_t dataset, const TableLayout& layout, const char* bytes, std::size_t first, std::size_t rows)
{
  if (rows == 0)
    return;
  hsize_t stored = 0;
  {
    Id space(H5Dget_space(dataset), H5Sclose);
    H5Sget_simple_extent_dims(space.get(), &stored, nullptr);
  }
  const hsize_t needed = first + rows;
  if (needed > stored)
    check(H5Dset_extent(dataset, &needed), "cannot extend the table");
  Id file_space(H5Dget_space(dataset), H5Sclose);
  const hsize_t start = first;
  const hsize_t count = rows;
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr);
  Id memory_space(H5Screate_simple(1, &count, nullptr), H5Sclose);
  Id type(table_row_type(layout), H5Tclose);
  check(H5Dwrite(dataset, type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT, bytes), "cannot write rows");
}

std::vector<char> read_rows(hid_t dataset, const TableLayout& layout, std::size_t& rows, const std::string& what)
{
  Id space(H5Dget_space(dataset), H5Sclose);
  hsize_t stored = 0;
  H5Sget_simple_extent_dims(space.get(), &stored, nullptr);
  rows = stored;
  std::vector<char> bytes(layout.row_bytes * rows);
  if (rows > 0) {
    Id type(table_row_type(layout), H5Tclose);
    check(H5Dread(dataset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), what);
  }
  return bytes;
}

bool has_layout(hid_t dataset, const TableLayout& layout)
{
  Id stored(H5Dget_type(dataset), H5Tclose);
  return H5Tget_size(stored.get()) == layout.row_bytes &&
         H5Tget_nmembers(stored.get()) == static_cast<int>(layout.fields.size());
}

void write_tables(const std::string& path, const std::vector<PackedTable>& tables, int schema_version,
                  const std::string& gpuscale_version)
{
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const ResultsFileLock lock(path); // no writer of this folder's results files in between
  const fs::path target(path);
  const fs::path temporary =
      target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  const std::string failed = path + ": cannot write the file (is the disk full?); nothing was replaced";
  try {
    Id file(checked(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                    path + ": cannot create a temporary file beside it"),
            H5Fclose);
    for (const auto& table : tables)
      write_one(file.get(), table, schema_version, gpuscale_version);
    check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), failed);
    check(H5Fclose(file.release()), failed);
    std::error_code renamed;
    fs::rename(temporary, target, renamed);
    if (renamed)
      throw ResultsFileError(path + ": cannot replace the file: " + renamed.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

PackedTable read_table(const std::string& path, const std::string& name, const TableLayout& layout)
{
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw ResultsFileError(path + ": not an HDF5 file");
  Id file(checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), path + ": cannot open"), H5Fclose);
  if (H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) <= 0)
    throw ResultsFileError(path + ": no /" + name + " table");
  Id dataset(checked(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), path + ": cannot open /" + name), H5Dclose);
  if (!has_layout(dataset.get(), layout))
    throw ResultsFileError(path + ": /" + name + " has unexpected columns");
  PackedTable table{name, "", layout, {}, 0};
  table.bytes = read_rows(dataset.get(), layout, table.rows, path + ": cannot read /" + name);
  return table;
}

} // namespace gpuscale::results
