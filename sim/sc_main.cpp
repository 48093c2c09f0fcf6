// libsystemc.so defines main() and references sc_main(); allocsim has its own main() and never calls this one,
// but the shared library's reference must resolve in every executable that links the simulator. CMake forces
// this object out of the static archive (--undefined=sc_main): nothing else in a program refers to it, so a
// binary that uses no simulator symbol (a fuzz target, say) would otherwise fail to link.
#include <cstdio>

// Declared extern "C" by SystemC (sysc/kernel/sc_externs.h).
extern "C" int sc_main(int, char**) {
  std::fputs("allocsim: sc_main is not an entry point of this program\n", stderr);
  return 2;
}
