// fuzz_decode: prints the program each fuzz input decodes to (fuzz/fuzz_program.h decodeProgram), so a crash file
// can be read, allocated and verified with the command line (`fuzz_decode crash-... > p.nki.txt`), and so that two
// builds can be compared: the bytes are the generator's decisions, and a gcc build must decode every input to the
// program a clang fuzzer ran (ci/test.sh diffs the two over the committed corpora).
// Usage: fuzz_decode [--arch KEY=VALUE]... [--machine KEY=VALUE]... [--dma-patterns N]
//                    [-O N [--allocator NAME] [--gca-dma-optlevel L]] FILE...
//   --arch: an override of the tiny machine the program is generated for, as the target sets it (psum_colorer:
//   sp-registers=64 sbuf-bytes=12288);
//   --machine: an override of the machine the decoded program then runs on (fuzz::runOn; reg_colorer at -O 0:
//   sbuf-bytes=12288 psum-banks=8);
//   --dma-patterns: dma_opt's max_dma_patterns (60);
//   -O N: also allocate each program through the optlevel driver at level N (--allocator: "lsa", ...;
//   --gca-dma-optlevel: the DMA optimization's, 0-2, default 1) and print the allocated program, or the
//   allocator's refusal: the allocators must not depend on the compiler either.
// Each program is preceded by a line "# FILE (poison seed S, knob K)", which also names the generator's mix when the
// input picked one (fuzz::fuzzMix: ", conditionals C, reuse R").
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "fuzz/fuzz_program.h"

using namespace allocsim;

static const char* const kUsage =
    "usage: fuzz_decode [--arch KEY=VALUE]... [--machine KEY=VALUE]... [--dma-patterns N]\n"
    "                   [-O N [--allocator NAME] [--gca-dma-optlevel L]] FILE...\n"
    "  prints the program each fuzz input decodes to (generated for the tiny machine with the --arch overrides, run\n"
    "  on it with the --machine overrides), and with -O its allocation through the optlevel driver (or the refusal)\n";

// A decimal number from 0 to `max` for option `option`, or a message on stderr and false.
static bool number(const std::string& option, const char* text, uint32_t max, const char* what, uint32_t& out) {
  char* end = nullptr;
  const unsigned long n = std::strtoul(text, &end, 10);
  if (end == text || *end != '\0' || text[0] == '-' || n > max) {
    std::fprintf(stderr, "fuzz_decode: %s %s: expected %s, 0 to %u\n", option.c_str(), text, what, max);
    return false;
  }
  out = uint32_t(n);
  return true;
}

int main(int argc, char** argv) {
  Arch arch = fuzz::fuzzArch({});
  std::vector<std::string> machine_overrides;  // KEY=VALUE, checked as given, applied after decoding
  uint32_t dma_patterns = 0;
  bool allocating = false;
  DriverOptions alloc_options;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", kUsage);
      return 0;
    }
    if ((a == "--arch" || a == "--machine" || a == "--dma-patterns" || a == "-O" || a == "--allocator" || a == "--gca-dma-optlevel") &&
        i + 1 == argc) {
      std::fprintf(stderr, "fuzz_decode: %s needs a value\n", a.c_str());
      return 2;
    }
    if (a == "--arch" || a == "--machine") {
      const std::string kv = argv[++i];
      const size_t eq = kv.find('=');
      Arch checked = arch;  // --machine: checked here, on a copy, so that a bad one is refused before any output
      const std::string err = eq == std::string::npos
                                  ? "expected KEY=VALUE"
                                  : applyArchOverride(a == "--arch" ? arch : checked, kv.substr(0, eq), kv.substr(eq + 1));
      if (!err.empty()) {
        std::fprintf(stderr, "fuzz_decode: %s %s: %s\n", a.c_str(), kv.c_str(), err.c_str());
        return 2;
      }
      if (a == "--machine") machine_overrides.push_back(kv);
    } else if (a == "--dma-patterns") {
      if (!number(a, argv[++i], 100, "a percent", dma_patterns)) return 2;
    } else if (a == "-O") {
      uint32_t level = 0;
      if (!number(a, argv[++i], 8, "an optlevel", level)) return 2;
      allocating = true;
      alloc_options.optlevel = int(level);
    } else if (a == "--gca-dma-optlevel") {
      uint32_t level = 0;
      if (!number(a, argv[++i], 2, "a DMA optimization level", level)) return 2;
      alloc_options.gca_dma_optlevel = int(level);
    } else if (a == "--allocator") {
      alloc_options.allocator = argv[++i];
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read the file\n", f.c_str());
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fuzz::FuzzProgram p =
        fuzz::decodeProgram(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), arch, dma_patterns);
    if (!machine_overrides.empty()) {
      Arch machine = arch;
      for (const std::string& kv : machine_overrides) {
        const size_t eq = kv.find('=');
        applyArchOverride(machine, kv.substr(0, eq), kv.substr(eq + 1));  // checked when read
      }
      fuzz::runOn(p, machine);
    }
    // The generator's mix only when the input picked one (fuzz::fuzzMix): a plain input prints as before it existed.
    const std::string mix = p.conditionals || p.reuse ? ", conditionals " + std::to_string(p.conditionals) +
                                                            ", reuse " + std::to_string(p.reuse)
                                                      : "";
    std::printf("# %s (poison seed %llu, knob %llu%s)\n%s", f.c_str(), (unsigned long long)p.poison_seed,
                (unsigned long long)p.knob, mix.c_str(), printProgram(p.program).c_str());
    if (!allocating) continue;
    try {
      std::printf("# allocated at -O%d\n%s", alloc_options.optlevel,
                  printProgram(allocate(p.program, alloc_options).program).c_str());
    } catch (const AllocError& e) {
      std::printf("# refused: %s\n", e.what());
    } catch (const std::exception& e) {  // an option the driver rejects (--allocator bogus)
      std::fprintf(stderr, "fuzz_decode: %s\n", e.what());
      return 2;
    }
  }
  return 0;
}
