// The GPU stubs' index path, measured without a GPU (issue #16 part 3, issue #17 part 5):
// for a saxpy stub (one scalar, two projected f32 fields) in every mode and rank, with
// 64- and 32-bit indices, what the device compilers make of it:
//
//   CUDA (sm_90): the stub is compiled with the library's own NVRTC settings to PTX
//     (compute_90), and ptxas turns that PTX into a CUBIN with -v. Reported: registers
//     (ptxas -v), PTX instructions in the entry, SASS instructions in the entry's .text
//     section (16 bytes each on sm_70 and later, NOP padding after the last one left
//     out; the section's size in 16-byte words is reported too).
//   HIP (gfx90a, when hipRTC loads): the code object hipRTC returns; .sgpr_count and
//     .vgpr_count from its metadata (llvm-readelf-14 --notes) and the instructions of
//     the entry (llvm-objdump-14 -d, s_code_end padding left out).
//
// A hand-written saxpy (one thread per element, i64 and i32 index) is the baseline,
// compiled the same way. Nothing runs on a GPU: these are code-size and register
// figures, not times.
//
//   gpu_index_path [--work DIR] [--csv FILE] [--no-hip] [--quick]
//
// --work keeps every stub, PTX, CUBIN and code object in DIR (a temporary directory,
// removed at exit, otherwise); --quick measures one case per dialect (the smoke test).
// The table goes to stdout as Markdown; bench/results/gpu_index_path.md holds it.
#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backends/cuda/cuda_target.hpp"
#include "backends/cuda/nvrtc_compiler.hpp"
#include "backends/cuda/nvrtc_library.hpp"
#include "backends/hip/hip_target.hpp"
#include "backends/hip/hiprtc_compiler.hpp"
#include "codegen/stub_request.hpp"
#include "stubjit/error.hpp"
#include "stubjit/kernel.hpp"

namespace fs = std::filesystem;
using namespace stubjit;

namespace {

const char* const ptxas = "/usr/local/cuda/bin/ptxas";
const char* const readelf = "llvm-readelf-14";
const char* const objdump = "llvm-objdump-14";

struct Case {
  Mode mode;
  int rank;
  int bits;
};

struct Figures {
  int registers = -1;     // CUDA: registers per thread; HIP: VGPRs
  int sgprs = -1;         // HIP only
  int instructions = -1;  // SASS or AMDGPU instructions in the entry
  int words = -1;         // CUDA: .text size / 16, padding included
  int ptx = -1;           // CUDA: PTX instructions in the entry
  std::string note;       // spills, or why a figure is missing
};

// Runs a shell command, returning its exit status and what it printed (stdout and
// stderr). Every argument is a path this program made or a fixed option.
int run(const std::string& command, std::string& output) {
  output.clear();
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quote(const fs::path& path) { return "'" + path.string() + "'"; }

void write_file(const fs::path& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) throw Error("cannot write " + path.string());
}

std::vector<char> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The bytes of the ELF64 section named `name` (empty when there is none).
std::vector<unsigned char> elf_section(const std::vector<char>& elf, const std::string& name) {
  const auto get = [&](std::uint64_t offset, auto& value) {
    if (offset + sizeof value > elf.size()) throw Error("truncated ELF image");
    std::memcpy(&value, elf.data() + offset, sizeof value);
  };
  if (elf.size() < 64 ||
      std::memcmp(elf.data(),
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      elf[4] != 2)
    throw Error("not an ELF64 image");
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  get(40, shoff);
  get(58, shentsize);
  get(60, shnum);
  get(62, shstrndx);
  const auto header = [&](std::uint16_t i, std::uint32_t& name_offset, std::uint64_t& offset,
                          std::uint64_t& size) {
    const std::uint64_t at = shoff + std::uint64_t(i) * shentsize;
    get(at, name_offset);
    get(at + 24, offset);
    get(at + 32, size);
  };
  std::uint32_t unused = 0;
  std::uint64_t strings = 0, strings_size = 0;
  header(shstrndx, unused, strings, strings_size);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    std::uint32_t name_offset = 0;
    std::uint64_t offset = 0, size = 0;
    header(i, name_offset, offset, size);
    if (name_offset >= strings_size) continue;
    const char* section_name = elf.data() + strings + name_offset;
    if (name != section_name) continue;
    if (offset + size > elf.size()) throw Error("truncated ELF section " + name);
    return {elf.begin() + static_cast<std::ptrdiff_t>(offset),
            elf.begin() + static_cast<std::ptrdiff_t>(offset + size)};
  }
  return {};
}

// SASS of sm_70 and later: 128-bit instructions whose low 12 bits are the opcode
// (0x918 is NOP). A function's section is padded with NOPs after its final
// self-branch; those are not part of the code.
void count_sass(const std::vector<unsigned char>& text, Figures& figures) {
  figures.words = static_cast<int>(text.size() / 16);
  int end = figures.words;
  while (end > 0) {
    std::uint16_t low = 0;
    std::memcpy(&low, text.data() + (end - 1) * 16, sizeof low);
    if ((low & 0xfff) != 0x918) break;
    --end;
  }
  figures.instructions = end;
}

// Instructions in the body of PTX entry `entry`: statements (ending in ';') that are not
// directives (.reg, .param, .loc, ...), labels or comments.
int count_ptx(const std::string& ptx, const std::string& entry) {
  const std::size_t at = ptx.find(".entry " + entry);
  if (at == std::string::npos) return -1;
  std::size_t open = ptx.find("\n{", at);
  if (open == std::string::npos) return -1;
  std::istringstream body(ptx.substr(open + 2));
  std::string line;
  int count = 0;
  int depth = 1;
  while (depth > 0 && std::getline(body, line)) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const std::string text = line.substr(first);
    if (text[0] == '{') ++depth;
    if (text[0] == '}') --depth;
    if (text[0] == '{' || text[0] == '}' || text[0] == '.' || text.rfind("//", 0) == 0) continue;
    if (text.back() == ':') continue;  // a label
    if (text.find(';') != std::string::npos) ++count;
  }
  return count;
}

