#include "sim/config/FileDigest.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace gpuscale;

// Test vectors: FIPS 180-4 examples as published in NIST's "SHA-256 examples" (CSRC), and the empty
// message.
TEST_CASE("config::sha256_hex gives the NIST test-vector digests", "[config]")
{
  CHECK(config::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(config::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(config::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("config::file_sha256 digests the file's bytes and names a file it cannot read", "[config]")
{
  const auto path = std::filesystem::temp_directory_path() / ("gpuscale-digest-" + std::to_string(::getpid()) + ".bin");
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string("ab\0c", 4);
  }
  CHECK(config::file_sha256(path.string()) == config::sha256_hex(std::string("ab\0c", 4)));
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(config::file_sha256(path.string()), path.string() + ": cannot be read to compute its SHA-256");
}
