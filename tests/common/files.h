// Reading the files the tests compare with (corpus programs, golden outputs, what the tools wrote).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace allocsim {

// The whole file's bytes; "" when it cannot be read (the caller's comparison then fails and names the file).
inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace allocsim