// "ptxas info    : Used 16 registers, used 0 barriers, 392 bytes cmem[0]" and the
// spill line that precedes it.
void read_ptxas_report(const std::string& report, Figures& figures) {
  const std::size_t used = report.find("Used ");
  if (used != std::string::npos) figures.registers = std::atoi(report.c_str() + used + 5);
  const std::size_t spill = report.find("bytes spill stores");
  if (spill != std::string::npos) {
    std::size_t begin = report.rfind('\n', spill);
    begin = begin == std::string::npos ? 0 : begin + 1;
    const std::string line = report.substr(begin, report.find('\n', spill) - begin);
    if (line.find(" 0 bytes spill stores, 0 bytes spill loads") == std::string::npos)
      figures.note = line.substr(line.find_first_not_of(" \t"));
  }
}

Figures measure_cuda(const detail::NvrtcCompiler& compiler, const std::string& source,
                     const std::string& file_name, const std::string& entry, const fs::path& dir) {
  Figures figures;
  const std::vector<std::string> options;
  const detail::Binary binary = compiler.compile({source, file_name, entry, "saxpy", options});
  std::string ptx(binary.bytes.begin(), binary.bytes.end());
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();  // NVRTC counts the NUL
  write_file(dir / (file_name + ".ptx"), ptx.data(), ptx.size());
  figures.ptx = count_ptx(ptx, entry);
  const fs::path cubin = dir / (file_name + ".cubin");
  std::string report;
  const int status = run(std::string(ptxas) + " -arch=sm_90 -v -o " + quote(cubin) + " " +
                             quote(dir / (file_name + ".ptx")),
                         report);
  if (status != 0) throw Error("ptxas failed on " + file_name + ":\n" + report);
  read_ptxas_report(report, figures);
  count_sass(elf_section(read_file(cubin), ".text." + entry), figures);
  return figures;
}

// The first integer after `key` in `text` at or after `from`.
int number_after(const std::string& text, const std::string& key, std::size_t from = 0) {
  const std::size_t at = text.find(key, from);
  return at == std::string::npos ? -1 : std::atoi(text.c_str() + at + key.size());
}

