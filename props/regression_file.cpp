#include "props/regression_file.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ir/print.h"

namespace allocsim {

std::string regressionDir() {
  if (const char* dir = std::getenv("ALLOCSIM_REGRESSION_DIR"); dir && *dir) return dir;
  return std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/regressions";
}

std::string saveRegression(const std::string& name, const Program& p, const std::string& why) {
  std::error_code ec;
  std::filesystem::create_directories(regressionDir(), ec);
  std::string path = regressionDir() + "/" + name + ".nki.txt";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  std::string comment;
  for (char c : why) comment += c == '\n' ? ' ' : c;
  out << "# regression (props/" << name << "): " << comment << "\n" << printProgram(p);
  return out ? path : std::string();
}

}  // namespace allocsim
