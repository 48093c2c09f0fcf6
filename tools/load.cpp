#include "tools/load.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "ir/check.h"
#include "ir/parse.h"
#include "tools/args.h"

namespace allocsim::cli {

constexpr size_t kMaxSourceBytes = size_t(64) << 20;

std::string readSource(const std::string& path) {
  std::string text;
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot open '" + path + "'");
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw UsageError("cannot read '" + path + "'");
  }
  if (text.size() > kMaxSourceBytes) throw UsageError("'" + path + "' is larger than 64 MiB");
  return text;
}

std::optional<Program> loadProgram(const std::string& path, bool check) {
  std::string display = path == "-" ? "<stdin>" : path;
  std::string text = readSource(path);
  try {
    Program p = parseProgram(text);
    if (check) requireWellFormed(p);
    return p;
  } catch (const InputError& e) {
    std::fputs(e.format(display).c_str(), stderr);
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
