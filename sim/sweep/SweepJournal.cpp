#include "sim/sweep/SweepJournal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace gpuscale::sweep {
namespace {

constexpr std::uint32_t kMagic = 0x4a535047; // "GPSJ" little-endian
constexpr std::size_t kRecordHeaderBytes = 4 + 4 + 8;

std::uint64_t fnv1a(const char* data, std::size_t size)
{
  std::uint64_t hash = 14695981039346656037ULL;
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= 1099511628211ULL;
  }
  return hash;
}

template <typename T>
void put(std::string& out, T value)
{
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
T get(const std::string& in, std::size_t at)
{
  T value;
  std::memcpy(&value, in.data() + at, sizeof value);
  return value;
}

std::string read_whole(int fd)
{
  std::string content;
  char buffer[65536];
  ::lseek(fd, 0, SEEK_SET);
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    content.append(buffer, static_cast<std::size_t>(n));
  }
  return content;
}

void write_all(int fd, const std::string& data, const std::string& path)
{
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

} // namespace

std::string SweepJournal::path_for(const std::string& results_path)
{
  return results_path + ".journal";
}

std::string SweepJournal::header() const
{
  return "gpuscale-sweep-journal 1 " + sweep_id_ + "\n";
}

SweepJournal::SweepJournal(const std::string& results_path, const std::string& sweep_id)
    : path_(path_for(results_path)), sweep_id_(sweep_id)
{
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("cannot open " + path_ + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error("another gpuscale sweep is writing " + results_path + " (" + path_ + " is locked)");
  }
  const std::string content = read_whole(fd_);
  if (content.empty()) {
    write_all(fd_, header(), path_);
    return;
  }
  const std::size_t line_end = content.find('\n');
  const std::string first_line = content.substr(0, line_end);
  if (line_end == std::string::npos || first_line + "\n" != header()) {
    const bool ours = first_line.rfind("gpuscale-sweep-journal 1 ", 0) == 0;
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(path_ + (ours ? " holds rows of another sweep (" + first_line.substr(25) +
                                                 "): finish that sweep with --resume, or delete the journal"
                                           : " is not a gpuscale sweep journal"));
  }
  std::size_t at = line_end + 1;
  while (at + kRecordHeaderBytes <= content.size()) {
    const auto magic = get<std::uint32_t>(content, at);
    const auto size = get<std::uint32_t>(content, at + 4);
    const auto checksum = get<std::uint64_t>(content, at + 8);
    const std::size_t payload = at + kRecordHeaderBytes;
    if (magic != kMagic || payload + size > content.size() || fnv1a(content.data() + payload, size) != checksum ||
        size < 4)
      break; // torn tail
    const auto row_bytes = get<std::uint32_t>(content, payload);
    if (4 + static_cast<std::size_t>(row_bytes) > size)
      break;
    results::RunToWrite run;
    run.record = results::decode_run_record(content.substr(payload + 4, row_bytes));
    run.scenario_text = content.substr(payload + 4 + row_bytes, size - 4 - row_bytes);
    recovered_.push_back(std::move(run));
    at = payload + size;
  }
  ::lseek(fd_, 0, SEEK_END);
}

SweepJournal::~SweepJournal()
{
  if (fd_ >= 0)
    ::close(fd_);
}

void SweepJournal::append(const results::RunToWrite& run)
{
  const std::string row = results::encode_run_record(run.record);
  std::string payload;
  put(payload, static_cast<std::uint32_t>(row.size()));
  payload += row;
  payload += run.scenario_text;
  std::string record;
  put(record, kMagic);
  put(record, static_cast<std::uint32_t>(payload.size()));
  put(record, fnv1a(payload.data(), payload.size()));
  record += payload;
  write_all(fd_, record, path_); // one write: the kernel keeps it even if this process is killed next
}

void SweepJournal::clear()
{
  const std::string head = header();
  if (::ftruncate(fd_, static_cast<off_t>(head.size())) != 0)
    throw std::runtime_error("cannot truncate " + path_ + ": " + std::strerror(errno));
  ::lseek(fd_, 0, SEEK_END);
  recovered_.clear();
}

void SweepJournal::remove()
{
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

} // namespace gpuscale::sweep
