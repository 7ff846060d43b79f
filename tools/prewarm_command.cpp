// stubjit cache prewarm FILE... [--target T] [--emit DIR]: compiles (or finds in the
// cache) every stub the launches of kernel description files need, for a target,
// without running anything, so that an application's first launches load from disk.
// Public API only: Runtime, Kernel::prepare, Kernel::binary.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "kernel_file.hpp"
#include "stubjit/runtime.hpp"

namespace stubjit::tool {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// "host": the CPU backend; sm_XY / compute_XY: CUDA; gfx...: HIP, the GPU ones
// compile-only (RuntimeOptions::target) whether or not this machine has the device.
RuntimeOptions options_for(const std::string& target, const std::string& cache_dir) {
  RuntimeOptions options;
  options.cache_dir = cache_dir;
  if (target == "host") {
    options.backend = "cpu";
  } else if (target.rfind("sm_", 0) == 0 || target.rfind("compute_", 0) == 0) {
    options.backend = "cuda";
    options.target = target;
  } else if (target.rfind("gfx", 0) == 0) {
    options.backend = "hip";
    options.target = target;
  } else if (!target.empty()) {
    throw Error("unknown target '" + target +
                "' (host, sm_XY or compute_XY for CUDA, gfxNNN for HIP)");
  }
  return options;
}

std::vector<std::int64_t> default_extents(const Param& param, Binding binding, const Domain& domain,
                                          int dimension) {
  std::vector<std::int64_t> extents;
  if (param.is_result() && !param.is_scan() && param.rank > 0) {
    // A reduction along a dimension: the other dimensions' counts (a mismatched rank
    // is the launch's to refuse).
    const int along = dimension < 0 ? domain.rank() - 1 : dimension;
    for (int d = 0; d < domain.rank(); ++d)
      if (d != along) extents.push_back(domain[d].count);
    extents.resize(static_cast<std::size_t>(param.rank), 1);
    return extents;
  }
  if (binding == Binding::projection) {
    // Just wide enough for the domain's highest index in each dimension.
    for (const Dim& dim : domain.dims())
      extents.push_back(dim.count == 0 ? 1 : std::max(dim.first, dim.at(dim.count - 1)) + 1);
  }
  extents.resize(extents.size() + static_cast<std::size_t>(param.rank), 1);
  return extents;
}

// Arguments of the right kinds, types and shapes. Prepare reads no element, so the
// fields wrap addresses that hold nothing: each its own range, as separate
// allocations would be, so that the aliasing check sees what an application's would.
class PlaceholderArgs {
 public:
  PlaceholderArgs(Runtime& runtime, const KernelDescription& kernel,
                  const LaunchDescription& launch, const Domain& domain) {
    // A misspelt name would silently prepare the stub of other shapes or values.
    const Signature& signature = kernel.source.signature;
    for (const auto& [name, shape] : launch.extents) {
      if (!has_param(signature, name, ParamKind::field))
        throw Error("extents." + name + ": the kernel has no field parameter '" + name + "'");
    }
    for (const auto& [name, value] : launch.values) {
      if (!has_param(signature, name, ParamKind::scalar))
        throw Error("values." + name + ": the kernel has no scalar parameter '" + name + "'");
    }
    fields_.reserve(kernel.source.signature.size());
    for (std::size_t i = 0; i < kernel.source.signature.size(); ++i) {
      const Param& param = kernel.source.signature[i];
      if (!takes_argument(param)) continue;
      if (param.kind == ParamKind::scalar) {
        const auto given = launch.values.find(param.name);
        args_.push_back(given != launch.values.end() ? value_of(param, given->second)
                                                     : value_of(param, ScalarValue{}));  // zero
        continue;
      }
      const auto given = launch.extents.find(param.name);
      const std::vector<std::int64_t> extents =
          given != launch.extents.end()
              ? given->second
              : default_extents(param, kernel.bindings[i], domain, launch.dimension);
      void* const address = next_address(extents, param.type);  // checks the size first
      // A Fortran-order launch's fields are column-major, as a Fortran program's are.
      std::vector<std::int64_t> strides;
      if (launch.order == Order::fortran) {
        std::int64_t stride = 1;
        for (std::int64_t extent : extents) {
          strides.push_back(stride);
          stride *= std::max<std::int64_t>(extent, 1);  // as Layout::column_major does
        }
      }
      fields_.push_back(runtime.wrap_memory(address, param.type, extents, strides,
                                            param.access == Access::read_write));
      args_.push_back(fields_.back());
    }
  }
  const std::vector<Arg>& args() const { return args_; }

 private:
  static bool has_param(const Signature& signature, const std::string& name, ParamKind kind) {
    for (const Param& param : signature)
      if (param.name == name && param.kind == kind) return true;
    return false;
  }

