// A list of at most N items kept inside the object: for the short lists a pass asks for per instruction executed
// (an instruction's scalar operands, the views it reads), where a std::vector cost a heap allocation each time.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <stdexcept>

namespace allocsim {

template <class T, size_t N>
class InlineList {
 public:
  InlineList() = default;
  InlineList(std::initializer_list<T> init) {
    for (const T& v : init) push_back(v);
  }
  void push_back(const T& v) {
    if (n_ == N) throw std::length_error("InlineList: more than its capacity");
    items_[n_++] = v;
  }
  T* begin() { return items_; }
  T* end() { return items_ + n_; }
  const T* begin() const { return items_; }
  const T* end() const { return items_ + n_; }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T operator[](size_t i) const { return items_[i]; }

 private:
  T items_[N] = {};
  size_t n_ = 0;
};

}  // namespace allocsim
