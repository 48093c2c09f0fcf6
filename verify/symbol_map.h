// A sparse map from locations to symbols, the abstract state of the symbolic checker (verify/symbolic.h).
// A location is a region (one SBUF partition, the placed DRAM, one tensor's private storage, the register
// file, ...) and a unit index inside it. Pages of units are allocated when first written, so memory follows
// what the run touches — never the size of the space, and never the placement's numbers (an out-of-bounds
// placement is just more sparse locations).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace allocsim {

// A value's identity. 0 stands for "nothing": never written (logical) or poison (physical).
using Symbol = uint64_t;
constexpr Symbol kNoSymbol = 0;

class SymbolMap {
 public:
  Symbol get(uint64_t region, uint64_t unit) {
    const Symbol* page = find(region, unit >> kPageBits, false);
    return page ? page[unit & kPageMask] : kNoSymbol;
  }
  void set(uint64_t region, uint64_t unit, Symbol s) { find(region, unit >> kPageBits, true)[unit & kPageMask] = s; }
  uint64_t pages() const { return pages_.size(); }

 private:
  static constexpr unsigned kPageBits = 9;
  static constexpr uint64_t kPageMask = (uint64_t(1) << kPageBits) - 1;
  struct Key {
    uint64_t region = 0, page = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return size_t((k.region * 0x9e3779b97f4a7c15ULL) ^ (k.page + (k.page << 17))); }
  };

  Symbol* find(uint64_t region, uint64_t page, bool create);

  std::unordered_map<Key, std::unique_ptr<Symbol[]>, KeyHash> pages_;
  // The last page found: views are walked in address order, so most lookups hit it.
  Key last_key_;
  Symbol* last_ = nullptr;
};

}  // namespace allocsim
