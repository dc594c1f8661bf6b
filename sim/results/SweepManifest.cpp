#include "sim/results/SweepManifest.hpp"

#include "sim/results/Hdf5Handle.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/results/ResultsFileLock.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace gpuscale::results {
namespace {

namespace fs = std::filesystem;
using Hid = hdf5::Handle;
using hdf5::check_status;
using hdf5::read_int_attribute;
using hdf5::read_string_attribute;
using hdf5::write_int_attribute;
using hdf5::write_string_attribute;

hid_t check(hid_t id, const std::string& what) { return hdf5::checked_id(id, what); }

void write_manifest_group(hid_t file, const SweepManifest& manifest)
{
  if (H5Lexists(file, "sweeps", H5P_DEFAULT) <= 0)
    Hid(check(H5Gcreate2(file, "sweeps", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "cannot create /sweeps"), H5Gclose);
  const std::string name = "/sweeps/" + manifest.sweep_id;
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) > 0)
    check_status(H5Ldelete(file, name.c_str(), H5P_DEFAULT), "cannot replace " + name);
  Hid group(check(H5Gcreate2(file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "cannot create " + name),
            H5Gclose);
  write_string_attribute(group.get(), "spec_path", manifest.spec_path);
  write_int_attribute(group.get(), "points_total", manifest.points_total);
  write_int_attribute(group.get(), "shard_index", manifest.shard_index);
  write_int_attribute(group.get(), "shard_count", manifest.shard_count);

  Hid text_type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(text_type.get(), H5T_VARIABLE);
  Hid scalar(H5Screate(H5S_SCALAR), H5Sclose);
  Hid text(check(H5Dcreate2(group.get(), "spec_text", text_type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT),
                 "cannot create " + name + "/spec_text"),
           H5Dclose);
  const char* data = manifest.spec_text.c_str();
  check_status(H5Dwrite(text.get(), text_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &data), "cannot write spec_text");

  std::string hashes;
  for (const auto& input : manifest.inputs)
    hashes += input.hash + "  " + input.path + "\n";
  Hid hashes_text(check(H5Dcreate2(group.get(), "input_hashes", text_type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT),
                        "cannot create " + name + "/input_hashes"),
                  H5Dclose);
  const char* hashes_data = hashes.c_str();
  check_status(H5Dwrite(hashes_text.get(), text_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &hashes_data),
               "cannot write input_hashes");

  const hsize_t count = manifest.runnable_points.size();
  Hid space(H5Screate_simple(1, &count, nullptr), H5Sclose);
  Hid points(check(H5Dcreate2(group.get(), "runnable_points", H5T_NATIVE_INT64, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT),
                   "cannot create " + name + "/runnable_points"),
             H5Dclose);
  if (count > 0)
    check_status(H5Dwrite(points.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, manifest.runnable_points.data()),
                 "cannot write runnable_points");
}

SweepManifest read_manifest_group(hid_t file, const std::string& sweep_id, const std::string& path)
{
  const std::string name = "/sweeps/" + sweep_id;
  const std::string where = path + ":" + name;
  Hid group(check(H5Gopen2(file, name.c_str(), H5P_DEFAULT), where + ": cannot open"), H5Gclose);
  SweepManifest manifest;
  manifest.sweep_id = sweep_id;
  manifest.spec_path = read_string_attribute(group.get(), "spec_path", where);
  manifest.points_total = read_int_attribute(group.get(), "points_total", where);
  manifest.shard_index = static_cast<int>(read_int_attribute(group.get(), "shard_index", where));
  manifest.shard_count = static_cast<int>(read_int_attribute(group.get(), "shard_count", where));

  Hid text(check(H5Dopen2(group.get(), "spec_text", H5P_DEFAULT), where + ": no spec_text"), H5Dclose);
  Hid text_type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(text_type.get(), H5T_VARIABLE);
  char* data = nullptr;
  check_status(H5Dread(text.get(), text_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &data), where + ": cannot read spec_text");
  manifest.spec_text = data != nullptr ? data : "";
  Hid text_space(H5Dget_space(text.get()), H5Sclose);
  H5Dvlen_reclaim(text_type.get(), text_space.get(), H5P_DEFAULT, &data);

  if (H5Lexists(group.get(), "input_hashes", H5P_DEFAULT) > 0) { // absent in files of older versions
    Hid hashes(check(H5Dopen2(group.get(), "input_hashes", H5P_DEFAULT), where + ": cannot open input_hashes"), H5Dclose);
    char* lines = nullptr;
    check_status(H5Dread(hashes.get(), text_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &lines),
                 where + ": cannot read input_hashes");
    const std::string all = lines != nullptr ? lines : "";
    Hid hashes_space(H5Dget_space(hashes.get()), H5Sclose);
    H5Dvlen_reclaim(text_type.get(), hashes_space.get(), H5P_DEFAULT, &lines);
    for (std::size_t at = 0; at < all.size();) {
      const std::size_t end = std::min(all.find('\n', at), all.size());
      const std::string line = all.substr(at, end - at);
      const std::size_t gap = line.find("  ");
      if (gap == std::string::npos)
        throw ResultsFileError(where + ": malformed input_hashes line '" + line + "'");
      manifest.inputs.push_back({line.substr(gap + 2), line.substr(0, gap)});
      at = end + 1;
    }
  }

  Hid points(check(H5Dopen2(group.get(), "runnable_points", H5P_DEFAULT), where + ": no runnable_points"), H5Dclose);
  Hid space(H5Dget_space(points.get()), H5Sclose);
  hsize_t count = 0;
  H5Sget_simple_extent_dims(space.get(), &count, nullptr);
  manifest.runnable_points.resize(count);
  if (count > 0)
    check_status(H5Dread(points.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, manifest.runnable_points.data()),
                 where + ": cannot read runnable_points");
  if (manifest.shard_count < 1 || manifest.shard_index < 0 || manifest.shard_index >= manifest.shard_count)
    throw ResultsFileError(where + ": invalid shard " + manifest.shard_label());
  return manifest;
}

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* names)
{
  static_cast<std::vector<std::string>*>(names)->emplace_back(name);
  return 0;
}

} // namespace

