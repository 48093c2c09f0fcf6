// The canonical text of a program (docs/format.md "Canonical form"): parseProgram(printProgram(p)) == p.
#pragma once

#include <string>

#include "ir/program.h"

namespace allocsim {

std::string printProgram(const Program& p);                                  // canonical form, ends with '\n'
std::string printAccessPattern(const Program& p, const AccessPattern& ap);  // e.g. "B[:, n*512:512]" or "a"
std::string printInstruction(const Program& p, const Instruction& inst);   // one line, no indentation; a loop prints
                                                                            // its header "loop n = 0, 2, 1 {" only
std::string printImmediate(const Immediate& imm);

}  // namespace allocsim
