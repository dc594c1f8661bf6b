#pragma once
/// The small layer every results writer shares over HDF5's C API: an owning identifier, error
/// checks that throw ResultsFileError, and scalar attributes.

#include <hdf5.h>

#include <string>

namespace gpuscale::results::hdf5 {

/// Owns an HDF5 identifier and closes it with the matching H5*close on scope exit.
class Handle {
public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept;
  ~Handle();

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Gives up ownership (for a close whose failure must be checked); the handle becomes empty.
  hid_t release()
  {
    const hid_t id = id_;
    id_ = -1;
    return id;
  }

private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

/// `id`, or ResultsFileError(what) if it is negative (HDF5's failure value).
hid_t checked_id(hid_t id, const std::string& what);
/// Throws ResultsFileError(what) if `status` is negative.
void check_status(herr_t status, const std::string& what);

/// Scalar attributes; writing replaces an existing attribute of the same name. An empty string is
/// stored as " " (HDF5 has no zero-length fixed strings) and read back as "".
void write_string_attribute(hid_t object, const std::string& name, const std::string& value);
std::string read_string_attribute(hid_t object, const std::string& name, const std::string& where);
void write_int_attribute(hid_t object, const std::string& name, long long value);
long long read_int_attribute(hid_t object, const std::string& name, const std::string& where);

} // namespace gpuscale::results::hdf5
