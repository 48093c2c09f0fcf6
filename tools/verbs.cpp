// The verb table. Each verb lives in its own tools/verb_<name>.cpp.
#include "tools/cli.h"

namespace allocsim::cli {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> table = {};
  return table;
}

}  // namespace allocsim::cli