  // The file's number as the parameter's type: a whole number for an integer type, in
  // its range; any number for a float (rounded to the nearest float or double).
  static Arg value_of(const Param& param, const ScalarValue& value) {
    const std::string where = "values." + param.name + ": ";
    if (value.kind == ScalarValue::Kind::boolean && param.type != ElementType::boolean)
      throw Error(where + "true or false is for bool; " + to_string(param) + " takes a number");
    const bool is_complex =
        param.type == ElementType::complex_f32 || param.type == ElementType::complex_f64;
    if (value.kind == ScalarValue::Kind::complex && !is_complex)
      throw Error(where + "[real, imaginary] is for a complex; " + to_string(param) +
                  " takes a number");
    const bool has_real =
        value.kind == ScalarValue::Kind::real || value.kind == ScalarValue::Kind::complex;
    const double real = has_real ? value.real
                        : value.kind == ScalarValue::Kind::integer
                            ? static_cast<double>(value.integer)
                            : static_cast<double>(value.unsigned_integer);
    switch (param.type) {
      case ElementType::f32:
        return Arg(static_cast<float>(real));
      case ElementType::f64:
        return Arg(real);
      case ElementType::float16:
        return Arg(float16(static_cast<float>(real)));
      case ElementType::bfloat16:
        return Arg(bfloat16(static_cast<float>(real)));
      case ElementType::complex_f32:
        return Arg(
            std::complex<float>(static_cast<float>(real), static_cast<float>(value.imaginary)));
      case ElementType::complex_f64:
        return Arg(std::complex<double>(real, value.imaginary));
      default:
        break;
    }
    if (value.kind == ScalarValue::Kind::real)
      throw Error(where + "a whole number is expected for " + to_string(param));
    // As a 128-bit integer, every whole number the file can hold compares exactly.
    const __int128 whole = value.kind == ScalarValue::Kind::unsigned_integer
                               ? static_cast<__int128>(value.unsigned_integer)
                               : static_cast<__int128>(value.integer);
    const auto in_range = [&](__int128 least, __int128 most) {
      if (whole < least || whole > most)
        throw Error(where + "out of range for " + to_string(param));
    };
    switch (param.type) {
      case ElementType::i32:
        in_range(INT32_MIN, INT32_MAX);
        return Arg(static_cast<std::int32_t>(whole));
      case ElementType::i64:
        in_range(INT64_MIN, INT64_MAX);
        return Arg(static_cast<std::int64_t>(whole));
      case ElementType::u32:
        in_range(0, UINT32_MAX);
        return Arg(static_cast<std::uint32_t>(whole));
      case ElementType::i8:
        in_range(INT8_MIN, INT8_MAX);
        return Arg(static_cast<std::int8_t>(whole));
      case ElementType::u8:
        in_range(0, UINT8_MAX);
        return Arg(static_cast<std::uint8_t>(whole));
      case ElementType::i16:
        in_range(INT16_MIN, INT16_MAX);
        return Arg(static_cast<std::int16_t>(whole));
      case ElementType::u16:
        in_range(0, UINT16_MAX);
        return Arg(static_cast<std::uint16_t>(whole));
      case ElementType::u64:
        in_range(0, UINT64_MAX);
        return Arg(static_cast<std::uint64_t>(whole));
      case ElementType::boolean:
        in_range(0, 1);  // 0 or 1 (JSON true/false are read as 1 and 0)
        return Arg(whole != 0);
      default:
        break;
    }
    return Arg(0.0f);  // not reached: the floating types returned above
  }

  PlaceholderArgs(const PlaceholderArgs&) = delete;
  PlaceholderArgs& operator=(const PlaceholderArgs&) = delete;

  void* next_address(const std::vector<std::int64_t>& extents, ElementType type) {
    unsigned __int128 bytes = size_of(type);
    for (std::int64_t extent : extents) bytes *= static_cast<std::uint64_t>(extent);
    constexpr unsigned __int128 most = std::uint64_t{1} << 56;
    if (bytes > most || next_ + bytes > most)
      throw Error("the fields of a launch in the file need more than 2^56 bytes");
    const std::uint64_t address = static_cast<std::uint64_t>(next_);
    next_ = (next_ + bytes + 4095) / 4096 * 4096;
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(address));
  }

  unsigned __int128 next_ = std::uint64_t{1} << 32;
  std::vector<Field> fields_;  // reserved up front: args_ point into it
  std::vector<Arg> args_;
};

std::string extension_of(const std::string& format) {
  if (format == "cubin") return ".cubin";
  if (format == "ptx") return ".ptx";
  if (format == "amdgpu-code-object") return ".hsaco";
  if (format == "elf-shared-object") return ".so";
  return ".bin";
}

std::string emit(Kernel& kernel, const Domain& domain, const std::vector<Arg>& args,
                 const LaunchOptions& options, const std::string& dir) {
  const StubBinary binary = kernel.binary(domain, args, options);
  fs::create_directories(dir);
  const fs::path path = fs::path(dir) / (binary.entry + "-" + binary.cache_name.substr(0, 16) +
                                         extension_of(binary.format));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(binary.bytes.data(), static_cast<std::streamsize>(binary.bytes.size()));
  if (!out.flush()) throw Error("cannot write " + path.string());
  return path.string();
}

