#include "alloc/spill_cost.h"

#include <cmath>
#include <limits>

namespace allocsim {

bool isInfiniteCost(double cost) { return std::fabs(cost) > std::numeric_limits<double>::max(); }

}  // namespace allocsim
