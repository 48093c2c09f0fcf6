#include "tools/output_dump.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "ir/hash.h"
#include "ir/values.h"

namespace allocsim::cli {
namespace {

uint64_t hashOf(const std::vector<uint8_t>& bytes) {
  OperandHasher h;
  h.bytes(bytes.data(), bytes.size());
  return h.digest();
}

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

std::string shapeOf(const Tensor& t) {
  return "[" + std::to_string(t.partitions) + ", " + std::to_string(t.elements) + "] " + dtypeName(t.dtype);
}

std::string jsonNumber(const std::string& s) {
  // JSON has no inf/nan literals: quote them.
  if (s != "inf" && s != "-inf" && s != "nan" && s != "-nan") return s;
  std::string quoted(1, '"');  // appended piecewise: gcc 12 warns falsely (-Wrestrict) on "\"" + s
  quoted += s;
  quoted += '"';
  return quoted;
}

}  // namespace

std::string formatElement(DType t, const uint8_t* bytes) {
  char buf[48];
  uint32_t u32 = 0;
  uint16_t u16 = 0;
  switch (t) {
    case DType::U32:
      std::memcpy(&u32, bytes, 4);
      std::snprintf(buf, sizeof buf, "%" PRIu32, u32);
      break;
    case DType::I32:
      std::memcpy(&u32, bytes, 4);
      std::snprintf(buf, sizeof buf, "%" PRId32, int32_t(u32));
      break;
    case DType::U16:
      std::memcpy(&u16, bytes, 2);
      std::snprintf(buf, sizeof buf, "%u", unsigned(u16));
      break;
    case DType::F32:
      std::memcpy(&u32, bytes, 4);
      std::snprintf(buf, sizeof buf, "%.9g", double(bitsF32(u32)));
      break;
    case DType::BF16:
      std::memcpy(&u16, bytes, 2);
      std::snprintf(buf, sizeof buf, "%.4g", double(bf16ToF32(u16)));
      break;
    case DType::I16:
    case DType::I8: std::snprintf(buf, sizeof buf, "%" PRId32, int32_t(loadInt(t, bytes, NumClass::Signed))); break;
    case DType::U8: std::snprintf(buf, sizeof buf, "%u", unsigned(bytes[0])); break;
    case DType::F16: std::snprintf(buf, sizeof buf, "%.5g", double(loadF32(t, bytes))); break;
    case DType::F8E4M3:
    case DType::F8E5M2:
    case DType::F8E4M3FN: std::snprintf(buf, sizeof buf, "%.3g", double(loadF32(t, bytes))); break;
  }
  return buf;
}

std::string outputsText(const Program& p, const InterpResult& r, bool values) {
  std::string out;
  for (TensorId id = 0; id < p.tensors.size(); ++id) {
    const Tensor& t = p.tensors[id];
    if (!t.output || id >= r.outputs.size()) continue;
    out += "output " + t.name + " " + shapeOf(t) + " hash=" + hex64(hashOf(r.outputs[id])) + "\n";
    if (!values) continue;
    uint32_t size = dtypeSize(t.dtype);
    for (uint32_t part = 0; part < t.partitions; ++part) {
      out += "  [" + std::to_string(part) + "]";
      for (uint32_t e = 0; e < t.elements; ++e)
        out += " " + formatElement(t.dtype, r.outputs[id].data() + (uint64_t(part) * t.elements + e) * size);
      out += "\n";
    }
  }
  out += "executed " + std::to_string(r.steps) + " steps\n";
  return out;
}

std::string outputsJson(const Program& p, const InterpResult& r, bool values) {
  std::string out = "{\"steps\": " + std::to_string(r.steps) + ", \"outputs\": [";
  bool first = true;
  for (TensorId id = 0; id < p.tensors.size(); ++id) {
    const Tensor& t = p.tensors[id];
    if (!t.output || id >= r.outputs.size()) continue;
    out += first ? "" : ", ";
    first = false;
    out += "{\"name\": \"" + t.name + "\", \"partitions\": " + std::to_string(t.partitions) +
           ", \"elements\": " + std::to_string(t.elements) + ", \"dtype\": \"" + dtypeName(t.dtype) +
           "\", \"hash\": \"" + hex64(hashOf(r.outputs[id])) + "\"";
    if (values) {
      out += ", \"values\": [";
      uint32_t size = dtypeSize(t.dtype);
      for (uint32_t part = 0; part < t.partitions; ++part) {
        out += part ? ", [" : "[";
        for (uint32_t e = 0; e < t.elements; ++e) {
          if (e) out += ", ";
          out += jsonNumber(formatElement(t.dtype, r.outputs[id].data() + (uint64_t(part) * t.elements + e) * size));
        }
        out += "]";
      }
      out += "]";
    }
    out += "}";
  }
  out += "]}\n";
  return out;
}

}  // namespace allocsim::cli
