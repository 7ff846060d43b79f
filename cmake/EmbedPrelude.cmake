# Concatenates the device-side prelude headers into a C++ source file holding one
# string. Lines including another prelude header are dropped: the headers are
# concatenated in dependency order instead. (Whole-file reads: a CMake list would
# split lines at semicolons.)
# HEADERS is '|'-separated: a ';' list would not survive the custom command.
string(REPLACE "|" ";" _headers "${HEADERS}")
set(_text "")
foreach(_header IN LISTS _headers)
  file(READ ${_header} _content)
  string(REGEX REPLACE "#include \"stubjit/[^\n]*\n" "" _content "${_content}")
  get_filename_component(_name ${_header} NAME)
  string(APPEND _text "// ---- stubjit/${_name} ----\n${_content}")
endforeach()
string(FIND "${_text}" ")stubjit_prelude\"" _clash)
if(NOT _clash EQUAL -1)
  message(FATAL_ERROR "the prelude contains the raw-string delimiter")
endif()
file(WRITE ${OUTPUT}.tmp
  "// Generated from kernels/stubjit/*.h by cmake/EmbedPrelude.cmake. Do not edit.\n"
  "namespace stubjit::detail {\n"
  "extern const char prelude_text[];\n"
  "const char prelude_text[] = R\"stubjit_prelude(${_text})stubjit_prelude\";\n"
  "}  // namespace stubjit::detail\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
