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
// A tensor's placement as the text format writes it: "@p0+256" (SBUF partition and byte offset), "@bank1" (PSUM),
// "@4096" (DRAM byte offset); "unplaced" without one.
std::string placementText(const Tensor& t);

}  // namespace allocsim
