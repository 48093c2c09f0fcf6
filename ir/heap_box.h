// Values an Instruction rarely carries, kept behind one pointer so that the instructions that do not carry them
// (most of them) stay small: a million-instruction program is held twice by the verifier (the allocated program and
// the reference recovered from it, docs/verification.md "Scale"), so every byte of Instruction counts twice.
// Both copy deeply and compare by value, as the std::optional / plain member they replace did.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace allocsim {

// std::optional<T> on the heap: the subset of std::optional's interface the program model uses.
template <typename T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(std::nullopt_t) {}
  HeapOptional(const HeapOptional& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(const HeapOptional& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }
  HeapOptional& operator=(T v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }
  HeapOptional& operator=(std::optional<T> v) {
    if (v)
      p_ = std::make_unique<T>(std::move(*v));
    else
      p_.reset();
    return *this;
  }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  T& operator*() { return *p_; }
  const T& operator*() const { return *p_; }
  T* operator->() { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  void reset() { p_.reset(); }

  bool operator==(const HeapOptional& o) const { return p_ && o.p_ ? *p_ == *o.p_ : !p_ == !o.p_; }

 private:
  std::unique_ptr<T> p_;
};

// A T that is usually T{}: T{} is not stored (a null pointer reads as T{}), any other value is. Read it through
// get() / `->` / the conversion to const T&; mut() (or the conversion to T&) stores a T{} first when there is none.
template <typename T>
class HeapValue {
 public:
  HeapValue() = default;
  HeapValue(const T& v) : p_(std::make_unique<T>(v)) {}
  HeapValue(const HeapValue& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  HeapValue(HeapValue&&) noexcept = default;
  HeapValue& operator=(const HeapValue& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  HeapValue& operator=(HeapValue&&) noexcept = default;
  HeapValue& operator=(T v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }

  const T& get() const { return p_ ? *p_ : empty(); }
  T& mut() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  operator const T&() const { return get(); }
  operator T&() { return mut(); }
  const T* operator->() const { return &get(); }
  T* operator->() { return &mut(); }
  // The stored value, or null when it is T{}: for passes that rewrite values in place, which leave T{} as it is.
  T* ifStored() { return p_.get(); }

  bool operator==(const HeapValue& o) const { return get() == o.get(); }
  bool operator==(const T& v) const { return get() == v; }

 private:
  static const T& empty() {
    static const T value{};
    return value;
  }
  std::unique_ptr<T> p_;
};

// A T that is usually T{}, like HeapValue, but read-only through `->`: reading never stores a T{}, even on a
// mutable owner (a pass that walks a whole program by reference and reads the value of each instruction must not
// give every one of them a heap block). mut() stores a T{} first when there is none and is the one way to write.
template <typename T>
class RareValue {
 public:
  RareValue() = default;
  RareValue(const RareValue& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  RareValue(RareValue&&) noexcept = default;
  RareValue& operator=(const RareValue& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  RareValue& operator=(RareValue&&) noexcept = default;

  const T& get() const { return p_ ? *p_ : empty(); }
  const T* operator->() const { return &get(); }
  T& mut() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  // The stored value, or null when it is T{}: for passes that rewrite values in place, which leave T{} as it is.
  T* ifStored() { return p_.get(); }

  bool operator==(const RareValue& o) const { return get() == o.get(); }

 private:
  static const T& empty() {
    static const T value{};
    return value;
  }
  std::unique_ptr<T> p_;
};

}  // namespace allocsim
