/* A stand-in for OpenBLAS's thread control, for test_platform.c: linked
 * into the test program on Unix-alikes (found by dlsym()), built as
 * Rblas.dll on Windows (found in that DLL, as R's BLAS).  The count
 * starts at 4. */
#ifdef _WIN32
#define STUB_EXPORT __declspec(dllexport)
#else
#define STUB_EXPORT
#endif

static int stub_threads = 4;

STUB_EXPORT void openblas_set_num_threads(int n) { stub_threads = n; }

STUB_EXPORT int openblas_get_num_threads(void) { return stub_threads; }
