#include "tools/allocation_svg.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "alloc/liveness.h"
#include "verify/placement_rules.h"

namespace allocsim::cli {
namespace {

constexpr double kLeft = 90, kPanelWidth = 1000, kSbufHeight = 360, kBankHeight = 28, kFloorHeight = 240;

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

// A stable colour per tensor name (FNV-1a hue), so the same tensor looks the same in every picture.
std::string colourOf(const std::string& name) {
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

// Ticks along the time axis of a panel.
std::string timeAxis(const Frame& f, uint32_t positions) {
  std::string out = "<line x1=\"" + num(f.x0) + "\" y1=\"" + num(f.y0 + f.h) + "\" x2=\"" + num(f.x0 + f.w) +
                    "\" y2=\"" + num(f.y0 + f.h) + "\" stroke=\"#000\"/>\n";
  uint32_t step = std::max<uint32_t>(1, positions / 10);
  for (uint32_t p = 0; p < positions; p += step)
    out += text(f.x(p), f.y0 + f.h + 12, std::to_string(p), "font-size=\"9\"") + "\n";
  return out;
}

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
    delta[b.live.first] += int64_t(b.t->totalBytes());
    delta[b.live.last + 1] -= int64_t(b.t->totalBytes());
  }
  int64_t cur = 0, peak = 0;
  uint32_t peak_pos = 0;
  for (uint32_t i = 0; i < positions; ++i) {
    cur += delta[i];
    if (cur > peak) peak = cur, peak_pos = i;
  }

  const double psum_h = kBankHeight * std::max<uint32_t>(1, p.arch.psum_banks);
  Frame sf{kLeft, 60, kPanelWidth, kSbufHeight, double(std::max<uint32_t>(positions, 1))};
  Frame pf{kLeft, sf.y0 + sf.h + 70, kPanelWidth, psum_h, sf.positions};
  Frame ff{kLeft, pf.y0 + pf.h + 70, kPanelWidth, kFloorHeight, 1};
  const double height = ff.y0 + ff.h + 60;
  const double width = kLeft + kPanelWidth + 30;

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " +
                    num(height) + "\" font-family=\"monospace\" font-size=\"11\">\n";
  out += "<title>" + xmlEscape("allocsim allocation map" + (opts.title.empty() ? "" : ": " + opts.title)) +
         "</title>\n<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) +
         "\" fill=\"#fff\"/>\n";
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
  for (const Box& b : sbuf) {
    const Placement& pl = *b.t->placement;
    double x = sf.x(b.live.first), w = sf.x(b.live.last + 1) - x;
    double y = ybyte(pl.offset), h = ybyte(pl.offset + b.t->bytesPerPartition()) - y;
    std::string parts = "p" + std::to_string(pl.partition) + ".." + std::to_string(pl.partition + b.t->partitions - 1);
    std::string title = b.t->name + ": SBUF partitions " + std::to_string(pl.partition) + ".." +
                        std::to_string(pl.partition + b.t->partitions - 1) + ", bytes " + std::to_string(pl.offset) +
                        ".." + std::to_string(pl.offset + b.t->bytesPerPartition() - 1) + ", " + liveText(b.live) +
                        (b.t->origin != Origin::Source ? std::string(", inserted (") + originName(b.t->origin) + ")" : "");
    std::string label = w > 40 && h > 10 ? b.t->name + " " + parts : "";
    out += tensorGroup(b, "sbuf", rect(x, y, w, h, "fill=\"" + colourOf(b.t->name) + "\" fill-opacity=\"0.7\" " + outline(*b.t)),
                       title, label, x + 2, y + std::min(h, 12.0) - 2);
  }
  out += timeAxis(sf, positions);
  // Spill stores and reloads on the time axis.
  for (uint32_t pos = 0; pos < positions; ++pos) {
    const LinearPosition& lp = live.order.positions[pos];
    if (lp.kind != LinearPosition::Kind::Instruction || !lp.inst) continue;
    Origin o = lp.inst->origin;
    if (o != Origin::Spill && o != Origin::Reload) continue;
    double x = sf.x(pos + 0.5), y = sf.y0 + sf.h + 18;
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
  for (const Box& b : psum) {
    uint64_t banks = psumBanks(p.arch, *b.t);
    double x = pf.x(b.live.first), w = pf.x(b.live.last + 1) - x;
    double y = pf.y0 + kBankHeight * b.t->placement->bank, h = kBankHeight * double(banks);
    std::string title = b.t->name + ": PSUM banks " + std::to_string(b.t->placement->bank) + ".." +
                        std::to_string(b.t->placement->bank + banks - 1) + ", " + liveText(b.live);
    out += tensorGroup(b, "psum", rect(x, y, w, h, "fill=\"" + colourOf(b.t->name) + "\" fill-opacity=\"0.8\" " + outline(*b.t)),
                       title, w > 30 ? b.t->name : "", x + 2, y + 11);
  }
  out += timeAxis(pf, positions) + "</g>\n";

  // --- SBUF floorplan at the peak
  out += "<g id=\"floorplan\">\n" +
         text(10, ff.y0 - 10, "SBUF floorplan at position " + std::to_string(peak_pos) + " (peak, " +
                                  std::to_string(peak) + " bytes live): partitions (y) x bytes (x)") + "\n";
  out += rect(ff.x0, ff.y0, ff.w, ff.h, "fill=\"#f7f7f7\" stroke=\"#000\"") + "\n";
  const double parts = std::max<uint32_t>(1, p.arch.sbuf_partitions);
  for (const Box& b : sbuf) {
    if (!b.live.contains(peak_pos)) continue;
    const Placement& pl = *b.t->placement;
    double x = ff.x0 + ff.w * double(pl.offset) / double(ymax);
    double w = ff.w * double(b.t->bytesPerPartition()) / double(ymax);
    double y = ff.y0 + ff.h * pl.partition / parts, h = ff.h * b.t->partitions / parts;
    out += "<rect class=\"floor\" data-tensor=\"" + xmlEscape(b.t->name) + "\" x=\"" + num(x) + "\" y=\"" + num(y) +
           "\" width=\"" + num(std::max(w, 0.5)) + "\" height=\"" + num(std::max(h, 0.5)) + "\" fill=\"" +
           colourOf(b.t->name) + "\" " + outline(*b.t) + "><title>" + xmlEscape(b.t->name) + "</title></rect>\n";
    if (w > 40 && h > 10) out += text(x + 2, y + std::min(h, 12.0) - 2, b.t->name, "font-size=\"9\"") + "\n";
  }
  out += "</g>\n";

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
  return out + "</svg>\n";
}

}  // namespace allocsim::cli
