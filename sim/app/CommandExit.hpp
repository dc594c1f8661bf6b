#pragma once
/// Thrown by a command that ends with a chosen exit status after reporting what happened itself,
/// e.g. a sweep whose points partly failed (1) or that was interrupted (130, as shells report SIGINT).

#include <stdexcept>
#include <string>

namespace gpuscale::app {

class CommandExit : public std::runtime_error {
public:
  CommandExit(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

private:
  int status_;
};

} // namespace gpuscale::app
