// The hand placements of a traced kernel against the kernel itself. A kernel that places its tensors by hand (NKI's
// direct allocation: `address=`, `ncc.sbuf.mod_alloc`, `alloc(func)`) is traced into an allocated program whose
// placements are partly written into its instructions: a modulo allocation's tile array holds only its physical
// tiles, and the kernel's block index is taken modulo their count in the program itself (`buf{m%2}`). The
// reference the oracles recover from such a program shares those tiles too, so no oracle can see a rotation with
// too few tiles (`num_free_tiles=(1,)` for a buffer that holds the next block while the current one is still
// read). The same kernel traced with its placements left out is the program as the user wrote it; when the two
// programs' outputs differ on the same input, the placements change what the kernel computes.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/program.h"
#include "verify/finding.h"

namespace allocsim {

// `placed` is the kernel traced with its hand placements, `unplaced` the same kernel traced without them (the same
// DRAM tensors). Both run on the reference interpreter with input seed `input_seed`; the first output (in
// declaration order) that differs gives one equivalence finding of kind `output-mismatch` at the first instruction of
// `placed` that writes its first differing element, or nullopt when every output is bit-identical. Throws
// InputError when either program cannot run.
std::optional<Finding> compareWithUnplacedKernel(const Program& placed, const Program& unplaced,
                                                 uint64_t input_seed);

}  // namespace allocsim
