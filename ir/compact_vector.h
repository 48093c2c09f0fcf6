// A vector of trivially copyable values in one pointer (size and capacity live in the heap block, which an empty
// vector does not have): an Index's register terms are few and most indexes have none, and a program holds nine
// indexes per instruction, twice in the verifier (docs/verification.md "Scale"). The subset of std::vector's
// interface the program model uses.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <type_traits>

#include "ir/memory_available.h"

namespace allocsim {

template <typename T>
class CompactVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  CompactVector() = default;
  CompactVector(std::initializer_list<T> init) {
    for (const T& v : init) push_back(v);
  }
  CompactVector(const CompactVector& o) { copyFrom(o); }
  CompactVector(CompactVector&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  CompactVector& operator=(const CompactVector& o) {
    if (this != &o) {
      clear();
      copyFrom(o);
    }
    return *this;
  }
  CompactVector& operator=(CompactVector&& o) noexcept {
    swap(o);
    return *this;
  }
  ~CompactVector() { std::free(h_); }

  size_t size() const { return h_ ? h_->size : 0; }
  bool empty() const { return size() == 0; }
  T* begin() { return data(); }
  T* end() { return data() + size(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size() - 1]; }
  const T& back() const { return data()[size() - 1]; }

  void push_back(const T& v) { insert(end(), v); }
  T* insert(const T* pos, const T& v) {
    size_t at = size_t(pos - begin());
    T copy = v;  // v may live in this vector
    reserve(size() + 1);
    T* d = data();
    std::memmove(static_cast<void*>(d + at + 1), d + at, (h_->size - at) * sizeof(T));
    d[at] = copy;
    ++h_->size;
    return d + at;
  }
  T* erase(const T* pos) {
    size_t at = size_t(pos - begin());
    T* d = data();
    std::memmove(static_cast<void*>(d + at), d + at + 1, (h_->size - at - 1) * sizeof(T));
    --h_->size;
    return d + at;
  }
  void clear() {
    if (h_) h_->size = 0;
  }
  void swap(CompactVector& o) noexcept { std::swap(h_, o.h_); }

  bool operator==(const CompactVector& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  // The block: this header, then `cap` values. alignas(T) keeps the values aligned after it.
  struct alignas(T) Header {
    uint32_t size;
    uint32_t cap;
  };

  T* data() const { return h_ ? reinterpret_cast<T*>(h_ + 1) : nullptr; }
  void reserve(size_t n) {
    size_t cap = h_ ? h_->cap : 0;
    if (n <= cap) return;
    size_t next = std::max<size_t>(n, cap ? 2 * cap : 1);
    const size_t bytes = sizeof(Header) + next * sizeof(T);
    auto* h = static_cast<Header*>(std::realloc(static_cast<void*>(h_), bytes));
    if (!h) {
      noteFailedAllocation(bytes);  // for the out-of-memory report, as the program's operator new does
      throw std::bad_alloc();
    }
    if (!h_) h->size = 0;
    h->cap = uint32_t(next);
    h_ = h;
  }
  void copyFrom(const CompactVector& o) {
    if (o.empty()) return;
    reserve(o.size());
    std::memcpy(static_cast<void*>(data()), o.data(), o.size() * sizeof(T));
    h_->size = o.h_->size;
  }

  Header* h_ = nullptr;
};

}  // namespace allocsim