Figures measure_hip(const detail::hip::HiprtcCompiler& compiler, const std::string& source,
                    const std::string& file_name, const std::string& entry, const fs::path& dir) {
  Figures figures;
  const std::vector<std::string> options;
  const detail::Binary binary = compiler.compile({source, file_name, entry, "saxpy", options});
  const fs::path object = dir / (file_name + ".co");
  write_file(object, binary.bytes.data(), binary.bytes.size());
  std::string notes;
  if (run(std::string(readelf) + " --notes " + quote(object), notes) != 0) {
    figures.note = "llvm-readelf-14 failed";
    return figures;
  }
  // The metadata lists one kernel: the entry.
  figures.sgprs = number_after(notes, ".sgpr_count:");
  figures.registers = number_after(notes, ".vgpr_count:");
  if (number_after(notes, ".sgpr_spill_count:") > 0 ||
      number_after(notes, ".vgpr_spill_count:") > 0)
    figures.note = "spills";
  std::string listing;
  if (run(std::string(objdump) + " -d --mcpu=gfx90a " + quote(object), listing) != 0) {
    figures.note = "llvm-objdump-14 failed";
    return figures;
  }
  // Instruction lines of the entry's symbol, up to the blank line that ends it, less the
  // s_nop / s_code_end run that pads the section after the last s_endpgm.
  const std::size_t at = listing.find("<" + entry + ">:");
  if (at == std::string::npos) return figures;
  std::istringstream body(listing.substr(listing.find('\n', at) + 1));
  std::string line;
  std::vector<std::string> mnemonics;
  while (std::getline(body, line)) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) break;
    mnemonics.push_back(line.substr(first, line.find_first_of(" \t", first) - first));
  }
  while (!mnemonics.empty() && (mnemonics.back() == "s_nop" || mnemonics.back() == "s_code_end"))
    mnemonics.pop_back();
  figures.instructions = static_cast<int>(mnemonics.size());
  return figures;
}

KernelSource saxpy_kernel() {
  return {"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y;"};
}

detail::StubRequest request_for(const KernelSource& kernel, const char* emitter, Case c,
                                const DeviceLimits& limits) {
  detail::StubRequest request;
  request.emitter = emitter;
  request.mode = c.mode;
  request.rank = c.rank;
  request.index_bits = c.bits;
  request.kernel = &kernel;
  request.bindings = {Binding::scalar, Binding::projection, Binding::projection};
  request.max_threads_per_group = max_group_threads(limits, kernel.block, c.mode, c.rank);
  request.warp_size = limits.warp_size;
  return request;
}

// The kernel a CUDA or HIP programmer writes for a flat saxpy: one thread per element,
// a bounds check, the same body; 256 threads per group like the spread stubs. (hipRTC
// needs no include for blockIdx and the qualifiers, as NVRTC does not.)
std::string hand_written(int bits) {
  const std::string I = bits == 64 ? "long long" : "int";
  const std::string cast = bits == 64 ? "(long long)" : "";
  return "extern \"C\" __global__ void __launch_bounds__(256) hand_saxpy_i" + std::to_string(bits) +
         "(float a, const float* __restrict__ x, float* __restrict__ y, " + I + " n) {\n  const " +
         I + " i = blockIdx.x * " + cast +
         "blockDim.x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] + y[i];\n}\n";
}

std::vector<Case> all_cases(bool quick) {
  std::vector<Case> cases;
  for (int bits : {64, 32}) {
    if (quick) {
      cases.push_back({Mode::spread, 8, bits});
      continue;
    }
    for (int rank = 1; rank <= 3; ++rank) cases.push_back({Mode::direct, rank, bits});
    for (int rank = 1; rank <= 8; ++rank) cases.push_back({Mode::multi, rank, bits});
    for (int rank = 1; rank <= 8; ++rank) cases.push_back({Mode::spread, rank, bits});
  }
  return cases;
}

std::string cell(int value) { return value < 0 ? "–" : std::to_string(value); }

struct Row {
  std::string label;
  int bits;
  Figures cuda;
  std::optional<Figures> hip;
};

void print_table(const std::vector<Row>& rows, bool with_hip) {
  std::cout
      << "| case | index | sm_90 registers | SASS instructions | SASS words | PTX instructions";
  if (with_hip) std::cout << " | gfx90a VGPRs | gfx90a SGPRs | gfx90a instructions";
  std::cout << " | note |\n| --- | --- | --- | --- | --- | ---";
  if (with_hip) std::cout << " | --- | --- | ---";
  std::cout << " | --- |\n";
  for (const Row& row : rows) {
    std::cout << "| " << row.label << " | i" << row.bits << " | " << cell(row.cuda.registers)
              << " | " << cell(row.cuda.instructions) << " | " << cell(row.cuda.words) << " | "
              << cell(row.cuda.ptx);
    std::string note = row.cuda.note;
    if (with_hip) {
      const Figures none;
      const Figures& hip = row.hip ? *row.hip : none;
      std::cout << " | " << cell(hip.registers) << " | " << cell(hip.sgprs) << " | "
                << cell(hip.instructions);
      if (!hip.note.empty()) note += (note.empty() ? "hip: " : "; hip: ") + hip.note;
    }
    std::cout << " | " << note << " |\n";
  }
}

