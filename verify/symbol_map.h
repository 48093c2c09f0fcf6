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
  SymbolMap() = default;
  SymbolMap(const SymbolMap&) = delete;
  SymbolMap& operator=(const SymbolMap&) = delete;
  ~SymbolMap();  // its pages go to this thread's spare pages (symbol_map.cpp)

  Symbol get(uint64_t region, uint64_t unit) {
    const uint64_t page = unit >> kPageBits;
    const Symbol* at = hit(region, page) ? last_ : find(region, page, false);
    return at ? at[unit & kPageMask] : kNoSymbol;
  }
  void set(uint64_t region, uint64_t unit, Symbol s) {
    const uint64_t page = unit >> kPageBits;
    (hit(region, page) ? last_ : find(region, page, true))[unit & kPageMask] = s;
  }
  uint64_t pages() const { return pages_.size(); }

  // The units [unit, unit + n) that lie in one page, 1 <= n <= max: `at` points at the first, or is nullptr
  // when the page was never written (all kNoSymbol) and `create` is false.
  struct Span {
    Symbol* at;
    uint64_t n;
  };
  Span span(uint64_t region, uint64_t unit, uint64_t max, bool create) {
    const uint64_t page = unit >> kPageBits, in_page = unit & kPageMask;
    Symbol* at = hit(region, page) ? last_ : find(region, page, create);
    const uint64_t room = kPageMask + 1 - in_page;
    return {at ? at + in_page : nullptr, max < room ? max : room};
  }
  // Copies the symbols of units [unit, unit + n) to out.
  void read(uint64_t region, uint64_t unit, uint64_t n, Symbol* out);
  // Writes symbols[0, n) to units [unit, unit + n).
  void write(uint64_t region, uint64_t unit, uint64_t n, const Symbol* symbols);
  // Forgets units [0, n) of region (they read as kNoSymbol again) and frees their pages.
  void erase(uint64_t region, uint64_t n);

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

  bool hit(uint64_t region, uint64_t page) const { return last_ && last_key_.page == page && last_key_.region == region; }
  Symbol* find(uint64_t region, uint64_t page, bool create);

  std::unordered_map<Key, std::unique_ptr<Symbol[]>, KeyHash> pages_;
  // The last page found: views are walked in address order, so most lookups hit it.
  Key last_key_;
  Symbol* last_ = nullptr;
};

}  // namespace allocsim
