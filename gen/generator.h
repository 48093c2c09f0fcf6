// The generator's internal state (not a public interface: use gen/generate.h). generateProgram builds a
// program constructively, statement by statement, and tracks what makes a statement legal at each point:
// which tensors are fully written (nothing reads unwritten memory), which PSUM pieces still await a
// closed accumulation group, which registers hold values it knows (register-indexed views stay in range),
// and which SBUF / PSUM tensors are live (so peak demand follows GenOptions::pressure).
// The members are implemented across gen/gen_*.cpp, one concern per file.
#pragma once

#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "gen/generate.h"
#include "gen/reg_set.h"

namespace allocsim::gen {

// An instruction `op dst, a, b` (`op dst, a` without b) with every other field at its default: the builders the
// statements share.
inline Instruction binary(Op op, AccessPattern dst, AccessPattern a, AccessPattern b, AluOp alu = AluOp::Add) {
  Instruction i;
  i.op = op;
  i.dst = std::move(dst);
  i.a = std::move(a);
  i.b = std::move(b);
  i.alu = alu;
  return i;
}
inline Instruction unary(Op op, AccessPattern dst, AccessPattern a) {
  Instruction i;
  i.op = op;
  i.dst = std::move(dst);
  i.a = std::move(a);
  return i;
}

// A register value the generator knows: constant + sum(coefficient * induction variable of an enclosing loop).
struct Affine {
  int64_t constant = 0;
  std::vector<std::pair<RegId, int64_t>> terms;
};

struct RegState {
  bool defined = false;
  bool known = false;     // the value is `value` (32-bit registers only)
  bool readOnly = false;  // a loop's induction variable
  uint32_t scope = 0;     // the loop whose body defined it (0 = top level); it is dead once that loop ends
  Affine value;
};

struct TensorState {
  bool full = false;  // every element written
  // A bound on |value| for float data, so exp is applied to small values only (outputs stay finite).
  double mag = 0;
  uint32_t piecesLeft = 0;  // PSUM: bank-sized pieces still waiting for a closed accumulation group
};

struct Scope {
  uint32_t id = 0;
  RegId var = kNone;
  int64_t lo = 0, hi = 0, step = 1;
  uint64_t trips = 1;  // with a register bound, the most on any entry
  Index bound;         // a register bound (hasRegisterBound), when it has terms; hi is then its largest value
  int64_t last() const { return lo + int64_t(trips - 1) * step; }
  std::vector<RegId> regs;  // registers given this scope (closeLoop resets those that still have it)
};

// The geometry of a view relative to a rectangle's origin: which partitions and elements one instruction
// touches. Every tensor an instruction touches uses the same geometry, shifted to where its rectangle lies.
struct Geo {
  Index part;
  uint32_t parts = 0;
  Index off;
  uint32_t count = 0;
  uint32_t step2 = 0;
  uint32_t count2 = 1;
  uint64_t elements() const { return uint64_t(count) * count2; }
};

// A rectangle of a tensor: partitions [p0, p0 + parts), elements [e0, e0 + elems).
struct Rect {
  TensorId tensor = kNone;
  uint32_t p0 = 0, parts = 0;
  uint32_t e0 = 0, elems = 0;
};

constexpr uint32_t kMaxLoopDepth = 3;  // loops nest at most this deep

// Small shared helpers (gen_build.cpp).
Immediate intImm(int64_t v);
Immediate floatImm(double v);
Index regIndex(RegId r, int64_t scale, int64_t constant = 0);
// A bound on |a op b| from bounds on |a| and |b| (gen_compute.cpp).
double aluMag(AluOp op, double a, double b);
inline DType otherFloat(DType t) { return t == DType::F32 ? DType::BF16 : DType::F32; }  // a converting DMA's pair
// The divisors of n in [lo, hi] (hi - lo < 64), in increasing order, in place: the generator asks for them on
// most views and loops it makes, and a vector each time was a heap allocation.
struct Divisors {
  uint32_t items[64] = {};
  uint32_t n = 0;
  bool empty() const { return n == 0; }
  size_t size() const { return n; }
  uint32_t operator[](size_t i) const { return items[i]; }
  const uint32_t* begin() const { return items; }
  const uint32_t* end() const { return items + n; }
};
Divisors divisorsIn(uint64_t n, uint32_t lo, uint32_t hi);

struct ElementwisePlan;  // gen_compute.cpp
struct MatmulPlan;       // gen_matmul.cpp

class Generator {
 public:
  Generator(Choices& choices, const GenOptions& opts);
  Program run();

