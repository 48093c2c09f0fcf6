// Planted bugs: realistic defects compiled into a dedicated test build only (cmake -DALLOCSIM_PLANTED=ON), to
// measure how many of them the black-box checks catch (bench/planted/run.sh). In that build ALLOCSIM_PLANT("name")
// is true when the environment variable ALLOCSIM_PLANT names that plant; in every other build the macro is the
// constant false, its argument is not compiled, and the binary has neither the variable's name nor the plants'
// (tests/no_plant_switch_test.sh checks the release binary). bench/planted/plants.txt lists every plant.
#pragma once

#ifdef ALLOCSIM_PLANTED
#include <cstdlib>
#include <cstring>

namespace allocsim {
inline bool plantActive(const char* name) {
  static const char* const active = std::getenv("ALLOCSIM_PLANT");
  return active != nullptr && std::strcmp(active, name) == 0;
}
}  // namespace allocsim
#define ALLOCSIM_PLANT(name) ::allocsim::plantActive(name)
#else
#define ALLOCSIM_PLANT(name) false
#endif
