#include "backends/cpu/orc_loader.hpp"

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>

#include <atomic>
#include <mutex>

#include "stubjit/error.hpp"
#include "support/log.hpp"

namespace stubjit::detail {

struct OrcLoader::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::atomic<std::uint64_t> next_id{0};
};

namespace {

std::string message_of(llvm::Error error) { return llvm::toString(std::move(error)); }

}  // namespace

CpuModule::CpuModule(std::shared_ptr<OrcLoader> loader, void* dylib, CpuEntry entry)
    : loader_(std::move(loader)), dylib_(dylib), entry_(entry) {}

CpuModule::~CpuModule() { loader_->unload(dylib_); }

OrcLoader::OrcLoader() : impl_(std::make_unique<Impl>()) {}
OrcLoader::~OrcLoader() = default;

std::shared_ptr<OrcLoader> OrcLoader::create() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  std::shared_ptr<OrcLoader> loader(new OrcLoader());
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) throw BackendError("cannot create the LLVM JIT: " + message_of(jit.takeError()));
  auto process_symbols = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process_symbols) {
    throw BackendError("cannot expose process symbols to the JIT: " +
                       message_of(process_symbols.takeError()));
  }
  (*jit)->getMainJITDylib().addGenerator(std::move(*process_symbols));
  loader->impl_->jit = std::move(*jit);
  return loader;
}

std::unique_ptr<CpuModule> OrcLoader::load(const std::vector<char>& object,
                                           const std::string& entry) {
  llvm::orc::LLJIT& jit = *impl_->jit;
  const std::string name = "stubjit." + std::to_string(impl_->next_id++) + "." + entry;
  auto dylib = jit.createJITDylib(name);
  if (!dylib) throw BackendError("cannot create a JITDylib: " + message_of(dylib.takeError()));
  dylib->addToLinkOrder(jit.getMainJITDylib());
  auto buffer =
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()), name);
  if (llvm::Error error = jit.addObjectFile(*dylib, std::move(buffer))) {
    unload(&*dylib);
    throw BackendError("cannot link the stub object: " + message_of(std::move(error)));
  }
  auto symbol = jit.lookup(*dylib, entry);
  if (!symbol) {
    const std::string why = message_of(symbol.takeError());
    unload(&*dylib);
    throw BackendError("stub entry '" + entry + "' not found: " + why);
  }
#if LLVM_VERSION_MAJOR >= 17  // lookup returns an ExecutorAddr
  auto address = symbol->getValue();
#else
  auto address = symbol->getAddress();
#endif
  auto fn = reinterpret_cast<CpuEntry>(static_cast<std::uintptr_t>(address));
  return std::make_unique<CpuModule>(shared_from_this(), &*dylib, fn);
}

void OrcLoader::unload(void* dylib) noexcept {
  auto* jd = static_cast<llvm::orc::JITDylib*>(dylib);
  if (llvm::Error error = impl_->jit->getExecutionSession().removeJITDylib(*jd)) {
    logger().warn("unloading a stub failed: {}", message_of(std::move(error)));
  }
}

}  // namespace stubjit::detail
