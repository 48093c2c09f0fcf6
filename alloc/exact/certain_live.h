// Tensors live together for certain: where the live ranges (alloc/liveness.h) say a tensor is live at a position,
// the data may not need it there on every iteration (one position stands for every iteration of its loops; a write
// that may not run extends a range). A bound over the live ranges therefore proves nothing about the data. This
// finds, from the program alone, tensors that are live at one step of every run, so that a refusal can name them
// and a lower bound over them holds for any placement the verifier would accept.
//
// The step of a position p is its run in the first iteration of every loop around it, on their first run. p must
// run there: an instruction that executes (alloc/linear_order.h) outside every `if` and register-bounded loop. A
// tensor is live at that step (the verifier's dynamic liveness, verify/dynamic_liveness.h: an element written at or
// before it is read at or after it) when:
//   - p reads or writes it;
//   - a read r > p reads it, r runs for certain (as p) after p, and no write of it runs between p's step and r's:
//     no write in (p, r), and none inside a loop around p that does not hold r (its later iterations run between).
//     What r reads was written before p (a well-formed program reads only written elements), so it is live at p;
//   - a read r < p in a loop C around both, of two or more iterations, reads it in C's next iteration, and no write
//     runs between: none in C's body before r, and every write after r lies before p and outside the loops around p
//     inside C.
// Every test runs at the same step (a first iteration is never the last of a loop of two or more), so the tensors
// certainly live at p are live together there.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/linear_order.h"
#include "ir/program.h"

namespace allocsim {

// By tensor: spans of positions [first, last] (inclusive; they may overlap) whose steps, where certainStep holds,
// have the tensor live as above. Positions that are not such steps say nothing.
std::vector<std::vector<std::pair<uint32_t, uint32_t>>> certainLiveSpans(const Program& p, const LinearOrder& order);

// Whether position `pos` of `order` is a step as above (an executed, unconditional instruction).
bool certainStep(const LinearOrder& order, uint32_t pos);

}  // namespace allocsim
