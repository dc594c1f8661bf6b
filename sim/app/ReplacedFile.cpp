#include "sim/app/ReplacedFile.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace gpuscale::app {
namespace {

namespace fs = std::filesystem;

/// Removes the temporary file unless it was renamed over the target.
class TemporaryFile {
public:
  explicit TemporaryFile(fs::path path) : path_(std::move(path)) {}
  ~TemporaryFile()
  {
    if (!kept_) {
      std::error_code ignored;
      fs::remove(path_, ignored);
    }
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  const fs::path& path() const { return path_; }
  void kept() { kept_ = true; }

private:
  fs::path path_;
  bool kept_ = false;
};

} // namespace

void write_replacing(const std::string& path, const std::function<void(std::ostream&)>& write)
{
  const fs::path target(path);
  TemporaryFile temporary(target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid())));
  {
    std::ofstream out(temporary.path(), std::ios::binary | std::ios::trunc);
    if (!out)
      throw std::runtime_error(path + ": cannot create a temporary file beside it; nothing was written");
    write(out);
    out.close();
    if (out.fail())
      throw std::runtime_error(path + ": cannot write the file (is the disk full?); nothing was written");
  }
  std::error_code renamed;
  fs::rename(temporary.path(), target, renamed);
  if (renamed)
    throw std::runtime_error(path + ": cannot replace the file (" + renamed.message() + "); nothing was written");
  temporary.kept();
}

} // namespace gpuscale::app
