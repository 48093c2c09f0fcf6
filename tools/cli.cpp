#include "tools/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>

#include "ir/diag.h"
#include "ir/memory_available.h"
#include "tools/args.h"
#include "tools/python_kernel.h"

namespace allocsim::cli {

static void printUsage(std::FILE* out) {
  std::fprintf(out, "usage: allocsim <verb> [options]   (allocsim <verb> --help for details)\n\nverbs:\n");
  for (const Verb& v : verbs()) std::fprintf(out, "  %-14s %s\n", v.name, v.summary);
  std::fprintf(out, "\nexit codes: 0 ok, 1 verification found a bug, 2 bad input or usage, 3 allocation impossible\n");
}

int run(int argc, char** argv) {
  if (argc < 2) {
    printUsage(stderr);
    return kExitBadInput;
  }
  std::string verb = argv[1];
  if (verb == "--help" || verb == "-h" || verb == "help") {
    printUsage(stdout);
    return kExitOk;
  }
  Args args(argv + 2, argv + argc);
  for (const Verb& v : verbs()) {
    if (verb != v.name) continue;
    try {
      // The verbs that read a program also read an NKI kernel in Python (tools/python_kernel.h).
      for (const char* reader : {"fmt", "interp", "verify", "alloc", "run", "trace", "show"})
        if (verb == reader) takeKernelOptions(args);
      const int rc = v.run(args);
      // What the verb printed may still sit in the buffer: a full disk or a closed pipe must not end in exit 0 with
      // the report silently cut short.
      if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fprintf(stderr, "allocsim %s: cannot write standard output: %s\n", v.name,
                     errno ? std::strerror(errno) : "write error");
        return rc == kExitOk ? kExitBadInput : rc;
      }
      return rc;
    } catch (const UsageError& e) {
      std::fprintf(stderr, "allocsim %s: %s\n", v.name, printableText(e.what()).c_str());
      return kExitBadInput;
    } catch (const std::bad_alloc&) {
      // Where the verbs can tell before allocating, they refuse with the tensor and the sizes (an InputError);
      // this is what is left: the input named (or, for a verb that reads none, its arguments), how much was asked
      // for, what the process held, and what it could have got.
      std::string input, options;
      for (size_t i = 0; i < args.size(); ++i) {
        options += " " + args[i];
        if (args[i] == "-o") {  // an output, never the input
          if (i + 1 < args.size()) options += " " + args[++i];
        } else if (input.empty() && !args[i].empty() && args[i][0] != '-' && std::filesystem::is_regular_file(args[i])) {
          input = args[i] + ": ";
        }
      }
      std::fprintf(stderr, "allocsim %s%s: %sout of memory%s\n", v.name, input.empty() ? options.c_str() : "",
                   input.c_str(), outOfMemoryDetail().c_str());
      return kExitBadInput;
    } catch (const std::exception& e) {
      // Verbs report their own input errors with locations; anything reaching here is unexpected.
      std::fprintf(stderr, "allocsim %s: internal error: %s\n", v.name, printableText(e.what()).c_str());
      return kExitBadInput;
    }
  }
  std::fprintf(stderr, "allocsim: unknown verb '%s'\n", printableText(verb).c_str());
  printUsage(stderr);
  return kExitBadInput;
}

}  // namespace allocsim::cli
