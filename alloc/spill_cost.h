// The spill cost convention both colorers share (as in the production allocator: PSUM and SBUF run one Chaitin–Briggs
// skeleton): a node's cost is what spilling it adds, and +inf marks a node that cannot be spilled (simplify's inf
// worklist, never a spill candidate).
#pragma once

namespace allocsim {

bool isInfiniteCost(double cost);

}  // namespace allocsim
