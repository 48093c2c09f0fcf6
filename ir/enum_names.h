// An enum value from its name in the program text: the inverse of a name table indexed by the value
// (ir/program.cpp), or of a name function over the values 0 .. count-1.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace allocsim {

// The value E(i) whose name names[i] is `s`, for i from `first` on (the values before it have no text form).
template <class E, size_t N>
std::optional<E> valueNamed(std::string_view s, const char* const (&names)[N], size_t first = 0) {
  for (size_t i = first; i < N; ++i)
    if (s == names[i]) return E(i);
  return std::nullopt;
}

// The value among E(0) .. E(count - 1) that `name` names `s`.
template <class E>
std::optional<E> valueNamed(std::string_view s, const char* (*name)(E), size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (s == name(E(i))) return E(i);
  return std::nullopt;
}

}  // namespace allocsim
