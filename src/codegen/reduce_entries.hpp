// The entries of reduce, scan and sort stubs (StubRequest::pattern reduce,
// scan_partials, scan, sort_runs and sort_merge), one per emitter family, and the
// combiner they share (namespace stubjit_reduce in the stub).
#pragma once

#include <string>

#include "codegen/dialect.hpp"
#include "codegen/group_entries.hpp"

namespace stubjit::detail {

// The C++ type of the kernel's result ("void" without one).
std::string reduce_value_type(const KernelSource& kernel);
// namespace stubjit_reduce: value_t, combine(a, b), identity() and a functor, before
// the entry (a custom combiner's are the user's, declared before and defined after).
void emit_reduce_functions(const StubContext& context, const DialectEmitter& dialect);
// The CUDA and HIP entry; `bounds` as for emit_gpu_group_entry.
void emit_gpu_reduce_entry(const StubContext& context, const std::string& bounds);
// The C++ entry (the CPU backend's calling convention: a run of group numbers).
void emit_cpp_reduce_entry(const StubContext& context);
// A scan (Pattern::scan: scan_entries.cpp): on the CPU its second stage, whose first
// (Pattern::scan_partials) is a reduce entry's; on a GPU its only one.
void emit_gpu_scan_entry(const StubContext& context, const std::string& bounds);
void emit_cpp_scan_entry(const StubContext& context);
// A sort's stages (Pattern::sort_runs and sort_merge: sort_entries.cpp), and what they
// share before the entry: namespace stubjit_sort (key_t, the order less_t, a record
// of a key and its payloads, the buffers of the launch's scratch).
void emit_sort_functions(const StubContext& context, const DialectEmitter& dialect);
void emit_gpu_sort_entry(const StubContext& context, const std::string& bounds);
void emit_cpp_sort_entry(const StubContext& context);

}  // namespace stubjit::detail