  // --- decisions (gen_generator.cpp); 0 always picks the smaller / simpler / first option
  bool yes(uint32_t percent);               // true with `percent` probability; false on choice 0
  uint64_t upTo(uint64_t n);                // [0, n]
  uint64_t between(uint64_t lo, uint64_t hi) { return lo + upTo(hi - lo); }
  size_t weighted(std::initializer_list<uint32_t> weights);  // an index; weight 0 = unavailable
  DType anyDType();
  DType floatOr(bool wantFloat);

  // --- building (gen_generator.cpp)
  TensorId addTensor(Space space, uint32_t parts, uint32_t elems, DType dt, const char* prefix);
  RegId newRegister(uint32_t width);  // a register defined from now on, in the current scope
  void emit(Instruction inst);
  AccessPattern view(const Rect& r, const Geo& g) const;
  AccessPattern whole(TensorId t) const;
  Rect wholeRect(TensorId t) const;
  const Tensor& tensor(TensorId t) const { return prog_.tensors[t]; }
  uint32_t depth() const { return uint32_t(scopes_.size()); }
  uint64_t trips() const;  // product of the enclosing loops' trip counts
  // The most trips a loop opened here may have under GenOptions::max_nest_trips (at least 1).
  uint64_t tripRoom() const;
  bool budgetLeft() const;
  bool dramBudgetLeft() const;
  const GenOutcome& outcome() const { return outcome_; }
  void charge(uint64_t bytes);  // interpretation work, so big machines get bounded programs

  // --- the statement menu (generate.cpp)
  void statement();

  // --- loops (gen_loops.cpp)
  Scope& openLoop(int64_t lo, int64_t hi, int64_t step);
  void closeLoop();
  void loopStatement();
  // GenOptions::conditionals: `if COND { memset of a live tensor }` on the enclosing loops' registers. The tensor is
  // already fully written, so whether the block runs changes its values, never what is readable.
  void conditionalStatement();
  // GenOptions::conditionals, too: `loop j = 0, BOUND, 1 { memset of a live tensor }`, BOUND an enclosing loop's
  // register (plain, %3 or //2) plus 0 or 1: a triangular nest, whose body runs fewer times than hi says, or not at all.
  void boundedLoopStatement();
  // The memset of a live tensor (whole or a register-indexed part) that the two above put in their bodies.
  Instruction memsetOfLiveTensor();
  // Splits a [parts, elems] rectangle into pieces (whole, halves, interleaved second dimension, loops over
  // element tiles / partition groups, nested) and calls piece(g) for each, inside the loops it opens.
  void cover(uint32_t parts, uint32_t elems, const std::function<void(const Geo&)>& piece);
  // cover's loop nests: over partition groups, element tiles or both; the element loops return the tile's offset.
  void coverInLoops(Geo g, bool partLoop, bool elemLoop, const Divisors& elemTiles, const Divisors& partTiles,
                    const std::function<void(const Geo&)>& piece);
  Index openSplitTileLoops(uint32_t elems, uint32_t e0, uint32_t k2);
  Index openTileLoop(uint32_t elems, uint32_t k, uint32_t e0);

  // --- registers and views (gen_views.cpp)
  bool regRange(RegId r, int64_t& lo, int64_t& hi) const;
  std::optional<Index> chooseIndex(uint64_t limit, uint64_t preferredScale);
  // A view of `shape` inside tensor t (constant, register-indexed or with a second dimension); nullopt if
  // it does not fit.
  // allowSelfOverlap: a strided view may have STEP < COUNT (rows read again; docs/format.md lets a source overlap
  // itself, not a destination): only for views that are read and never become a destination.
  std::optional<AccessPattern> chooseView(TensorId t, uint32_t parts, uint64_t elems, bool allowStrided,
                                          bool allowSelfOverlap = false);
  // Shape of a view of t: the whole tensor on choice 0.
  void chooseSubShape(TensorId t, uint32_t& parts, uint64_t& elems);
  // A source drawn from `srcs` (not empty), a sub-shape of it and a view of that shape that may overlap itself (it is
  // only read); nullopt if the view does not fit.
  struct SourceView {
    TensorId tensor;
    uint32_t parts;
    uint64_t elems;
    AccessPattern view;
  };
  std::optional<SourceView> chooseSourceView(const std::vector<TensorId>& srcs);

