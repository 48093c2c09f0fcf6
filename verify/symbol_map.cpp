#include "verify/symbol_map.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace allocsim {
namespace {

// Pages of maps gone, kept by this thread for the next maps: the symbolic checker makes three maps per run and a
// page per region it touches, and allocating every page anew was most of its heap allocations. A page taken is
// cleared to kNoSymbol, as a new one was; at most kKept are kept.
class SparePages {
 public:
  static constexpr size_t kKept = 256;  // 1 MiB of pages of 512 symbols
  std::unique_ptr<Symbol[]> take(size_t units) {
    if (pages_.empty()) return std::make_unique<Symbol[]>(units);  // value-initialised: kNoSymbol
    std::unique_ptr<Symbol[]> page = std::move(pages_.back());
    pages_.pop_back();
    std::fill(page.get(), page.get() + units, kNoSymbol);
    return page;
  }
  void give(std::unique_ptr<Symbol[]> page) {
    if (pages_.size() < kKept) pages_.push_back(std::move(page));
  }

 private:
  std::vector<std::unique_ptr<Symbol[]>> pages_;
};

SparePages& sparePages() {
  thread_local SparePages spare;
  return spare;
}

}  // namespace

SymbolMap::~SymbolMap() {
  for (auto& [key, page] : pages_) sparePages().give(std::move(page));
}

Symbol* SymbolMap::find(uint64_t region, uint64_t page, bool create) {
  Key key{region, page};
  if (last_ && key == last_key_) return last_;
  auto it = pages_.find(key);
  if (it == pages_.end()) {
    if (!create) return nullptr;
    it = pages_.emplace(key, sparePages().take(size_t(1) << kPageBits)).first;
  }
  last_key_ = key;
  last_ = it->second.get();  // stays valid: rehashing moves the unique_ptr, not the page
  return last_;
}

// Whole spans with one memcpy or memset: under ASan an element loop checks every load and store, a libc call
// checks its range once (the symbolic checker reads and writes runs of a few hundred symbols).
static_assert(kNoSymbol == 0, "read() fills unwritten units with memset");

void SymbolMap::read(uint64_t region, uint64_t unit, uint64_t n, Symbol* out) {
  for (uint64_t k = 0; k < n;) {
    const Span s = span(region, unit + k, n - k, false);
    if (s.at) std::memcpy(out + k, s.at, s.n * sizeof(Symbol));
    else std::memset(out + k, 0, s.n * sizeof(Symbol));
    k += s.n;
  }
}

void SymbolMap::erase(uint64_t region, uint64_t n) {
  if (last_ && last_key_.region == region) last_ = nullptr;
  for (uint64_t page = 0; page << kPageBits < n; ++page) {
    auto it = pages_.find(Key{region, page});
    if (it == pages_.end()) continue;
    sparePages().give(std::move(it->second));
    pages_.erase(it);
  }
}

void SymbolMap::write(uint64_t region, uint64_t unit, uint64_t n, const Symbol* symbols) {
  for (uint64_t k = 0; k < n;) {
    const Span s = span(region, unit + k, n - k, true);
    std::memcpy(s.at, symbols + k, s.n * sizeof(Symbol));
    k += s.n;
  }
}

}  // namespace allocsim
