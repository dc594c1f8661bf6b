#include "sim/results/Hdf5Handle.hpp"

#include "sim/results/ResultsFile.hpp"

#include <algorithm>

namespace gpuscale::results::hdf5 {
namespace {

// HDF5 closes what is still open when the process exits; a file whose flush failed (a full disk)
// stays half-closed, and that exit-time close dereferences freed state (a segmentation fault after
// the error was reported). Every file gpuscale writes is closed explicitly, and checked, before it
// is renamed into place, so the exit-time pass has nothing to do that matters: it is turned off.
// H5dont_atexit only works before the library's first call, hence a static initialiser.
[[maybe_unused]] const bool library_kept_at_exit = H5dont_atexit() >= 0;

} // namespace

Handle& Handle::operator=(Handle&& other) noexcept
{
  if (this != &other) {
    if (id_ >= 0 && close_ != nullptr)
      close_(id_);
    id_ = other.id_;
    close_ = other.close_;
    other.id_ = -1;
  }
  return *this;
}

Handle::~Handle()
{
  if (id_ >= 0 && close_ != nullptr)
    close_(id_);
}

hid_t checked_id(hid_t id, const std::string& what)
{
  if (id < 0)
    throw ResultsFileError(what);
  return id;
}

void check_status(herr_t status, const std::string& what)
{
  if (status < 0)
    throw ResultsFileError(what);
}

void write_string_attribute(hid_t object, const std::string& name, const std::string& value)
{
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<std::size_t>(1, value.size()));
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  if (H5Aexists(object, name.c_str()) > 0)
    H5Adelete(object, name.c_str());
  Handle attribute(checked_id(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                              "cannot create attribute " + name),
                   H5Aclose);
  check_status(H5Awrite(attribute.get(), type.get(), value.empty() ? " " : value.data()),
               "cannot write attribute " + name);
}

std::string read_string_attribute(hid_t object, const std::string& name, const std::string& where)
{
  Handle attribute(checked_id(H5Aopen(object, name.c_str(), H5P_DEFAULT), where + ": no attribute " + name), H5Aclose);
  Handle type(H5Aget_type(attribute.get()), H5Tclose);
  const std::size_t size = H5Tget_size(type.get());
  std::string value(size, '\0');
  Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(memory.get(), size);
  check_status(H5Aread(attribute.get(), memory.get(), value.data()), where + ": cannot read attribute " + name);
  value.resize(std::min(value.size(), value.find('\0')));
  return value == " " ? "" : value;
}

void write_int_attribute(hid_t object, const std::string& name, long long value)
{
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  if (H5Aexists(object, name.c_str()) > 0)
    H5Adelete(object, name.c_str());
  Handle attribute(checked_id(H5Acreate2(object, name.c_str(), H5T_NATIVE_LLONG, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                              "cannot create attribute " + name),
                   H5Aclose);
  check_status(H5Awrite(attribute.get(), H5T_NATIVE_LLONG, &value), "cannot write attribute " + name);
}

long long read_int_attribute(hid_t object, const std::string& name, const std::string& where)
{
  Handle attribute(checked_id(H5Aopen(object, name.c_str(), H5P_DEFAULT), where + ": no attribute " + name), H5Aclose);
  long long value = 0;
  check_status(H5Aread(attribute.get(), H5T_NATIVE_LLONG, &value), where + ": cannot read attribute " + name);
  return value;
}

} // namespace gpuscale::results::hdf5
