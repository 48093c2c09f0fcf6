// Reading the files the tests compare with (corpus programs, golden outputs, what the tools wrote).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace allocsim {

// The whole file's bytes; "" when it cannot be read (the caller's comparison then fails and names the file).
inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The program files (*.nki.txt) in `dir`, and with `recursive` in its subfolders too, sorted by path.
inline std::vector<std::filesystem::path> programFiles(const std::filesystem::path& dir, bool recursive = false) {
  std::vector<std::filesystem::path> out;
  auto take = [&](const std::filesystem::directory_entry& e) {
    if (e.is_regular_file() && e.path().string().ends_with(".nki.txt")) out.push_back(e.path());
  };
  if (recursive) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) take(e);
  } else {
    for (const auto& e : std::filesystem::directory_iterator(dir)) take(e);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace allocsim