  // --- memory and pressure (gen_memory.cpp)
  void chooseShape(DType dt, uint32_t& parts, uint32_t& elems);
  TensorId newPoolTensor(uint32_t parts, uint32_t elems, DType dt, const std::vector<TensorId>& keep);
  void addToPool(TensorId t);  // t is now fully written and may be read
  void makeRoom(uint64_t bytes, const std::vector<TensorId>& keep);
  void makePsumRoom(uint32_t banks);
  void retire(size_t poolIndex);
  void evacuatePsum(size_t psumIndex);
  void storeToOutput(TensorId t);
  void memsetStatement();
  void loadStatement();
  TensorId loadInput(uint32_t parts, uint32_t elems, DType dt, const std::vector<TensorId>& keep);
  void flush();
  // GenOptions::fit_dram (gen_memory.cpp). dramRoomFor: a new DRAM tensor of `bytes` leaves room for the shared
  // tensors not made yet (always true without fit_dram). sharedInput: the input of dt every load may read once the
  // budget runs short, made on first use, [P, sbuf_bytes / 2] so that any tile (a converting load's too) fits.
  bool dramRoomFor(uint64_t bytes) const;
  // Also fit_dram: tensors shrink as the program grows, so that all of them together hold at most kFitElements
  // elements (what one check of the program can track, and an interpretation holds in memory). elementCap: the most
  // elements a new tensor may have (unlimited without fit_dram), a share of what is left per top-level statement to
  // come; liveTarget: the live SBUF bytes the pool aims at, the pressure target or a few capped tensors if smaller.
  static constexpr uint64_t kFitElements = uint64_t(1) << 30;
  static constexpr uint64_t kFitMinElements = 64;
  static constexpr uint64_t kFitWork = uint64_t(1) << 36;  // bytes an interpretation touches (fit_dram)
  uint64_t elementCap() const;
  uint64_t liveTarget() const;
  uint64_t sharedInputBytes(DType dt) const;
  TensorId sharedInput(DType dt);
  std::vector<TensorId> readable(bool psumToo) const;
  uint32_t psumBanks(TensorId t) const;

  // --- compute (gen_compute.cpp)
  void elementwiseStatement();
  // elementwiseStatement's steps, in the order of their draws; a false return abandons the statement.
  void chooseElementwiseOp(ElementwisePlan& p);
  void chooseActivation(ElementwisePlan& p);
  void chooseSelectMask(ElementwisePlan& p);
  void chooseElementwiseAlu(ElementwisePlan& p);
  bool chooseElementwiseSources(ElementwisePlan& p);
  void chooseBiasColumn(ElementwisePlan& p);
  void chooseTsScalar(ElementwisePlan& p);
  void chooseSecondTsScalar(ElementwisePlan& p);
  bool chooseElementwiseDestination(ElementwisePlan& p);
  double elementwiseMagnitude(const ElementwisePlan& p) const;
  void chooseFusedReduction(ElementwisePlan& p);
  void emitElementwise(ElementwisePlan& p);
  void emitElementwiseInstruction(const ElementwisePlan& p, const AccessPattern& dst, const AccessPattern& src,
                                  const AccessPattern* second, const Geo* g);
  void reduceStatement();
  std::optional<AccessPattern> scalarColumn(DType dt, uint32_t parts, const std::vector<TensorId>& keep);
  void noteWrite(TensorId dst, double mag, bool inPlace);
  double magOf(TensorId t) const;

  // --- NKI's further instructions (gen_nki_ops.cpp): iota, transpose, broadcast, tt_scan, bn_stats / bn_aggr
  void nkiOpStatement();
  void iotaStatement();
  void peMoveStatement(const std::vector<TensorId>& srcs, Op op);
  void scanStatement(const std::vector<TensorId>& srcs);
  void batchNormStatement(const std::vector<TensorId>& srcs);

  // --- DMA patterns (gen_dma_patterns.cpp): GenOptions::dma_patterns
  void dmaPatternStatement();
  void readOverBroad(size_t index);  // the one sub-range read of overBroad_[index], into a new pool tensor

  // --- shapes at loop edges and live-range boundaries (gen_reach.cpp)
  void reachStatement();
  // reachStatement's shapes; `wide` and `any` index pool_ (wide: two or more elements per partition).
  struct TiledTensor {
    TensorId t;
    Tensor T;  // a copy: new tensors move the table
    uint32_t trips, e;
  };
  std::optional<TiledTensor> tiledLiveTensor(const std::vector<size_t>& wide);
  void carriedRegisterShape(const std::vector<size_t>& wide);
  void advanceCarriedRegister(RegId x, bool counter, uint32_t e);
  void carriedTensorShape(const std::vector<size_t>& any);
  void writtenInLoopShape(const std::vector<size_t>& wide);
  void partialThenWholeShape(const std::vector<size_t>& wide);
  void boundaryInPlaceShape(const std::vector<size_t>& any);

