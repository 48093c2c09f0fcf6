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

}  // namespace allocsim
