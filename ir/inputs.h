// Deterministic input data: what every `input` DRAM tensor holds before a program runs. The reference run and
// every allocated run load the same bytes, so their outputs can be compared bit for bit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

// Deterministic input data for every `input` DRAM tensor, indexed by TensorId (empty vector for other tensors):
// row-major bytes, partitions*elements*dtypeSize. Integers: uniform random over the dtype's bits. f32: uniform in
// [-2, 2) on multiples of 1/256. bf16: uniform in [-2, 2) on multiples of 1/64 (multiples of 1/256 need up to 9
// significant bits; bf16 holds 8, so these are the values that are exact in bf16). Same seed -> same bytes on every
// platform (splitmix64 as in gen/choices.h SeededChoices, seeded from seed and the tensor's name, so one tensor's
// data does not depend on the others). The caller bounds the tensors' sizes.
std::vector<std::vector<uint8_t>> makeInputs(const Program& p, uint64_t seed);
// The same bytes for one tensor (empty unless it is a DRAM input).
std::vector<uint8_t> inputBytes(const Tensor& tensor, uint64_t seed);

// Data given by the user for input tensors, by name (row-major bytes, as inputBytes returns them): from the call on,
// inputBytes returns these bytes for a DRAM input of that name and exactly that size instead of the seeded data, in
// every run of the process (the interpreter, the simulator, every oracle), so all runs still load the same bytes.
// The command line sets it once from `--input NAME=FILE` (tools/provided_inputs.h checks names and sizes first).
void setProvidedInputs(std::map<std::string, std::vector<uint8_t>> inputs);

}  // namespace allocsim
