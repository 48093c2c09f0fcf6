#include "tools/allocation_svg.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "alloc/liveness.h"
#include "verify/placement_rules.h"

namespace allocsim::cli {
namespace {

constexpr double kLeft = 90, kPanelWidth = 1000, kSbufHeight = 360, kBankHeight = 28, kFloorHeight = 240;
// Beyond this many tensors in a panel, the largest (bytes x live span) are drawn one by one and the rest as a grid
// of grey cells whose darkness counts them, so the file stays a few megabytes whatever the program.
constexpr size_t kMaxBoxes = 1500;
constexpr uint32_t kGridColumns = 200, kGridRows = 60;
// The legend lists the tensors too small to carry a label, up to this many.
constexpr size_t kMaxLegend = 600;
constexpr double kLegendRow = 14, kLegendColumn = 250;
constexpr int kLegendColumns = 4;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string xmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A stable color per tensor name (FNV-1a hue), so the same tensor looks the same in every picture.
std::string colorOf(const std::string& name) {
  uint32_t h = 2166136261u;
  for (unsigned char c : name) h = (h ^ c) * 16777619u;
  return "hsl(" + std::to_string(h % 360) + ",55%,72%)";
}

struct Box {
  TensorId id = 0;
  const Tensor* t = nullptr;
  LiveRange live;
};

struct Frame {
  double x0, y0, w, h;
  double positions;  // the x axis spans positions [0, positions)
  double x(double pos) const { return x0 + w * pos / positions; }
};

std::string rect(double x, double y, double w, double h, const std::string& style) {
  return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.5)) + "\" height=\"" +
         num(std::max(h, 0.5)) + "\" " + style + "/>";
}

std::string text(double x, double y, const std::string& s, const std::string& extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (extra.empty() ? "" : " " + extra) + ">" +
         xmlEscape(s) + "</text>";
}

std::string outline(const Tensor& t) {
  bool inserted = t.origin != Origin::Source;
  return std::string("stroke=\"#333\" stroke-width=\"0.6\"") + (inserted ? " stroke-dasharray=\"3,2\"" : "");
}

std::string liveText(const LiveRange& r) {
  return "live over positions " + std::to_string(r.first) + ".." + std::to_string(r.last);
}

std::string tensorGroup(const Box& b, const std::string& space, const std::string& shape, const std::string& title,
                        const std::string& label, double lx, double ly) {
  std::string g = "<g class=\"tensor\" data-tensor=\"" + xmlEscape(b.t->name) + "\" data-space=\"" + space +
                  "\" data-first=\"" + std::to_string(b.live.first) + "\" data-last=\"" +
                  std::to_string(b.live.last) + "\">" + shape + "<title>" + xmlEscape(title) + "</title>";
  if (!label.empty()) g += text(lx, ly, label, "font-size=\"9\"");
  return g + "</g>\n";
}

// Ticks along the time axis of a panel, labelled with the source line of the instruction at that position (a loop's
// header and end: the loop's line), and the axis's caption.
std::string timeAxis(const Frame& f, const LinearOrder& order) {
  const uint32_t positions = uint32_t(order.positions.size());
  std::string out = "<line x1=\"" + num(f.x0) + "\" y1=\"" + num(f.y0 + f.h) + "\" x2=\"" + num(f.x0 + f.w) +
                    "\" y2=\"" + num(f.y0 + f.h) + "\" stroke=\"#000\"/>\n";
  uint32_t step = std::max<uint32_t>(1, positions / 10);
  for (uint32_t p = 0; p < positions; p += step) {
    const Instruction* inst = order.positions[p].inst;
    const std::string label = inst ? "L" + std::to_string(inst->loc.line) : p == 0 ? "start" : "end";
    out += text(f.x(p), f.y0 + f.h + 12, label, "font-size=\"9\"") + "\n";
  }
  out += text(f.x0 + f.w - 330, f.y0 + f.h + 34,
              "time: program order (each instruction, loop header and loop end one step); ticks: source line",
              "class=\"axis-label\" font-size=\"9\"") + "\n";
  return out;
}

