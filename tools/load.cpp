#include "tools/load.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "ir/check.h"
#include "ir/parse.h"
#include "tools/args.h"
#include "tools/python_kernel.h"

namespace allocsim::cli {

// A million-instruction allocated program prints as about 2.3 million lines, ~80 MiB.
constexpr size_t kMaxSourceBytes = size_t(512) << 20;

namespace {

// Appends what `in` holds to `text` in blocks of 1 MiB (a character at a time through the stream buffer costs more
// than the parse of what it reads); stops once the text passes kMaxSourceBytes. False on a read error.
bool readAll(std::istream& in, std::string& text) {
  constexpr size_t kBlock = size_t(1) << 20;
  while (text.size() <= kMaxSourceBytes) {
    const size_t had = text.size(), room = text.capacity() - had;
    const size_t block = room > 0 ? std::min(room, kBlock) : kBlock;  // within a reserved buffer while it lasts
    text.resize(had + block);
    in.read(text.data() + had, std::streamsize(block));
    text.resize(had + size_t(in.gcount()));
    if (!in) return !in.bad();
  }
  return true;
}

}  // namespace

std::string readSource(const std::string& path) {
  std::string text;
  if (path == "-") {
    if (!readAll(std::cin, text)) throw UsageError("<stdin>: cannot read");
  } else {
    // A directory opens as a stream on Linux and fails on the first read with an exception that says
    // nothing useful ("basic_filebuf::underflow"), so it is told apart before opening.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw UsageError(path + ": is a directory, not a program file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError(path + ": cannot open: " + std::strerror(errno));
    // A regular file's size is known: one buffer of that size, filled in place (a pipe is read in blocks).
    const std::uintmax_t size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
    if (!ec && size <= kMaxSourceBytes) text.reserve(size_t(size) + 1);
    if (!readAll(in, text)) throw UsageError(path + ": cannot read");
  }
  if (text.size() > kMaxSourceBytes) throw UsageError("'" + path + "' is larger than 512 MiB");
  return text;
}

std::optional<Program> loadProgram(const std::string& path, bool check) {
  std::string display = path == "-" ? "<stdin>" : path;
  const bool python = isPythonKernel(path);
  std::string text;
  if (python) {
    // A kernel in Python: traced into a program first; the tracer reports its own errors at the kernel's lines.
    std::optional<std::string> traced = traceKernel(path, kernelOptions().arch);
    if (!traced) return std::nullopt;
    text = std::move(*traced);
    rememberTracedProgram(text);
  } else {
    text = readSource(path);
    rememberTracedProgram("");
  }
  try {
    Program p = parseProgram(text);
    if (check) requireWellFormed(p);
    // A program without instructions computes nothing: every verb would report "ok" on it, which says
    // nothing about the file the user meant to give (an empty or truncated file, the wrong path). The
    // well-formedness checker goes first: its findings about the declarations are more specific.
    if (p.body.empty()) throw InputError(SourceLoc{1, 1}, "empty program: no instructions");
    checkProvidedInputs(p);
    return p;
  } catch (const InputError& e) {
    if (!python) {
      std::fputs(e.format(display).c_str(), stderr);
      return std::nullopt;
    }
    // The traced program notes its kernel line at the end of each instruction: the finding is shown there.
    for (const Diagnostic& d : e.diagnostics())
      std::fputs(locateInKernel(text, display + " (traced)", d.loc.line, d.loc.col, d.message).c_str(), stderr);
    return std::nullopt;
  }
}

void writeOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw UsageError("cannot write '" + path + "'");
}

}  // namespace allocsim::cli
