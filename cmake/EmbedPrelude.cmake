# Embeds the device-side prelude headers into a C++ source file: one string per
# header, in the order given, with the header's name (a stub includes only the headers
# it needs, src/codegen/prelude.cpp). Lines including another prelude header
# are dropped: the headers are prepended in dependency order instead. (Whole-file
# reads: a CMake list would split lines at semicolons.)
# HEADERS is '|'-separated: a ';' list would not survive the custom command.
string(REPLACE "|" ";" _headers "${HEADERS}")
set(_names "")
set(_texts "")
set(_count 0)
foreach(_header IN LISTS _headers)
  file(READ ${_header} _content)
  string(REGEX REPLACE "#include \"stubjit/[^\n]*\n" "" _content "${_content}")
  get_filename_component(_name ${_header} NAME)
  string(FIND "${_content}" ")stubjit_prelude\"" _clash)
  if(NOT _clash EQUAL -1)
    message(FATAL_ERROR "${_name} contains the raw-string delimiter")
  endif()
  string(APPEND _names "    \"${_name}\",\n")
  string(APPEND _texts
    "    R\"stubjit_prelude(// ---- stubjit/${_name} ----\n${_content})stubjit_prelude\",\n")
  math(EXPR _count "${_count} + 1")
endforeach()
file(WRITE ${OUTPUT}.tmp
  "// Generated from kernels/stubjit/*.h by cmake/EmbedPrelude.cmake. Do not edit.\n"
  "namespace stubjit::detail {\n"
  "extern const unsigned prelude_header_count;\n"
  "extern const char* const prelude_header_names[];\n"
  "extern const char* const prelude_header_texts[];\n"
  "const unsigned prelude_header_count = ${_count};\n"
  "const char* const prelude_header_names[] = {\n${_names}};\n"
  "const char* const prelude_header_texts[] = {\n${_texts}};\n"
  "}  // namespace stubjit::detail\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
