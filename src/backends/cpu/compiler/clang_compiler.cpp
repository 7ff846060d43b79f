#include "backends/cpu/compiler/clang_compiler.hpp"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <mutex>

#include "backends/cpu/compiler_flags.hpp"

namespace stubjit::cpu_compiler {
namespace {

void initialize_native_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::unique_ptr<clang::CompilerInvocation> make_invocation(
    const std::vector<const char*>& args,
    llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diags) {
#if CLANG_VERSION_MAJOR >= 15
  clang::CreateInvocationOptions options;
  options.Diags = diags;
  return clang::createInvocation(args, std::move(options));
#else
  return clang::createInvocationFromCommandLine(args, diags);
#endif
}

}  // namespace

HostObject compile_to_host_object(const std::string& source, const std::string& file_name,
                                  const std::vector<std::string>& options) {
  initialize_native_target();

  std::string log;
  llvm::raw_string_ostream log_stream(log);
  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diag_options(new clang::DiagnosticOptions());
  diag_options->ShowColors = false;
  // Report #line locations: that is what maps errors into the user's body.
  diag_options->ShowPresumedLoc = true;
  auto printer = std::make_unique<clang::TextDiagnosticPrinter>(log_stream, diag_options.get());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diags(new clang::DiagnosticsEngine(
      llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs>(new clang::DiagnosticIDs()), diag_options,
      printer.release(), /*ShouldOwnClient=*/true));

  // The driver path only locates Clang's resource directory (builtin headers);
  // nothing is executed.
  std::vector<const char*> args = {STUBJIT_CLANG_DRIVER_PATH};
  for (const char* flag : detail::cpu_compile_flags) args.push_back(flag);
  for (const std::string& option : options) args.push_back(option.c_str());
  args.push_back(file_name.c_str());

  std::shared_ptr<clang::CompilerInvocation> invocation = make_invocation(args, diags);
  if (!invocation) {
    log_stream.flush();
    return HostObject{false, {}, "invalid compiler options:\n" + log};
  }
  // Apply -W, -w and -R options from the command line to our diagnostics engine (the
  // invocation parsed them; the engine was made before it existed).
  clang::ProcessWarningOptions(*diags, invocation->getDiagnosticOpts());
  invocation->getPreprocessorOpts().addRemappedFile(
      file_name, llvm::MemoryBuffer::getMemBufferCopy(source, file_name).release());
  // The driver asks cc1 not to free what it builds (-disable-free): a process that exits
  // right after saves the time. This one compiles again, so everything is freed: the
  // frontend's state, and the backend's target machine with its subtargets.
  invocation->getFrontendOpts().DisableFree = false;
  invocation->getCodeGenOpts().DisableFree = false;

  clang::CompilerInstance compiler;
  compiler.setInvocation(std::move(invocation));
  compiler.setDiagnostics(diags.get());
  // Clang's own summary ("1 error generated.") goes to its verbose stream, stderr
  // unless told otherwise: into the log too, so that nothing but the logger writes to
  // the application's stderr.
  compiler.setVerboseOutputStream(log_stream);

  llvm::SmallString<0> object;
  compiler.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(object));
  clang::EmitObjAction action;
  const bool ok = compiler.ExecuteAction(action) && !diags->hasErrorOccurred();
  log_stream.flush();
  if (!ok) return HostObject{false, {}, log};
  return HostObject{true, std::vector<char>(object.begin(), object.end()), log};
}

}  // namespace stubjit::cpu_compiler
