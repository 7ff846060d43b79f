// The shared object bench_dlopen_baseline opens.
extern "C" __attribute__((visibility("default"))) int bench_tiny_answer() { return 42; }
