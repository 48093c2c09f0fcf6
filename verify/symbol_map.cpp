#include "verify/symbol_map.h"

namespace allocsim {

Symbol* SymbolMap::find(uint64_t region, uint64_t page, bool create) {
  Key key{region, page};
  if (last_ && key == last_key_) return last_;
  auto it = pages_.find(key);
  if (it == pages_.end()) {
    if (!create) return nullptr;
    // Value-initialised: every unit starts as kNoSymbol.
    it = pages_.emplace(key, std::make_unique<Symbol[]>(size_t(1) << kPageBits)).first;
  }
  last_key_ = key;
  last_ = it->second.get();  // stays valid: rehashing moves the unique_ptr, not the page
  return last_;
}

void SymbolMap::read(uint64_t region, uint64_t unit, uint64_t n, Symbol* out) {
  for (uint64_t k = 0; k < n;) {
    const Span s = span(region, unit + k, n - k, false);
    for (uint64_t i = 0; i < s.n; ++i) out[k + i] = s.at ? s.at[i] : kNoSymbol;
    k += s.n;
  }
}

void SymbolMap::erase(uint64_t region, uint64_t n) {
  if (last_ && last_key_.region == region) last_ = nullptr;
  for (uint64_t page = 0; page << kPageBits < n; ++page) pages_.erase(Key{region, page});
}

void SymbolMap::write(uint64_t region, uint64_t unit, uint64_t n, const Symbol* symbols) {
  for (uint64_t k = 0; k < n;) {
    const Span s = span(region, unit + k, n - k, true);
    for (uint64_t i = 0; i < s.n; ++i) s.at[i] = symbols[k + i];
    k += s.n;
  }
}

}  // namespace allocsim
