// What a call throws, as text, for tests that compare an error message.
#pragma once

#include <string>
#include <utility>

namespace allocsim {

// The message of the exception of type E that `f()` throws; `otherwise` when it returns without one (an exception
// of another type propagates and fails the test).
template <class E, class F>
std::string messageThrown(F&& f, const std::string& otherwise) {
  try {
    std::forward<F>(f)();
  } catch (const E& e) {
    return e.what();
  }
  return otherwise;
}

}  // namespace allocsim
