#include "props/rc_program.h"

#include "ir/print.h"

namespace allocsim {

uint64_t RapidCheckChoices::below(uint64_t n) {
  if (n <= 1) return 0;  // no decision to make: drawing nothing keeps the shrink space small
  return *rc::gen::inRange<uint64_t>(0, n);
}

rc::Gen<Program> genProgram(GenOptions opts) {
  return rc::gen::exec([opts] {
    RapidCheckChoices choices;
    return generateProgram(choices, opts);
  });
}

uint64_t ListChoices::below(uint64_t n) {
  if (n <= 1 || pos_ >= draws_.size()) return 0;
  return draws_[pos_++] % n;
}

namespace {
// Up to ~3,000 decisions at RapidCheck's largest size: enough for a 40-statement program on the tiny machine.
rc::Gen<std::vector<uint64_t>> genDraws() {
  return rc::gen::scale(30.0, rc::gen::container<std::vector<uint64_t>>(rc::gen::inRange<uint64_t>(0, 1u << 20)));
}
}  // namespace

rc::Gen<Program> genProgramFromList(GenOptions opts) {
  return rc::gen::exec([opts] {
    const std::vector<uint64_t> draws = *genDraws();
    ListChoices choices(draws);
    return generateProgram(choices, opts);
  });
}

rc::Gen<Program> genProgramOn(const Arch& arch, uint32_t max_size) {
  return rc::gen::exec([arch, max_size] {
    GenOptions opts;
    opts.arch = arch;
    opts.size = *rc::gen::inRange<uint32_t>(1, max_size + 1);
    opts.pressure = *rc::gen::element<uint32_t>(50, 100, 150, 200, 300);
    return *genProgramFromList(opts);
  });
}

rc::Gen<Program> genTinyProgram(TinyRates r) {
  return rc::gen::exec([r] {
    GenOptions opts;
    opts.arch = *archPreset("tiny");
    opts.size = *rc::gen::inRange<uint32_t>(r.min_size, r.max_size + 1);
    if (!r.pressure.empty()) opts.pressure = *rc::gen::elementOf(r.pressure);
    if (!r.reuse.empty()) opts.reuse = *rc::gen::elementOf(r.reuse);
    if (!r.conditionals.empty()) opts.conditionals = *rc::gen::elementOf(r.conditionals);
    opts.max_nest_trips = r.max_nest_trips;
    return *genProgramFromList(opts);
  });
}

void showValue(const Program& p, std::ostream& os) { os << "\n" << printProgram(p); }

}  // namespace allocsim
