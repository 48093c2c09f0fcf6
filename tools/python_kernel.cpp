#include "tools/python_kernel.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "ir/inputs.h"
#include "tools/args.h"
#include "tools/load.h"

#ifndef ALLOCSIM_PYTHON_SOURCE_DIR
#define ALLOCSIM_PYTHON_SOURCE_DIR ""
#endif

namespace allocsim::cli {
namespace {

// --trace-memory-limit's range: below the first, python3 and numpy do not start; the second is 1 TiB.
constexpr uint64_t kMinTraceMemoryLimit = uint64_t(64) << 20;
constexpr uint64_t kMaxTraceMemoryLimit = uint64_t(1) << 40;

KernelOptions& options() {
  static KernelOptions o;
  return o;
}

// "NAME=VALUE" split at the first '='; both parts non-empty.
std::pair<std::string, std::string> splitAssignment(const std::string& option, const std::string& v) {
  size_t eq = v.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
    throw UsageError(option + " expects NAME=VALUE, got '" + v + "'");
  return {v.substr(0, eq), v.substr(eq + 1)};
}

}  // namespace

const KernelOptions& kernelOptions() { return options(); }

void takeKernelOptions(Args& args) {
  KernelOptions& o = options();
  Args rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto take = [&](const std::string& name) -> std::optional<std::string> {
      if (a == name) {
        if (i + 1 >= args.size()) throw UsageError(name + " needs a value");
        return args[++i];
      }
      if (a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
      return std::nullopt;
    };
    if (auto v = take("--kernel")) o.kernel = *v;
    else if (auto v = take("--arg")) o.args.push_back(*v);
    else if (auto v = take("--grid")) o.grid = *v;
    else if (auto v = take("--input")) o.inputs.push_back(splitAssignment("--input", *v));
    else if (auto v = take("--trace-time-limit")) o.trace_time_limit_s = ArgReader::toSeconds("--trace-time-limit", *v);
    else if (auto v = take("--trace-memory-limit")) {
      o.trace_memory_limit_bytes = ArgReader::toUint("--trace-memory-limit", *v, kMaxTraceMemoryLimit);
      if (o.trace_memory_limit_bytes < kMinTraceMemoryLimit)
        throw UsageError("--trace-memory-limit must be at least " + std::to_string(kMinTraceMemoryLimit) +
                         " (the Python interpreter itself needs about that), got " + *v);
    }
    else rest.push_back(a);
  }
  // With a kernel in Python, --arch is the tracer's (the tile sizes come from it): the traced program names its
  // arch, so the verb need not see it.
  bool python = false;
  for (const std::string& a : rest) python = python || isPythonKernel(a);
  args.clear();
  for (size_t i = 0; i < rest.size(); ++i) {
    if (python && rest[i] == "--arch" && i + 1 < rest.size()) o.arch = rest[++i];
    else if (python && rest[i].rfind("--arch=", 0) == 0) o.arch = rest[i].substr(7);
    else args.push_back(rest[i]);
  }
  if (o.inputs.empty()) return;
  std::map<std::string, std::vector<uint8_t>> data;
  for (const auto& [name, file] : o.inputs) {
    if (data.count(name)) throw UsageError("--input " + name + " is given twice");
    std::string bytes = readSource(file);
    data[name] = std::vector<uint8_t>(bytes.begin(), bytes.end());
  }
  setProvidedInputs(std::move(data));
}

void checkProvidedInputs(const Program& p) {
  for (const auto& [name, file] : kernelOptions().inputs) {
    const Tensor* t = nullptr;
    for (const Tensor& x : p.tensors)
      if (x.name == name) t = &x;
    if (!t || !t->input || t->space != Space::Dram)
      throw UsageError("--input " + name + ": the program has no DRAM input tensor '" + name + "'");
    std::error_code ec;
    uint64_t size = std::filesystem::file_size(file, ec);
    if (!ec && size != t->totalBytes())
      throw UsageError("--input " + name + ": '" + file + "' holds " + std::to_string(size) + " bytes; '" + name +
                       "' [" + std::to_string(t->partitions) + ", " + std::to_string(t->elements) + "] " +
                       dtypeName(t->dtype) + " needs " + std::to_string(t->totalBytes()));
  }
}

bool isPythonKernel(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0; }

std::string pythonPackageDir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("ALLOCSIM_PYTHONPATH"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "share" / "allocsim" / "python";
    if (fs::exists(installed / "allocsim_nki", ec)) return installed.string();
  }
  return ALLOCSIM_PYTHON_SOURCE_DIR;
}