std::vector<std::int64_t> SweepManifest::expected_points() const
{
  std::vector<std::int64_t> points;
  for (std::size_t k = static_cast<std::size_t>(shard_index); k < runnable_points.size();
       k += static_cast<std::size_t>(shard_count))
    points.push_back(runnable_points[k]);
  return points;
}

std::string SweepManifest::shard_label() const
{
  return shard_count == 1 ? "all" : std::to_string(shard_index) + "/" + std::to_string(shard_count);
}

void write_sweep_manifest(const std::string& path, const SweepManifest& manifest, const std::string& gpuscale_version)
{
  const ResultsFileLock lock(path);
  write_sweep_manifest(path, manifest, gpuscale_version, lock);
}

void write_sweep_manifest(const std::string& path, const SweepManifest& manifest, const std::string& gpuscale_version,
                          const ResultsFileLock& lock)
{
  if (!lock.covers(path))
    throw std::logic_error("write_sweep_manifest: the lock held is not the one of " + path);
  if (!fs::exists(path))
    append_runs(path, {}, gpuscale_version, lock);
  else
    read_runs(path); // a foreign or corrupt file is reported, never replaced
  const fs::path target(path);
  const fs::path temporary =
      target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  const std::string failed = path + ": cannot write the sweep manifest (is the disk full?); the file is unchanged";
  try {
    std::error_code copied;
    fs::copy_file(target, temporary, fs::copy_options::overwrite_existing, copied);
    if (copied)
      throw ResultsFileError(path + ": cannot write the sweep manifest: " + copied.message() + "; the file is unchanged");
    {
      H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
      Hid file(check(H5Fopen(temporary.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "cannot open " + temporary.string()),
               H5Fclose);
      write_manifest_group(file.get(), manifest);
      check_status(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), failed);
      check_status(H5Fclose(file.release()), failed);
    }
    if (std::FILE* f = std::fopen(temporary.c_str(), "rb")) {
      const bool synced = ::fsync(fileno(f)) == 0;
      std::fclose(f);
      if (!synced)
        throw ResultsFileError(failed);
    }
    std::error_code renamed;
    fs::rename(temporary, target, renamed);
    if (renamed)
      throw ResultsFileError(path + ": cannot replace the results file: " + renamed.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
}

std::vector<SweepManifest> read_sweep_manifests(const std::string& path)
{
  read_runs(path); // validates the file as gpuscale results
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  Hid file(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), path + ": cannot open"), H5Fclose);
  std::vector<SweepManifest> manifests;
  if (H5Lexists(file.get(), "sweeps", H5P_DEFAULT) <= 0)
    return manifests;
  Hid group(check(H5Gopen2(file.get(), "sweeps", H5P_DEFAULT), path + ": cannot open /sweeps"), H5Gclose);
  std::vector<std::string> names;
  check_status(H5Literate(group.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names),
               path + ": cannot list /sweeps");
  std::sort(names.begin(), names.end());
  for (const auto& name : names)
    manifests.push_back(read_manifest_group(file.get(), name, path));
  return manifests;
}

} // namespace gpuscale::results
