#include "alloc/psum/psum_accesses.h"

namespace allocsim {

TensorAccessList psumAccesses(const Program& p, const Instruction& inst) {
  return tensorAccesses(p, inst, Space::Psum);
}

}  // namespace allocsim