void write_csv(const fs::path& path, const std::vector<Row>& rows) {
  std::ofstream out(path);
  out << "case,index_bits,sm90_registers,sass_instructions,sass_words,ptx_instructions,"
         "gfx90a_vgprs,gfx90a_sgprs,gfx90a_instructions\n";
  for (const Row& row : rows) {
    const Figures none;
    const Figures& hip = row.hip ? *row.hip : none;
    out << row.label << "," << row.bits << "," << row.cuda.registers << "," << row.cuda.instructions
        << "," << row.cuda.words << "," << row.cuda.ptx << "," << hip.registers << "," << hip.sgprs
        << "," << hip.instructions << "\n";
  }
  if (!out) throw Error("cannot write " + path.string());
}

int main_checked(int argc, char** argv) {
  std::optional<fs::path> work;
  std::optional<fs::path> csv;
  bool with_hip = true;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--work" && i + 1 < argc) {
      work = argv[++i];
    } else if (arg == "--csv" && i + 1 < argc) {
      csv = argv[++i];
    } else if (arg == "--no-hip") {
      with_hip = false;
    } else if (arg == "--quick") {
      quick = true;
    } else {
      std::cerr << "usage: gpu_index_path [--work DIR] [--csv FILE] [--no-hip] [--quick]\n";
      return 2;
    }
  }
  if (!fs::exists(ptxas)) throw Error(std::string(ptxas) + " is not installed");
  fs::path dir;
  bool remove_dir = false;
  if (work) {
    dir = *work;
    fs::create_directories(dir);
  } else {
    char pattern[] = "/tmp/stubjit-gpu-index-XXXXXX";
    if (!mkdtemp(pattern)) throw Error("cannot make a temporary directory");
    dir = pattern;
    remove_dir = true;
  }

  // NVRTC as the CUDA backend drives it, but for PTX: ptxas compiles the PTX so that
  // its -v report comes with the CUBIN (the same ptxas NVRTC embeds, version for version).
  const detail::NvrtcCompiler nvrtc(detail::load_nvrtc(),
                                    detail::CudaTarget{detail::parse_cuda_arch("sm_90"), true});
  DeviceLimits cuda_limits;
  cuda_limits.preferred_block = detail::cuda_block_shapes();
  std::optional<detail::hip::HiprtcCompiler> hiprtc;
  DeviceLimits hip_limits;
  if (with_hip) {
    try {
      hiprtc.emplace("gfx90a");
      detail::hip::HipDeviceShape shape;
      shape.wavefront_size = detail::hip::default_wavefront_size("gfx90a");
      hip_limits = detail::hip::hip_device_limits(shape);
    } catch (const Error& error) {
      std::cerr << "HIP left out: " << error.what() << "\n";
      with_hip = false;
    }
  }

  const KernelSource kernel = saxpy_kernel();
  std::vector<Row> rows;
  for (int bits : {64, 32}) {
    Row row{"hand-written saxpy", bits, {}, std::nullopt};
    const std::string name = "hand_saxpy_i" + std::to_string(bits);
    row.cuda = measure_cuda(nvrtc, hand_written(bits), name + ".cu", name, dir);
    if (with_hip) row.hip = measure_hip(*hiprtc, hand_written(bits), name + ".hip", name, dir);
    rows.push_back(row);
  }
  for (const Case& c : all_cases(quick)) {
    Row row{std::string(name_of(c.mode)) + " r" + std::to_string(c.rank), c.bits, {}, std::nullopt};
    const std::string suffix = "_i" + std::to_string(c.bits);
    const detail::GeneratedStub cuda =
        detail::generate_stub(request_for(kernel, "cuda", c, cuda_limits));
    write_file(dir / (cuda.file_name + suffix), cuda.source.data(), cuda.source.size());
    row.cuda = measure_cuda(nvrtc, cuda.source, cuda.file_name + suffix, cuda.entry, dir);
    if (with_hip) {
      const detail::GeneratedStub hip =
          detail::generate_stub(request_for(kernel, "hip", c, hip_limits));
      write_file(dir / (hip.file_name + suffix), hip.source.data(), hip.source.size());
      row.hip = measure_hip(*hiprtc, hip.source, hip.file_name + suffix, hip.entry, dir);
    }
    rows.push_back(row);
    std::cerr << "." << std::flush;
  }
  std::cerr << "\n";
  print_table(rows, with_hip);
  if (csv) write_csv(*csv, rows);
  if (remove_dir) fs::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return main_checked(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "gpu_index_path: " << error.what() << "\n";
    return 1;
  }
}