int prewarm(const PrewarmFlags& flags, const std::string& cache_dir, bool as_json) {
  std::vector<KernelDescription> kernels;
  for (const std::string& file : flags.files) {
    for (KernelDescription& kernel : read_kernel_list(file)) {
      if (kernel.launches.empty()) {
        throw KernelFileError(file + ": kernel '" + kernel.source.name +
                              "' has no \"launches\" to prepare");
      }
      kernels.push_back(std::move(kernel));
    }
  }
  const RuntimeOptions options = options_for(flags.target, cache_dir);
  std::optional<Runtime> runtime;
  try {
    runtime.emplace(options);
  } catch (const BackendError& error) {
    throw Error("cannot compile for " + (flags.target.empty() ? "this machine" : flags.target) +
                ": " + error.what());
  }
  if (runtime->cache_dir().empty() && flags.emit_dir.empty()) {
    throw Error("the disk cache is off (STUBJIT_CACHE=off): prewarm would keep nothing");
  }
  json stubs = json::array();
  std::size_t compiled = 0, cached = 0, empty = 0;
  for (const KernelDescription& description : kernels) {
    Kernel kernel = runtime->kernel(description.source);
    for (std::size_t i = 0; i < description.launches.size(); ++i) {
      const LaunchDescription& launch = description.launches[i];
      const std::string where = description.source.name + " launch " + std::to_string(i);
      try {
        const Domain domain(launch.domain, launch.order);
        const PlaceholderArgs args(*runtime, description, launch, domain);
        LaunchOptions launch_options;
        launch_options.mode = launch.mode;
        launch_options.reduce_dimension = launch.dimension;
        const LaunchSummary summary =
            kernel.prepare_args(domain, args.args().data(), args.args().size(), launch_options);
        const char* status = summary.dispatches == 0 ? "empty"
                             : summary.compiled      ? "compiled"
                                                     : "cached";
        (summary.dispatches == 0 ? empty : summary.compiled ? compiled : cached) += 1;
        json stub = {{"kernel", description.source.name},
                     {"launch", i},
                     {"domain", domain.to_string()},
                     {"mode", name_of(summary.mode)},
                     {"rank", summary.rank},
                     {"dispatches", summary.dispatches},
                     {"status", status}};
        if (!flags.emit_dir.empty() && summary.dispatches > 0)
          stub["binary"] = emit(kernel, domain, args.args(), launch_options, flags.emit_dir);
        if (!as_json) {
          std::printf("%-8s %s %s %s r%d (%zu dispatch%s)%s%s\n", status,
                      description.source.name.c_str(), domain.to_string().c_str(),
                      name_of(summary.mode), summary.rank, summary.dispatches,
                      summary.dispatches == 1 ? "" : "es", stub.contains("binary") ? " -> " : "",
                      stub.contains("binary") ? stub["binary"].get<std::string>().c_str() : "");
        }
        stubs.push_back(std::move(stub));
      } catch (const CompileError& error) {
        throw Error(where + ": " + error.what() + "\n" + error.log());
      } catch (const Error& error) {
        throw Error(where + ": " + error.what());
      }
    }
  }
  // Entries are written in the background: counters() waits for them, so this says
  // whether every stub compiled here is on disk (a full disk or a quota only warns).
  const CacheCounters counters = runtime->counters();
  const bool all_written = runtime->cache_dir().empty() || counters.disk_writes >= compiled;
  if (as_json) {
    const json out = {{"backend", runtime->backend_name()},
                      {"target", runtime->target_id()},
                      {"compiler", runtime->compiler_id()},
                      {"cache_dir", runtime->cache_dir()},
                      {"compiled", compiled},
                      {"cached", cached},
                      {"empty", empty},
                      {"written", counters.disk_writes},
                      {"stubs", stubs}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%zu compiled, %zu already cached, %zu empty; %s %s (%s), cache %s\n", compiled,
                cached, empty, runtime->backend_name().c_str(), runtime->target_id().c_str(),
                runtime->compiler_id().c_str(),
                runtime->cache_dir().empty() ? "off" : runtime->cache_dir().c_str());
  }
  if (!all_written) {
    std::fprintf(stderr,
                 "stubjit cache prewarm: only %llu of the %zu stubs compiled reached the disk "
                 "cache (see the warnings above)\n",
                 static_cast<unsigned long long>(counters.disk_writes), compiled);
    return exit_failure;
  }
  return exit_ok;
}

}  // namespace

int run_prewarm(const PrewarmFlags& flags, const std::string& cache_dir, bool as_json) {
  return prewarm(flags, cache_dir, as_json);
}

}  // namespace stubjit::tool
