// What a verb says when the file it is given is not a program: a directory, a missing or unreadable file, a
// file without instructions. Each is bad input (exit 2) with the path in the message, never "ok" and never an
// internal error.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/common/cli_run.h"

namespace allocsim {
namespace {

std::string writeTemp(const char* name, const std::string& text) {
  std::string path = std::string(::testing::TempDir()) + name;
  std::ofstream(path) << text;
  return path;
}

TEST(CliInputFiles, ADirectoryIsBadInputNamingIt) {
  for (const char* verb : {"fmt", "interp", "alloc", "verify", "show"}) {
    CliRun r = allocsim(std::string(verb) + " corpus");
    EXPECT_EQ(r.exit_code, 2) << verb << ": " << r.out;
    EXPECT_NE(r.out.find("corpus: is a directory"), std::string::npos) << verb << ": " << r.out;
    EXPECT_EQ(r.out.find("internal error"), std::string::npos) << verb << ": " << r.out;
  }
}

TEST(CliInputFiles, AMissingFileIsBadInputWithTheReason) {
  CliRun r = allocsim("verify corpus/no_such_file.nki.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("corpus/no_such_file.nki.txt: cannot open: No such file or directory"), std::string::npos)
      << r.out;
}

TEST(CliInputFiles, AProgramWithoutInstructionsIsBadInputNotOk) {
  std::string empty = writeTemp("empty.nki.txt", "");
  std::string decls = writeTemp("decls_only.nki.txt", "# only declarations\narch tiny\nsbuf a [8, 4] u32\n");
  for (const std::string& path : {empty, decls})
    for (const char* verb : {"verify", "alloc", "interp", "fmt"}) {
      CliRun r = allocsim(std::string(verb) + " " + path);
      EXPECT_EQ(r.exit_code, 2) << verb << " " << path << ": " << r.out;
      EXPECT_NE(r.out.find(path + ":1:1: empty program: no instructions"), std::string::npos) << r.out;
      EXPECT_EQ(r.out.find("ok"), std::string::npos) << r.out;
    }
}

}  // namespace
}  // namespace allocsim
