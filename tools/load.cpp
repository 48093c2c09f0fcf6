#include "tools/load.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

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

bool isFifo(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// Opening a FIFO for reading blocks until some process opens it for writing, for ever if none does. It is opened
// without blocking instead and waited on for at most kFifoWaitSeconds: the first bytes, or a writer that came and
// went, end the wait, and the FIFO is then read to its end; nothing at all is an error.
constexpr int kFifoWaitSeconds = 10;

std::string readFifo(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd < 0) throw UsageError(path + ": cannot open: " + std::strerror(errno));
  pollfd p{fd, POLLIN, 0};
  int ready;
  do ready = ::poll(&p, 1, kFifoWaitSeconds * 1000);
  while (ready < 0 && errno == EINTR);
  if (ready <= 0) {
    ::close(fd);
    throw UsageError(path + ": a FIFO nothing wrote to within " + std::to_string(kFifoWaitSeconds) +
                     " s (no process opened it for writing)");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // from here on, read as a pipe is read
  std::string text;
  char buf[1 << 16];
  while (text.size() <= kMaxSourceBytes) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw UsageError(path + ": cannot read: " + std::strerror(e));
    }
    if (n == 0) break;
    text.append(buf, size_t(n));
  }
  ::close(fd);
  return text;
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
    if (std::filesystem::is_directory(path, ec)) throw UsageError(path + ": is a directory, not a file");
    if (isFifo(path)) {
      text = readFifo(path);
      if (text.size() > kMaxSourceBytes) throw UsageError("'" + path + "' is larger than 512 MiB");
      return text;
    }
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
    // A full disk or a closed pipe is an error like an unwritable file, not an output silently cut short.
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw UsageError(std::string("cannot write standard output: ") + std::strerror(errno));
    return;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError("cannot write '" + path + "': it is a directory");
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError("cannot write '" + path + "': " + std::strerror(errno));
  out << text;
  out.close();  // the buffer's last bytes are written here: a full disk shows only now
  if (!out) throw UsageError("cannot write '" + path + "'" + (errno ? ": " + std::string(std::strerror(errno)) : ""));
}

void writeOutputStreamed(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty() || path == "-") {
    std::fflush(stdout);
    write(std::cout);
    if (!std::cout.flush()) throw UsageError(std::string("cannot write standard output: ") + std::strerror(errno));
    return;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError("cannot write '" + path + "': it is a directory");
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError("cannot write '" + path + "': " + std::strerror(errno));
  write(out);
  out.close();  // the buffer's last bytes are written here: a full disk shows only now
  if (!out) throw UsageError("cannot write '" + path + "'" + (errno ? ": " + std::string(std::strerror(errno)) : ""));
}

void requireWritable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError("cannot write '" + path + "': it is a directory");
  const bool existed = std::filesystem::exists(path, ec);
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);  // opened, not truncated: nothing is lost yet
    if (!out) throw UsageError("cannot write '" + path + "': " + std::strerror(errno));
  }
  if (!existed) std::filesystem::remove(path, ec);
}

}  // namespace allocsim::cli
