#include "harness/allocator_main.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ir/check.h"
#include "ir/diag.h"
#include "ir/parse.h"
#include "ir/print.h"

namespace allocsim {

int allocatorMain(Allocator& allocator, int argc, char** argv) {
  if (argc > 3) {
    std::fprintf(stderr, "usage: %s [IN [OUT]]\n", argv[0]);
    return kExitBadInput;
  }
  const std::string in = argc > 1 ? argv[1] : "-", out = argc > 2 ? argv[2] : "-";
  std::ostringstream text;
  if (in == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream f(in, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "%s: cannot read\n", in.c_str());
      return kExitBadInput;
    }
    text << f.rdbuf();
  }
  std::string result;
  try {
    Program p = parseProgram(text.str());
    requireWellFormed(p);
    result = printProgram(allocator.allocate(p));
  } catch (const InputError& e) {
    std::fputs(e.format(in == "-" ? "<stdin>" : in).c_str(), stderr);
    return kExitBadInput;
  } catch (const AllocatorRefusal& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitAllocImpossible;
  }
  if (out == "-") {
    std::fwrite(result.data(), 1, result.size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitBadInput;
  }
  std::ofstream f(out, std::ios::binary);
  f << result;
  if (!f.flush()) {
    std::fprintf(stderr, "%s: cannot write\n", out.c_str());
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace allocsim
