// The source of the targets that build the test programs' precompiled headers
// (tests/CMakeLists.txt, stubjit_test_pch): the headers are their only product.
