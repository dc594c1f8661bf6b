#include "sim/config/FileDigest.hpp"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>

namespace gpuscale::config {
namespace {

/// OpenSSL's EVP interface (libcrypto): the one-shot EVP_Digest is SHA-256 as FIPS 180-4 defines it.
std::string hex(const unsigned char* bytes, unsigned size)
{
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * size);
  for (unsigned i = 0; i < size; ++i) {
    text.push_back(digits[bytes[i] >> 4]);
    text.push_back(digits[bytes[i] & 0xf]);
  }
  return text;
}

} // namespace

std::string sha256_hex(std::string_view bytes)
{
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  return hex(digest.data(), size);
}

std::string file_sha256(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot be read to compute its SHA-256");
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    throw std::runtime_error(path + ": read error while computing its SHA-256");
  return sha256_hex(contents);
}

} // namespace gpuscale::config
