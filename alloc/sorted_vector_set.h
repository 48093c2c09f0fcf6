// A set kept as a sorted vector: the same order, uniqueness and iteration as std::set with the same comparator, but
// its elements in one block that keeps its room. For the small sets a pass edits many times per allocation (the
// best-fit manager's free blocks): std::set allocated a node per insertion, the largest heap-allocation site of the
// linear-scan fuzz target.
#pragma once

#include <algorithm>
#include <vector>

namespace allocsim {

template <class T, class Less>
class SortedVectorSet {
 public:
  using const_iterator = typename std::vector<T>::const_iterator;

  // Inserts `v` unless an equivalent element is there (as std::set::insert).
  void insert(const T& v) {
    auto it = std::lower_bound(items_.begin(), items_.end(), v, Less{});
    if (it != items_.end() && !Less{}(v, *it)) return;
    items_.insert(it, v);
  }
  // Erases the element equivalent to `v`, if any (as std::set::erase(key)).
  void erase(const T& v) {
    auto it = std::lower_bound(items_.begin(), items_.end(), v, Less{});
    if (it != items_.end() && !Less{}(v, *it)) items_.erase(it);
  }
  void clear() { items_.clear(); }  // keeps the room
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  bool empty() const { return items_.empty(); }
  size_t size() const { return items_.size(); }
  const T& back() const { return items_.back(); }  // the largest

 private:
  std::vector<T> items_;
};

}  // namespace allocsim
