#include "backends/cpu/host_cpu.hpp"

#include <fcntl.h>
#include <sys/auxv.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstring>
#include <map>
#include <set>
#include <string>

#include "support/hash.hpp"

namespace stubjit::detail {
namespace {

// The fields of /proc/cpuinfo that say which code the CPU runs: x86 (vendor_id ...
// flags) and AArch64 (CPU implementer ... Features). Per-core and varying fields
// (MHz, core ids, bogomips) are left out.
const std::set<std::string>& identifying_fields() {
  static const std::set<std::string> fields = {"vendor_id",
                                               "cpu family",
                                               "model",
                                               "stepping",
                                               "flags",
                                               "CPU implementer",
                                               "CPU architecture",
                                               "CPU variant",
                                               "CPU part",
                                               "CPU revision",
                                               "Features",
                                               "isa",
                                               "uarch",
                                               "cpu",
                                               "model name"};
  return fields;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  const auto last = text.find_last_not_of(" \t");
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

// The first processor's block only: on a machine with hundreds of cores the whole
// file is long, and the kernel computes each core's block as it is read.
[[maybe_unused]] std::string read_first_processor() {
  std::string text;
  const int fd = ::open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  while (text.find("\n\n") == std::string::npos && text.size() < (1u << 16)) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

void append_word(std::string& words, unsigned value) {
  static const char digits[] = "0123456789abcdef";
  for (int shift = 28; shift >= 0; shift -= 4) words += digits[(value >> shift) & 0xf];
  words += ' ';
}

// What the compiler reads to choose -march=native's CPU and features, read the same
// way: on x86 the CPUID leaves and XCR0 (the kernel's flags list only the features it
// knows); elsewhere the auxiliary vector's hardware capabilities. Per-core values
// (APIC ids, core counts) are left out.
std::string native_feature_words() {
  std::string words;
#if defined(__x86_64__) || defined(__i386__)
  // The leaves that hold the instruction-set features code generation uses. CPUID
  // traps to the hypervisor in a virtual machine (13 us each on the VM these figures
  // come from), so only these four are read, without asking for the highest leaf
  // first: every x86-64 CPU made since 2013 has them, and an older one answers with
  // data of its own, still the same on every such CPU. Leaves that only enable
  // intrinsics (ptwrite, key locker, clzero) are left out.
  const auto leaf = [&](unsigned number, unsigned sub, bool with_b) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid_count(number, sub, a, b, c, d);
    append_word(words, a);
    if (with_b) append_word(words, b);
    append_word(words, c);
    append_word(words, d);
  };
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(1, a, b, c, d);  // family, model, stepping; features (b: APIC id, no)
  append_word(words, a);
  append_word(words, c);
  append_word(words, d);
  leaf(7, 0, true);            // extended features
  leaf(7, 1, true);            // more extended features
  leaf(0x80000001, 0, false);  // AMD and 64-bit extensions
  if (c & (1u << 27)) {        // OSXSAVE: XCR0, the register state the OS enables
    unsigned low = 0, high = 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    append_word(words, low);
    append_word(words, high);
  }
#else
  append_word(words, static_cast<unsigned>(::getauxval(AT_HWCAP)));
  append_word(words, static_cast<unsigned>(::getauxval(AT_HWCAP) >> 32));
#ifdef AT_HWCAP2
  append_word(words, static_cast<unsigned>(::getauxval(AT_HWCAP2)));
  append_word(words, static_cast<unsigned>(::getauxval(AT_HWCAP2) >> 32));
#endif
#endif
  return words;
}

std::string machine_triple() {
#if defined(__x86_64__)
  return "x86_64-pc-linux-gnu";
#elif defined(__aarch64__)
  return "aarch64-unknown-linux-gnu";
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return "powerpc64le-unknown-linux-gnu";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64-unknown-linux-gnu";
#else
  return "unknown-linux-gnu";
#endif
}

}  // namespace

HostCpu host_cpu_from(const std::string& cpuinfo, const std::string& feature_words) {
  std::map<std::string, std::string> fields;
  std::size_t begin = 0;
  while (begin < cpuinfo.size()) {
    std::size_t end = cpuinfo.find('\n', begin);
    if (end == std::string::npos) end = cpuinfo.size();
    const std::string line = cpuinfo.substr(begin, end - begin);
    begin = end + 1;
    if (trimmed(line).empty()) {
      if (!fields.empty()) break;  // the end of the first processor's block
      continue;
    }
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string name = trimmed(line.substr(0, colon));
    if (identifying_fields().count(name) && !fields.count(name))
      fields[name] = trimmed(line.substr(colon + 1));
  }
  std::string identity;
  for (const auto& [name, value] : fields) identity += name + "=" + value + "\n";
  identity += "native=" + feature_words + "\n";
  HostCpu cpu;
  for (const char* name : {"model name", "cpu", "uarch"}) {
    if (fields.count(name)) {
      cpu.model = fields[name];
      break;
    }
  }
  if (cpu.model.empty()) cpu.model = "unknown CPU";
  std::string family;
  for (const char* name : {"vendor_id", "cpu family", "model", "CPU implementer", "CPU part"}) {
    if (fields.count(name)) family += (family.empty() ? "" : "-") + fields[name];
  }
  for (char& c : family) {
    if (c == ' ' || c == '/') c = '_';
  }
  cpu.target_id = machine_triple() + "/" + (family.empty() ? "cpu" : family) + "/" +
                  hex64(hash64(identity)).substr(0, 8);
  return cpu;
}

#if defined(__x86_64__) || defined(__i386__)
// On x86 the CPU describes itself through CPUID, which the compiler reads too:
// /proc/cpuinfo is not read (the kernel samples every core's clock to write it, a
// quarter of a millisecond here, at every process start).
std::string x86_identity() {
  unsigned max = 0, b = 0, c = 0, d = 0, signature = 0;
  __cpuid(0, max, b, c, d);
  char vendor[13] = {};
  std::memcpy(vendor, &b, 4);
  std::memcpy(vendor + 4, &d, 4);
  std::memcpy(vendor + 8, &c, 4);
  __cpuid(1, signature, b, c, d);
  unsigned family = (signature >> 8) & 0xf, model = (signature >> 4) & 0xf;
  if (family == 0xf) family += (signature >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf) model |= ((signature >> 16) & 0xf) << 4;
  return std::string("vendor_id: ") + vendor + "\ncpu family: " + std::to_string(family) +
         "\nmodel: " + std::to_string(model) + "\nstepping: " + std::to_string(signature & 0xf) +
         "\nmodel name: " + vendor + " family " + std::to_string(family) + " model " +
         std::to_string(model) + "\n";
}
#endif

const HostCpu& host_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  static const HostCpu cpu = host_cpu_from(x86_identity(), native_feature_words());
#else
  static const HostCpu cpu = host_cpu_from(read_first_processor(), native_feature_words());
#endif
  return cpu;
}

}  // namespace stubjit::detail
