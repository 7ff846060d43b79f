# The device-side prelude, embedded into the library as one string: defines
# STUBJIT_PRELUDE_CPP, the generated source, for the project that includes this file
# (the library, and the fuzzers' own build in tests/fuzz).
# Each header is one string (a stub includes only those it needs:
# src/codegen/prelude.cpp). Order matters: each header may use the ones
# before it.
get_filename_component(_stubjit_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(STUBJIT_PRELUDE_HEADERS
    ${_stubjit_root}/kernels/stubjit/config.h
    ${_stubjit_root}/kernels/stubjit/index.h
    ${_stubjit_root}/kernels/stubjit/view.h
    ${_stubjit_root}/kernels/stubjit/launch.h
    ${_stubjit_root}/kernels/stubjit/group.h
    ${_stubjit_root}/kernels/stubjit/reduce.h
    ${_stubjit_root}/kernels/stubjit/sort.h
    ${_stubjit_root}/kernels/stubjit/atomic.h
    ${_stubjit_root}/kernels/stubjit/half.h
    ${_stubjit_root}/kernels/stubjit/complex.h)
set(STUBJIT_PRELUDE_CPP ${CMAKE_CURRENT_BINARY_DIR}/generated/prelude_text.cpp)
string(REPLACE ";" "|" _stubjit_prelude_arg "${STUBJIT_PRELUDE_HEADERS}")
add_custom_command(
  OUTPUT ${STUBJIT_PRELUDE_CPP}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${STUBJIT_PRELUDE_CPP} -DHEADERS=${_stubjit_prelude_arg}
          -P ${_stubjit_root}/cmake/EmbedPrelude.cmake
  DEPENDS ${STUBJIT_PRELUDE_HEADERS} ${_stubjit_root}/cmake/EmbedPrelude.cmake
  COMMENT "Embedding the device-side prelude"
  VERBATIM)