// The boxes drawn one by one: all of them, or the kMaxBoxes largest (bytes x live span); the others go to `rest`.
std::vector<const Box*> drawnBoxes(const std::vector<Box>& boxes, std::vector<const Box*>& rest, bool sbuf) {
  std::vector<const Box*> all;
  for (const Box& b : boxes) all.push_back(&b);
  if (all.size() <= kMaxBoxes) return all;
  auto weight = [sbuf](const Box* b) {
    const uint64_t span = uint64_t(b->live.last - b->live.first) + 1;
    return (sbuf ? b->t->totalBytes() : b->t->bytesPerPartition()) * span;
  };
  std::stable_sort(all.begin(), all.end(), [&](const Box* a, const Box* b) { return weight(a) > weight(b); });
  rest.assign(all.begin() + long(kMaxBoxes), all.end());
  all.resize(kMaxBoxes);
  std::stable_sort(all.begin(), all.end(), [](const Box* a, const Box* b) { return a->id < b->id; });
  return all;
}

// Boxes not drawn one by one, as a grid over the panel: a cell is as dark as the number of them covering it.
// box(b) gives b's rectangle (x, y, w, h) in the panel.
template <typename Rect>
std::string aggregateGrid(const std::vector<const Box*>& rest, const Frame& f, Rect&& box, const char* space) {
  if (rest.empty()) return "";
  std::vector<uint32_t> count(size_t(kGridColumns) * kGridRows, 0);
  const double cw = f.w / kGridColumns, ch = f.h / kGridRows;
  for (const Box* b : rest) {
    auto [x, y, w, h] = box(*b);
    const uint32_t c0 = uint32_t(std::clamp((x - f.x0) / cw, 0.0, double(kGridColumns - 1)));
    const uint32_t c1 = uint32_t(std::clamp((x + w - f.x0) / cw, 0.0, double(kGridColumns - 1)));
    const uint32_t r0 = uint32_t(std::clamp((y - f.y0) / ch, 0.0, double(kGridRows - 1)));
    const uint32_t r1 = uint32_t(std::clamp((y + h - f.y0) / ch, 0.0, double(kGridRows - 1)));
    for (uint32_t r = r0; r <= r1; ++r)
      for (uint32_t c = c0; c <= c1; ++c) ++count[size_t(r) * kGridColumns + c];
  }
  const uint32_t most = *std::max_element(count.begin(), count.end());
  std::string out = "<g class=\"aggregate\" data-space=\"" + std::string(space) + "\" data-tensors=\"" +
                    std::to_string(rest.size()) + "\"><title>" + std::to_string(rest.size()) +
                    " smaller tensors, drawn as a density: the darker a cell, the more of them it holds</title>\n";
  for (uint32_t r = 0; r < kGridRows; ++r)
    for (uint32_t c = 0; c < kGridColumns; ++c) {
      const uint32_t n = count[size_t(r) * kGridColumns + c];
      if (n == 0) continue;
      out += rect(f.x0 + c * cw, f.y0 + r * ch, cw, ch,
                  "fill=\"#555\" fill-opacity=\"" + num(0.15 + 0.6 * double(n) / double(most)) + "\"") + "\n";
    }
  return out + "</g>\n";
}

// The legend: tensors whose boxes are too small for a label, each with its color and the same hover title.
struct LegendEntry {
  std::string name, title, color;
  bool inserted = false;
};

}  // namespace

