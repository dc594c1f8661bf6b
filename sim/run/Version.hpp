#pragma once
/// The version every result records.

namespace gpuscale::run {

/// The version string recorded in results files.
const char* gpuscale_version();

} // namespace gpuscale::run
