// The messages between a runtime and a compile worker process (stubjit-compile-worker):
// one request, one response, each a length-prefixed frame on a pipe. Only the compile
// crosses: the worker makes the toolchain for the request's backend and target
// (BackendEntry::toolchain_for) and answers with the binary, or the CompileError's
// log, or why it could not compile.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cache/binary.hpp"

namespace stubjit::detail {

struct CompileRequest {
  std::string backend;   // the registry's name
  std::string target;    // Toolchain::target_id
  std::string compiler;  // Toolchain::compiler_id of the runtime's toolchain
  std::string file_name;
  std::string entry;
  std::string kernel;
  std::string source;
  std::vector<std::string> options;
};

struct CompileResponse {
  enum class Status : std::uint8_t { compiled = 0, compile_error = 1, failed = 2 };
  Status status = Status::failed;
  Binary binary;        // compiled
  std::string message;  // compile_error: the compiler's log; failed: why
};

std::string encode(const CompileRequest& request);
std::string encode(const CompileResponse& response);
// False for a message that is not one (truncated, another version, trailing bytes).
bool decode(const std::string& frame, CompileRequest& request);
bool decode(const std::string& frame, CompileResponse& response);

// Frames on a descriptor: a 64-bit little-endian length, then the bytes. On a socket a
// peer that has gone makes write_frame return false, never raise SIGPIPE.
bool write_frame(int fd, const std::string& frame);
enum class FrameRead : std::uint8_t { read, closed, timed_out, failed };
// Reads one frame, waiting until `deadline` at most (nullopt: as long as it takes).
FrameRead read_frame(int fd, std::string& frame,
                     std::optional<std::chrono::steady_clock::time_point> deadline);

}  // namespace stubjit::detail
