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

hid_t make_row_type(const TableLayout& layout)
{
  const hid_t type = checked(H5Tcreate(H5T_COMPOUND, layout.row_bytes), "cannot create a row type");
  for (const auto& f : layout.fields) {
    if (f.kind == TableLayout::Kind::Int64)
      H5Tinsert(type, f.name.c_str(), f.offset, H5T_NATIVE_INT64);
    else if (f.kind == TableLayout::Kind::Double)
      H5Tinsert(type, f.name.c_str(), f.offset, H5T_NATIVE_DOUBLE);
    else {
      Id text(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(text.get(), f.bytes);
      H5Tset_strpad(text.get(), H5T_STR_NULLPAD);
      H5Tinsert(type, f.name.c_str(), f.offset, text.get());
    }
  }
  return type;
}

void write_one(hid_t file, const PackedTable& table, int schema_version, const std::string& version)
{
  const hsize_t rows = table.rows;
  const hsize_t unlimited = H5S_UNLIMITED;
  Id space(H5Screate_simple(1, &rows, &unlimited), H5Sclose);
  Id properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  const hsize_t chunk = 64;
  H5Pset_chunk(properties.get(), 1, &chunk);
  Id type(make_row_type(table.layout), H5Tclose);
  Id dataset(checked(H5Dcreate2(file, table.name.c_str(), type.get(), space.get(), H5P_DEFAULT, properties.get(),
                                H5P_DEFAULT),
                     "cannot create /" + table.name),
             H5Dclose);
  if (rows > 0)
    check(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, table.bytes.data()),
          "cannot write /" + table.name);
  int_attribute(dataset.get(), "schema_version", schema_version);
  string_attribute(dataset.get(), "gpuscale_version", version);
  // What PyTables looks for to recognise a table (pandas.read_hdf(path, name)).
  string_attribute(dataset.get(), "CLASS", "TABLE");
  string_attribute(dataset.get(), "VERSION", "2.7");
  string_attribute(dataset.get(), "TITLE", table.title);
  for (std::size_t i = 0; i < table.layout.fields.size(); ++i)
    string_attribute(dataset.get(), "FIELD_" + std::to_string(i) + "_NAME", table.layout.fields[i].name);
}

} // namespace

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
  Id stored(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_size(stored.get()) != layout.row_bytes ||
      H5Tget_nmembers(stored.get()) != static_cast<int>(layout.fields.size()))
    throw ResultsFileError(path + ": /" + name + " has unexpected columns");
  Id space(H5Dget_space(dataset.get()), H5Sclose);
  hsize_t rows = 0;
  H5Sget_simple_extent_dims(space.get(), &rows, nullptr);
  PackedTable table{name, "", layout, std::vector<char>(layout.row_bytes * rows), rows};
  if (rows > 0) {
    Id type(make_row_type(layout), H5Tclose);
    check(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, table.bytes.data()),
          path + ": cannot read /" + name);
  }
  return table;
}

} // namespace gpuscale::results
