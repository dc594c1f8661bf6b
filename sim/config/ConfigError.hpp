#pragma once
/// Located configuration problems, reported all at once in compiler style:
///   platforms/mixed.yaml:14:7: error: /node_types/2/accelerator: unknown accelerator 'h100x' (known: ...)

#include <stdexcept>
#include <string>
#include <vector>

namespace gpuscale::config {

/// One problem in one input file. Line and column are 1-based; 0 means "the whole file".
struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string path; ///< JSON-pointer-like path of the offending field, e.g. /cluster/node_groups/0/count
  std::string message;

  std::string format() const;
};

/// Thrown by the readers when an input has problems; carries every one of them, each made printable
/// (config::printable on its file, path and message), so what() is one line per diagnostic.
class ConfigError : public std::runtime_error {
public:
  explicit ConfigError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

private:
  ConfigError(std::vector<Diagnostic> printable, int);

  std::vector<Diagnostic> diagnostics_;
};

/// Longest message kept whole; longer ones keep their start and end.
inline constexpr std::size_t kMaxMessageBytes = 1024;

/// Collects diagnostics while a file (and the files it imports) are read.
class Diagnostics {
public:
  /// Keeps `diagnostic`, its message made printable: control characters escaped (\n, \x1b, ...) and a
  /// message longer than kMaxMessageBytes (a huge value quoted back) shortened in the middle.
  void add(Diagnostic diagnostic);
  bool empty() const { return diagnostics_.empty(); }
  std::size_t size() const { return diagnostics_.size(); }
  const std::vector<Diagnostic>& all() const { return diagnostics_; }
  /// Throws ConfigError with everything collected so far, if anything was.
  void throw_if_any() const;

private:
  std::vector<Diagnostic> diagnostics_;
};

} // namespace gpuscale::config