  // --- matmul (gen_matmul.cpp)
  void matmulStatement();
  // matmulStatement's steps.
  void chooseMatmulShape(MatmulPlan& p);
  void interleavedPieces(MatmulPlan& p, AccessPattern& dst);
  void accumulationGroup(MatmulPlan& p, const AccessPattern& dst);
  void emitMatmul(const MatmulPlan& p, const AccessPattern& dst, When start, When stop, double& groupMag);
  AccessPattern matmulOperand(DType dt, uint32_t K, uint32_t cols, const std::vector<TensorId>& keep, double& m);
  std::optional<AccessPattern> loopTileOperand(DType dt, uint32_t K, uint32_t cols);

  // --- scalar (gen_scalar.cpp)
  void scalarStatement();
  // scalarStatement's instructions and their helpers.
  RegId scalarDestination(uint32_t width);
  void setRegValue(RegId rd, bool known, const Affine& v);
  void addiInstruction(uint32_t width, RegId src);
  void addInstruction(uint32_t width, RegId src, RegId src2);
  void movInstruction(uint32_t width, RegId src);
  void regRoundTrip(uint32_t width, RegId src, const std::vector<TensorId>& words);
  void tsWithRegister(const std::vector<TensorId>& targets, RegId reg);
  void liInstruction(uint32_t width);
  std::optional<RegId> readableReg(uint32_t width, bool knownOnly);

  Choices& c_;
  GenOptions opts_;
  Program prog_;
  std::vector<TensorState> ts_;
  std::vector<RegState> rs_;
  // rs_ indexed for the draws (gen/reg_set.h), by width (0: 32 bits, 1: 64): defined; not defined (reusable);
  // defined at top level and writable; and 32-bit registers with a known value (chooseIndex). syncReg(r) after
  // every change of rs_[r].
  RegSet defined_[2], dead_[2], topLevel_[2], indexable_;
  void syncReg(RegId r);
  std::vector<Scope> scopes_;
  std::vector<std::vector<Instruction>> bodies_;  // bodies_[0] = program body, then one per open loop
  uint32_t nextScopeId_ = 1;
  std::vector<TensorId> pool_;      // full SBUF tensors that may still be read (the live set)
  std::vector<TensorId> psumPool_;  // closed PSUM tensors not yet evacuated
  // Written whole and to be read once, later, over a sub-range only (never in pool_, which is read whole when
  // retired): counted in poolBytes_ while they wait.
  std::vector<TensorId> overBroad_;
  uint64_t poolBytes_ = 0;
  uint32_t openPsumBanks_ = 0;  // banks of PSUM tensors with groups still open
  uint64_t sbufTarget_ = 0;     // pressure% of SBUF capacity, bytes
  uint32_t psumTarget_ = 1;     // pressure% of PSUM banks
  uint32_t poolSlots_ = 2;      // roughly how many tensors share the target
  uint64_t work_ = 0, workLimit_ = 0;
  uint64_t dramBytes_ = 0;
  uint64_t elements_ = 0;        // elements of every tensor made (fit_dram)
  uint64_t topLevelLeft_ = 1;    // top-level statements still to draw, this one included (fit_dram)
  TensorId sharedIn_[5] = {kNone, kNone, kNone, kNone, kNone};  // by DType: the shared inputs (fit_dram)
  TensorId largestOut_[5] = {kNone, kNone, kNone, kNone, kNone};  // by DType: the output with the most elements
  GenOutcome outcome_;  // how the statement loop ended
  uint32_t statements_ = 0, statementLimit_ = 0;
  uint32_t counters_[4] = {};  // name counters: inputs, outputs, sbuf, psum
  // On-chip tensors whose last read has been emitted, with the loop body (scope id, 0 = top level) they were made
  // and died in: addTensor may recycle one in that same body (GenOptions::reuse). Every mention of such a tensor
  // lies in that body, so a new value written there after its death never meets an old read.
  // Keyed by the body and the shape they may be recycled as, each list in the order the tensors died.
  struct DeadKey {
    uint32_t scope;
    Space space;
    DType dtype;
    uint32_t parts, elems;
    bool operator<(const DeadKey& o) const {
      return std::tie(scope, space, dtype, parts, elems) < std::tie(o.scope, o.space, o.dtype, o.parts, o.elems);
    }
  };
  std::map<DeadKey, std::vector<TensorId>> deadTensors_;
  std::vector<uint32_t> madeIn_;  // by TensorId: the scope addTensor made it in
  uint32_t currentScope() const { return scopes_.empty() ? 0 : scopes_.back().id; }
  void died(TensorId t);          // t's last read has been emitted
};

}  // namespace allocsim::gen
