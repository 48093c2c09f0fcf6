// How `allocsim interp` (and later `run`) shows a program's DRAM outputs: a hash per output, optionally
// every value, as text or JSON.
#pragma once

#include <string>

#include "ir/interp.h"
#include "ir/program.h"

namespace allocsim::cli {

std::string outputsText(const Program& p, const InterpResult& r, bool values);
std::string outputsJson(const Program& p, const InterpResult& r, bool values);
// One element of `t` from row-major bytes, printed as the dtype reads it ("1.5", "-3", "65535").
std::string formatElement(DType t, const uint8_t* bytes);

}  // namespace allocsim::cli
