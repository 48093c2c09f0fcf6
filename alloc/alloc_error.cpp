#include "alloc/alloc_error.h"

namespace allocsim {

std::string AllocError::format(const std::string& file) const {
  return formatDiagnostic(file, Diagnostic{loc_, what()});
}

std::string psumTooBigMessage(const std::string& name, uint64_t banks, uint64_t psum_banks) {
  return name + " is too big for PSUM, requires " + std::to_string(banks) + " banks with PSUM size " +
         std::to_string(psum_banks);
}

}  // namespace allocsim