int runPythonTool(const std::vector<std::string>& args, std::string& out) {
  std::string dir = pythonPackageDir();
  if (dir.empty() || !std::filesystem::exists(std::filesystem::path(dir) / "allocsim_nki"))
    throw UsageError("cannot find the allocsim_nki Python package (set ALLOCSIM_PYTHONPATH to its directory)");
  int pipefd[2];
  if (pipe(pipefd) != 0) throw UsageError(std::string("cannot run python3: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) throw UsageError(std::string("cannot run python3: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);  // its own group: a timeout stops whatever the tracer started too
    // The memory the tracer may allocate, never above a limit already set.
    rlimit data{};
    if (getrlimit(RLIMIT_DATA, &data) == 0) {
      const rlim_t want = rlim_t(options().trace_memory_limit_bytes);
      if (data.rlim_max == RLIM_INFINITY || want < data.rlim_max) data.rlim_cur = data.rlim_max = want;
      setrlimit(RLIMIT_DATA, &data);
    }
    dup2(pipefd[1], STDOUT_FILENO);
    close(pipefd[0]);
    close(pipefd[1]);
    const char* old = std::getenv("PYTHONPATH");
    std::string path = dir + (old && *old ? ":" + std::string(old) : "");
    setenv("PYTHONPATH", path.c_str(), 1);
    // The package runs this binary for simulate() and verify(); a traced kernel started from here finds it so.
    std::error_code ec;
    std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (!ec) setenv("ALLOCSIM_BINARY", self.c_str(), 0);
    // $ALLOCSIM_PYTHON names the interpreter (one with the modules the kernel file imports); else python3 on PATH.
    const char* chosen = std::getenv("ALLOCSIM_PYTHON");
    std::string python = chosen && *chosen ? chosen : "python3";
    std::vector<std::string> full = {python, "-m", "allocsim_nki.cli"};
    full.insert(full.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : full) argv.push_back(s.data());
    argv.push_back(nullptr);
    execvp(python.c_str(), argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", python.c_str(), std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(pipefd[1]);
  out.clear();
  char buf[65536];
  const double limit = options().trace_time_limit_s;
  const auto start = std::chrono::steady_clock::now();
  auto left = [&] {
    return limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  bool timed_out = false, exited = false;
  // The tracer's exit, seen without reaping it: while it is a zombie its process group id cannot be reused, so the
  // group is stopped below without the risk of hitting another process.
  auto tracerExited = [&] {
    siginfo_t info{};
    if (waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno != EINTR;
    return info.si_pid == pid;
  };
  for (;;) {
    // A process the kernel file started (subprocess.Popen) may hold the pipe open after the tracer ended: the
    // output ends with the tracer, once what it wrote has been read.
    exited = exited || tracerExited();
    pollfd p{pipefd[0], POLLIN, 0};
    const int ready = poll(&p, 1, exited ? 0 : int(std::clamp(left(), 0.0, 0.1) * 1000) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (left() <= 0 && !exited) {
      timed_out = true;
      break;
    }
    if (ready == 0 && exited) break;
    if (ready <= 0) continue;
    ssize_t n = read(pipefd[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, size_t(n));
    if (exited && left() <= 0) {  // what a leftover process writes without end
      timed_out = true;
      break;
    }
  }
  close(pipefd[0]);
  // Output closed: the exit is still bounded by the limit.
  while (!timed_out && !exited) {
    exited = tracerExited();
    if (!exited && left() <= 0) timed_out = true;
    else if (!exited) usleep(1000);
  }
  // Whatever the tracer started and left running goes with it (on a timeout, the tracer too).
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    const std::string file = args.size() > 1 ? args[1] : "the kernel";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", limit);
    throw UsageError(file + ": the Python tracer did not finish within " + seconds + " s and was stopped (--trace-time-limit S; does the file run a loop that never ends?)");
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::optional<std::string> traceKernel(const std::string& path, const std::string& arch) {
  const KernelOptions& o = kernelOptions();
  std::vector<std::string> args = {"trace", path};
  if (!o.kernel.empty()) args.insert(args.end(), {"--kernel", o.kernel});
  for (const std::string& a : o.args) args.insert(args.end(), {"--arg", a});
  if (!o.grid.empty()) args.insert(args.end(), {"--grid", o.grid});
  if (!arch.empty()) args.insert(args.end(), {"--arch", arch});
  std::string out;
  int rc = runPythonTool(args, out);
  if (rc == 127) throw UsageError("cannot run python3, which traces " + path);
  if (rc != 0 && rc != 2)  // 2: the tracer reported the kernel's error at its line; anything else it did not
    throw UsageError(path + ": the Python tracer ended with " +
                     (rc > 128 ? "signal " + std::to_string(rc - 128) : "exit code " + std::to_string(rc)) +
                     " without a program or a located error");
  if (rc != 0) return std::nullopt;
  if (out.empty())
    throw UsageError(path + ": the Python tracer ended without writing a program (does the file call os._exit()?)");
  return out;
}

std::string kernelLineNote(const std::string& traced_text, uint32_t line) {
  if (line == 0) return "";
  std::istringstream in(traced_text);
  std::string text;
  for (uint32_t i = 0; i < line; ++i)
    if (!std::getline(in, text)) return "";
  size_t note = text.rfind("# ");
  if (note == std::string::npos) return "";
  std::string where = text.substr(note + 2);
  while (!where.empty() && (where.back() == '\r' || where.back() == ' ')) where.pop_back();
  size_t colon = where.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= where.size() ||
      where.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    return "";
  return where;
}

std::string locateInKernel(const std::string& traced_text, const std::string& traced_name, uint32_t line,
                           uint32_t col, const std::string& message) {
  std::string where = kernelLineNote(traced_text, line);
  if (!where.empty())
    return where + ": " + message + " (traced program line " + std::to_string(line) + ":" + std::to_string(col) +
           ")\n";
  return traced_name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + message + "\n";
}

namespace {
std::vector<std::string>& tracedNotes() {
  static std::vector<std::string> notes;  // kernel line of each traced program line, 1-based ("" without one)
  return notes;
}
}  // namespace

void rememberTracedProgram(const std::string& traced_text) {
  std::vector<std::string>& notes = tracedNotes();
  notes.assign(1, "");
  std::istringstream in(traced_text);
  std::string text;
  for (uint32_t line = 1; std::getline(in, text); ++line)
    notes.push_back(kernelLineNote(text, 1));
}

std::string tracedKernelLine(uint32_t line) {
  const std::vector<std::string>& notes = tracedNotes();
  return line < notes.size() ? notes[line] : "";
}

}  // namespace allocsim::cli
