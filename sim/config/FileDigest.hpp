#pragma once
/// Content digests of input files, so a result records exactly which platform and workload ran
/// (a path says where a file was, not what it said).

#include <string>
#include <string_view>

namespace gpuscale::config {

/// SHA-256 (FIPS 180-4) of `bytes`, as 64 lower-case hex digits.
std::string sha256_hex(std::string_view bytes);

/// SHA-256 of the file's contents, as 64 lower-case hex digits. Throws std::runtime_error naming the
/// file if it cannot be read.
std::string file_sha256(const std::string& path);

} // namespace gpuscale::config
