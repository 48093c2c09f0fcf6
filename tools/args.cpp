#include "tools/args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace allocsim::cli {

bool ArgReader::flag(const std::string& name) {
  if (done() || args_[pos_] != name) return false;
  ++pos_;
  return true;
}

bool ArgReader::help(const char* text) {
  if (!flag("--help") && !flag("-h")) return false;
  std::fputs(text, stdout);
  return true;
}

std::optional<std::string> ArgReader::value(const std::string& name) {
  if (done()) return std::nullopt;
  const std::string& a = args_[pos_];
  if (a == name) {
    if (pos_ + 1 >= args_.size()) throw UsageError(name + " needs a value");
    pos_ += 2;
    return args_[pos_ - 1];
  }
  if (a.size() > name.size() + 1 && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=') {
    ++pos_;
    return a.substr(name.size() + 1);
  }
  return std::nullopt;
}

bool ArgReader::archOption(Arch& arch) {
  if (auto v = value("--arch")) {
    auto preset = archPreset(*v);
    if (!preset) throw UsageError("unknown arch '" + *v + "' (presets: gen2, gen1, gen3, tiny)");
    arch = *preset;
    return true;
  }
  for (const std::string& key : archOverrideKeys()) {
    if (auto v = value("--" + key)) {
      std::string err = applyArchOverride(arch, key, *v);
      if (!err.empty()) throw UsageError(err);
      return true;
    }
  }
  return false;
}

std::optional<std::string> ArgReader::positional() {
  if (done()) return std::nullopt;
  const std::string& a = args_[pos_];
  if (a != "-" && !a.empty() && a[0] == '-') return std::nullopt;
  ++pos_;
  return a;
}

bool ArgReader::positionalInto(std::string& slot) {
  const std::optional<std::string> p = positional();
  if (!p) return false;
  if (!slot.empty()) throw UsageError("unexpected argument '" + *p + "': the input is already '" + slot + "'");
  slot = *p;
  return true;
}

void ArgReader::unknown() const {
  throw UsageError(done() ? std::string("missing argument") : "unexpected argument '" + args_[pos_] + "'");
}

uint64_t ArgReader::toUint(const std::string& name, const std::string& v, uint64_t max) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(name + " expects a non-negative integer, got '" + v + "'");
  errno = 0;
  unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
  if (errno != 0 || n > max) throw UsageError(name + " must be at most " + std::to_string(max) + ", got " + v);
  return n;
}

}  // namespace allocsim::cli

namespace allocsim::cli {

double ArgReader::toSeconds(const std::string& name, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const double s = v.empty() || v.find_first_not_of("0123456789.") != std::string::npos ? -1 : std::strtod(v.c_str(), &end);
  if (s <= 0 || errno != 0 || end != v.c_str() + v.size() || s > 86400)
    throw UsageError(name + " expects seconds, more than 0 and at most 86400, got '" + v + "'");
  return s;
}

}  // namespace allocsim::cli