std::string allocationSvg(const Program& p, const SvgOptions& opts) {
  Liveness live = computeLiveness(p);
  const uint32_t positions = uint32_t(live.order.positions.size());
  std::vector<Box> sbuf, psum;
  size_t unplaced = 0;
  for (TensorId id = 0; id < p.tensors.size(); ++id) {
    const Tensor& t = p.tensors[id];
    if (t.space == Space::Dram) continue;
    if (!t.placement) {
      ++unplaced;
      continue;
    }
    if (live.tensors[id].empty()) continue;
    (t.space == Space::Sbuf ? sbuf : psum).push_back({id, &t, live.tensors[id]});
  }

  // The byte axis: what the placements reach, or the capacity when they reach most of it.
  uint64_t reach = 1;
  for (const Box& b : sbuf) reach = std::max(reach, b.t->placement->offset + b.t->bytesPerPartition());
  uint64_t ymax = reach * 5 >= uint64_t(p.arch.sbuf_bytes) * 4 ? std::max<uint64_t>(reach, p.arch.sbuf_bytes) : reach;

  // Peak SBUF use (bytes over all partitions) and where it happens: the floorplan's moment.
  std::vector<int64_t> delta(positions + 1, 0);
  for (const Box& b : sbuf) {
    addOverSegments(delta, b.live, int64_t(b.t->totalBytes()));
  }
  int64_t cur = 0, peak = 0;
  uint32_t peak_pos = 0;
  for (uint32_t i = 0; i < positions; ++i) {
    cur += delta[i];
    if (cur > peak) peak = cur, peak_pos = i;
  }

  const double psum_h = kBankHeight * std::max<uint32_t>(1, p.arch.psum_banks);
  Frame sf{kLeft, 60, kPanelWidth, kSbufHeight, double(std::max<uint32_t>(positions, 1))};
  Frame pf{kLeft, sf.y0 + sf.h + 80, kPanelWidth, psum_h, sf.positions};
  Frame ff{kLeft, pf.y0 + pf.h + 80, kPanelWidth, kFloorHeight, 1};
  const double width = kLeft + kPanelWidth + 30;
  std::vector<LegendEntry> legend;
  size_t legend_left_out = 0;
  auto toLegend = [&](const Tensor& t, const std::string& title) {
    if (legend.size() >= kMaxLegend) return void(++legend_left_out);
    legend.push_back({t.name, title, colorOf(t.name), t.origin != Origin::Source});
  };

  std::string out;
  std::string header = (opts.title.empty() ? std::string("allocation") : opts.title) + " - arch " + p.arch.name +
                       ": SBUF " + std::to_string(p.arch.sbuf_partitions) + " x " +
                       std::to_string(p.arch.sbuf_bytes) + " B, PSUM " + std::to_string(p.arch.psum_banks) +
                       " banks; " + std::to_string(sbuf.size()) + " SBUF and " + std::to_string(psum.size()) +
                       " PSUM tensors drawn";
  if (unplaced) header += ", " + std::to_string(unplaced) + " unplaced left out";
  out += text(10, 20, header, "font-size=\"13\"") + "\n";

  // --- SBUF over time
  out += "<g id=\"sbuf\">\n" + text(10, sf.y0 - 10, "SBUF: byte offset within a partition (y) over time (x)") + "\n";
  out += rect(sf.x0, sf.y0, sf.w, sf.h, "fill=\"#f7f7f7\" stroke=\"#000\"") + "\n";
  auto ybyte = [&](uint64_t b) { return sf.y0 + sf.h * double(b) / double(ymax); };
  for (int i = 0; i <= 4; ++i) {
    uint64_t b = ymax * uint64_t(i) / 4;
    out += text(4, ybyte(b) + 4, std::to_string(b) + " B", "font-size=\"9\"") + "\n";
  }
  if (ymax >= p.arch.sbuf_bytes)
    out += "<line class=\"capacity\" x1=\"" + num(sf.x0) + "\" y1=\"" + num(ybyte(p.arch.sbuf_bytes)) + "\" x2=\"" +
           num(sf.x0 + sf.w) + "\" y2=\"" + num(ybyte(p.arch.sbuf_bytes)) +
           "\" stroke=\"#900\" stroke-dasharray=\"6,3\"/>\n";
  std::vector<const Box*> sbuf_rest, psum_rest;
  auto sbufRect = [&](const Box& b) {
    const Placement& pl = *b.t->placement;
    const double x = sf.x(b.live.first), y = ybyte(pl.offset);
    return std::tuple{x, y, sf.x(b.live.last + 1) - x, ybyte(pl.offset + b.t->bytesPerPartition()) - y};
  };
  for (const Box* bp : drawnBoxes(sbuf, sbuf_rest, true)) {
    const Box& b = *bp;
    const Placement& pl = *b.t->placement;
    auto [x, y, w, h] = sbufRect(b);
    std::string parts = "p" + std::to_string(pl.partition) + ".." + std::to_string(pl.partition + b.t->partitions - 1);
    std::string title = b.t->name + ": SBUF partitions " + std::to_string(pl.partition) + ".." +
                        std::to_string(pl.partition + b.t->partitions - 1) + ", bytes " + std::to_string(pl.offset) +
                        ".." + std::to_string(pl.offset + b.t->bytesPerPartition() - 1) + ", " + liveText(b.live) +
                        (b.t->origin != Origin::Source ? std::string(", inserted (") + originName(b.t->origin) + ")" : "");
    std::string label = w > 40 && h > 10 ? b.t->name + " " + parts : "";
    if (label.empty()) toLegend(*b.t, title);
    out += tensorGroup(b, "sbuf", rect(x, y, w, h, "fill=\"" + colorOf(b.t->name) + "\" fill-opacity=\"0.7\" " + outline(*b.t)),
                       title, label, x + 2, y + std::min(h, 12.0) - 2);
  }
  out += aggregateGrid(sbuf_rest, sf, sbufRect, "sbuf");
  out += timeAxis(sf, live.order);
  // Spill stores and reloads on the time axis: one marker of each kind per pixel column.
  std::vector<int> marked;  // per pixel column: bit 1 spill, bit 2 reload
  marked.assign(size_t(kPanelWidth) + 2, 0);
  for (uint32_t pos = 0; pos < positions; ++pos) {
    const LinearPosition& lp = live.order.positions[pos];
    if (lp.kind != LinearPosition::Kind::Instruction || !lp.inst) continue;
    Origin o = lp.inst->origin;
    if (o != Origin::Spill && o != Origin::Reload) continue;
    double x = sf.x(pos + 0.5), y = sf.y0 + sf.h + 18;
    int& seen = marked[size_t(std::clamp(x - sf.x0, 0.0, kPanelWidth + 1))];
    const int bit = o == Origin::Spill ? 1 : 2;
    if (seen & bit) continue;
    seen |= bit;
    std::string pts = o == Origin::Spill
                          ? num(x - 4) + "," + num(y) + " " + num(x + 4) + "," + num(y) + " " + num(x) + "," + num(y + 7)
                          : num(x - 4) + "," + num(y + 7) + " " + num(x + 4) + "," + num(y + 7) + " " + num(x) + "," + num(y);
    out += std::string("<polygon class=\"") + (o == Origin::Spill ? "spill" : "reload") + "\" points=\"" + pts +
           "\" fill=\"" + (o == Origin::Spill ? "#d97706" : "#2563eb") + "\"><title>" +
           (o == Origin::Spill ? "spill store" : "reload") + " at position " + std::to_string(pos) + ", line " +
           std::to_string(lp.inst->loc.line) + "</title></polygon>\n";
  }
  out += "</g>\n";

  // --- PSUM banks over time
  out += "<g id=\"psum\">\n" + text(10, pf.y0 - 10, "PSUM: banks (y, all partitions) over time (x)") + "\n";
  out += rect(pf.x0, pf.y0, pf.w, pf.h, "fill=\"#f7f7f7\" stroke=\"#000\"") + "\n";
  for (uint32_t bank = 0; bank < p.arch.psum_banks; ++bank)
    out += text(4, pf.y0 + kBankHeight * (bank + 0.6), "bank " + std::to_string(bank), "font-size=\"9\"") + "\n";
  auto psumRect = [&](const Box& b) {
    const double x = pf.x(b.live.first);
    return std::tuple{x, pf.y0 + kBankHeight * b.t->placement->bank, pf.x(b.live.last + 1) - x,
                      kBankHeight * double(psumBanks(p.arch, *b.t))};
  };
  for (const Box* bp : drawnBoxes(psum, psum_rest, false)) {
    const Box& b = *bp;
    uint64_t banks = psumBanks(p.arch, *b.t);
    auto [x, y, w, h] = psumRect(b);
    std::string title = b.t->name + ": PSUM banks " + std::to_string(b.t->placement->bank) + ".." +
                        std::to_string(b.t->placement->bank + banks - 1) + ", " + liveText(b.live);
    if (w <= 30) toLegend(*b.t, title);
    out += tensorGroup(b, "psum", rect(x, y, w, h, "fill=\"" + colorOf(b.t->name) + "\" fill-opacity=\"0.8\" " + outline(*b.t)),
                       title, w > 30 ? b.t->name : "", x + 2, y + 11);
  }
  out += aggregateGrid(psum_rest, pf, psumRect, "psum");
  out += timeAxis(pf, live.order) + "</g>\n";

  // --- SBUF floorplan at the peak
  const uint64_t sbuf_total = uint64_t(p.arch.sbuf_partitions) * p.arch.sbuf_bytes;
  const LinearPosition& peak_at = live.order.positions[std::min<size_t>(peak_pos, positions ? positions - 1 : 0)];
  const std::string peak_line = positions && peak_at.inst ? ", line " + std::to_string(peak_at.inst->loc.line) : "";
  out += "<g id=\"floorplan\">\n" +
         text(10, ff.y0 - 24, "SBUF floorplan at step " + std::to_string(peak_pos) + peak_line + " (peak, " +
                                  std::to_string(peak) + " bytes live): partitions (y) x bytes (x)") + "\n";
  // A peak beyond the SBUF is no allocation: say why in words.
  size_t beyond = 0;
  for (const Box& b : sbuf) {
    const Placement& pl = *b.t->placement;
    beyond += pl.offset + b.t->bytesPerPartition() > p.arch.sbuf_bytes || pl.partition + b.t->partitions > p.arch.sbuf_partitions;
  }
  if (uint64_t(peak) > sbuf_total || beyond > 0) {
    std::string why;
    if (uint64_t(peak) > sbuf_total)
      why = "overflow: " + std::to_string(peak) + " bytes live at once is " + std::to_string(uint64_t(peak) - sbuf_total) +
            " more than the SBUF's " + std::to_string(sbuf_total) + " (" + std::to_string(p.arch.sbuf_partitions) +
            " partitions x " + std::to_string(p.arch.sbuf_bytes) + " bytes), so tensors live here share bytes or lie beyond the SBUF";
    if (beyond > 0)
      why += std::string(why.empty() ? "overflow: " : "; ") + std::to_string(beyond) +
             " tensor(s) placed past the SBUF's end (beyond the red dashed line)";
    out += text(10, ff.y0 - 10, why, "class=\"overflow\" fill=\"#b91c1c\" font-size=\"10\"") + "\n";
  }
  out += rect(ff.x0, ff.y0, ff.w, ff.h, "fill=\"#f7f7f7\" stroke=\"#000\"") + "\n";
  const double parts = std::max<uint32_t>(1, p.arch.sbuf_partitions);
  std::vector<const Box*> at_peak_rest;
  std::vector<Box> at_peak;
  for (const Box& b : sbuf)
    if (b.live.contains(peak_pos)) at_peak.push_back(b);
  for (const Box* bp : drawnBoxes(at_peak, at_peak_rest, true)) {
    const Box& b = *bp;
    const Placement& pl = *b.t->placement;
    double x = ff.x0 + ff.w * double(pl.offset) / double(ymax);
    double w = ff.w * double(b.t->bytesPerPartition()) / double(ymax);
    double y = ff.y0 + ff.h * pl.partition / parts, h = ff.h * b.t->partitions / parts;
    out += "<rect class=\"floor\" data-tensor=\"" + xmlEscape(b.t->name) + "\" x=\"" + num(x) + "\" y=\"" + num(y) +
           "\" width=\"" + num(std::max(w, 0.5)) + "\" height=\"" + num(std::max(h, 0.5)) + "\" fill=\"" +
           colorOf(b.t->name) + "\" " + outline(*b.t) + "><title>" + xmlEscape(b.t->name) + "</title></rect>\n";
    if (w > 40 && h > 10) out += text(x + 2, y + std::min(h, 12.0) - 2, b.t->name, "font-size=\"9\"") + "\n";
  }
  if (!at_peak_rest.empty())
    out += text(ff.x0, ff.y0 + ff.h + 14, std::to_string(at_peak_rest.size()) + " smaller tensors live here are not drawn",
                "font-size=\"9\"") + "\n";
  out += "</g>\n";

  // --- the legend: the tensors too small for a label
  const double legend_y = ff.y0 + ff.h + 40;
  const size_t legend_rows = (legend.size() + kLegendColumns - 1) / kLegendColumns;
  const double height = legend_y + (legend.empty() ? 0 : 16 + kLegendRow * double(legend_rows + (legend_left_out ? 1 : 0))) + 60;
  if (!legend.empty()) {
    out += "<g id=\"legend\">\n" + text(10, legend_y, "tensors too small to label (hover for the placement):") + "\n";
    for (size_t k = 0; k < legend.size(); ++k) {
      const LegendEntry& e = legend[k];
      const double x = 10 + kLegendColumn * double(k % kLegendColumns), y = legend_y + 8 + kLegendRow * double(k / kLegendColumns);
      out += "<g class=\"legend-entry\" data-tensor=\"" + xmlEscape(e.name) + "\"><title>" + xmlEscape(e.title) +
             "</title>" + rect(x, y, 10, 10, "fill=\"" + e.color + "\" stroke=\"#333\" stroke-width=\"0.6\"" +
                                             (e.inserted ? " stroke-dasharray=\"3,2\"" : "")) +
             text(x + 14, y + 9, e.name, "font-size=\"9\"") + "</g>\n";
    }
    if (legend_left_out)
      out += text(10, legend_y + 8 + kLegendRow * double(legend_rows) + 9,
                  "and " + std::to_string(legend_left_out) + " more (each box's hover title has its placement)",
                  "font-size=\"9\"") + "\n";
    out += "</g>\n";
  }

  // --- the finding, in red
  if (opts.finding) {
    const Finding& f = *opts.finding;
    out += "<g id=\"finding\">\n";
    // Its instruction's position: a red line across the time panels.
    for (uint32_t pos = 0; pos < positions; ++pos) {
      const LinearPosition& lp = live.order.positions[pos];
      if (!lp.inst || lp.inst->id != f.inst_id || f.inst_id == kNone) continue;
      double x = sf.x(pos + 0.5);
      out += "<line class=\"finding-position\" x1=\"" + num(x) + "\" y1=\"" + num(sf.y0) + "\" x2=\"" + num(x) +
             "\" y2=\"" + num(pf.y0 + pf.h) + "\" stroke=\"#dc2626\" stroke-width=\"1.5\"/>\n";
      break;
    }
    const FindingRegion& r = f.region;
    if (r.present() && (r.kind == FindingRegion::Kind::Sbuf || r.kind == FindingRegion::Kind::Psum)) {
      // Over the time both items are live (their static ranges' intersection).
      uint32_t first = 0, last = positions ? positions - 1 : 0;
      for (uint32_t item : r.items)
        if (item < live.tensors.size() && !live.tensors[item].empty()) {
          first = std::max(first, live.tensors[item].first);
          last = std::min(last, live.tensors[item].last);
        }
      if (first > last) first = last;
      const Frame& fr = r.kind == FindingRegion::Kind::Sbuf ? sf : pf;
      double x = fr.x(first), w = fr.x(last + 1) - x;
      double y = r.kind == FindingRegion::Kind::Sbuf ? ybyte(r.lo) : pf.y0 + kBankHeight * double(r.lo);
      double h = r.kind == FindingRegion::Kind::Sbuf ? ybyte(r.hi) - y : kBankHeight * double(r.hi - r.lo);
      // A one-byte clobber is thinner than a pixel: keep it visible.
      if (h < 4) y -= (4 - h) / 2, h = 4;
      out += rect(x, y, w, h, "class=\"finding-region\" fill=\"#dc2626\" fill-opacity=\"0.55\" stroke=\"#dc2626\" stroke-width=\"1.5\"") + "\n";
    }
    out += text(10, height - 30, "finding (" + std::string(oracleName(f.oracle)) + ", " + findingKindName(f.kind) + ", line " +
                                     std::to_string(f.loc.line) + "): " + f.message,
                "fill=\"#dc2626\" font-size=\"10\"") + "\n</g>\n";
  }

  out += text(10, height - 12,
              "dashed outline: inserted tensor (spill / reload / copy);  orange v: spill store;  blue ^: reload;  "
              "hover a box for its exact placement and live range", "font-size=\"9\"") + "\n";
  std::string head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                     num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " +
                     num(height) + "\" font-family=\"monospace\" font-size=\"11\">\n";
  head += "<title>" + xmlEscape("allocsim allocation map" + (opts.title.empty() ? "" : ": " + opts.title)) +
          "</title>\n<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) +
          "\" fill=\"#fff\"/>\n";
  return head + out + "</svg>\n";
}

}  // namespace allocsim::cli
