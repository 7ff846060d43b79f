// lld as a library: a relocatable object to a shared object the core library can
// dlopen without LLVM (backends/cpu/shared_object_loader.hpp). Part of the plugin.
#pragma once

#include <string>
#include <vector>

namespace stubjit::cpu_compiler {

struct SharedObject {
  bool ok = false;
  std::vector<char> bytes;  // an ELF shared object, when ok
  std::string diagnostics;  // what lld printed
};

// Links `object` alone into a shared object. Its references to the C and math
// libraries stay undefined and bind to the process's when it is loaded; its own
// references bind to its own definitions (-Bsymbolic), so a function of the
// application with the same name as one in a kernel cannot replace it.
SharedObject link_shared_object(const std::vector<char>& object);

}  // namespace stubjit::cpu_compiler
