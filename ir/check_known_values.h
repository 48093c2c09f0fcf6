// Register values that reg_store put in memory, remembered while that memory is not overwritten, so that
// the abstract execution can give a reloaded register its value back. Register spill and reload in
// allocated programs rely on this: a reloaded loop counter may address memory, any other loaded value may
// not (the checker has no data).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>

#include "ir/check_internal.h"

namespace allocsim::check {

class KnownValues {
 public:
  struct Value {
    uint64_t bits = 0;
    bool unknown = false;  // the stored register itself held a value loaded from memory
  };
  // The memory `v` (one partition, contiguous) now holds `value`.
  void store(const View& v, Value value);
  // The value stored to exactly `v`, if nothing has overwritten it since.
  std::optional<Value> load(const View& v) const;
  // Forgets every value that overlaps a write of `v`. Returns the number of stored values it looked at
  // (the caller counts that as work).
  uint64_t invalidate(const View& v);

 private:
  // Beyond this many live stores the oldest-keyed one is forgotten (its reload then counts as unknown).
  static constexpr size_t kCapacity = 65536;
  struct Key {
    TensorId tensor;
    uint64_t partition, element;
    bool operator<(const Key& o) const {
      return std::tie(tensor, partition, element) < std::tie(o.tensor, o.partition, o.element);
    }
  };
  struct Entry {
    uint64_t count;
    Value value;
  };
  std::map<Key, Entry> entries_;
};

}  // namespace allocsim::check
