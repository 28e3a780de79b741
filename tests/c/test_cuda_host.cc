/* Tests of the CUDA backend's host helpers (src/cuda/host.cu) without a
 * GPU: host.cu compiled with the C++ compiler against fake_cuda/
 * cuda_runtime.h, whose functions here record each call and fail on
 * demand (`make cuda-host`, part of `make cuda-mock`):
 * - copy_rows_in: one cudaMemcpy of the whole n x d block when it is
 *   contiguous, else one per column at the right offsets, never
 *   cudaMemcpy2D (which refuses a pitch of 2^31 bytes or more: n >= 2^28
 *   rows failed to upload), for n = 2^28 + 3 rows (the copies are only
 *   recorded);
 * - a failed copy is GHMIX_ERR_CUDA naming what was copied;
 * - scratch_reserve allocates only to grow and names the bytes it asked;
 * - a sticky error (an illegal address while a kernel runs) is
 *   GHMIX_ERR_CUDA_FAULT saying to restart R, ghmix_cuda_fault() keeps it,
 *   and every later call through a device_guard returns it at once, while
 *   an ordinary error (out of memory) leaves no fault behind.
 * Ends with "N passed, M failed". */
#include <stdio.h>
#include <string.h>

#include <vector>

#include "../../src/cuda/host.cu"
#include "check.h"

/* ------------------------------------------------ the recording fake */

struct call {
  const char *fn;
  size_t dst, src, bytes;
};
static std::vector<call> calls;
static cudaError_t fail_next_copy = cudaSuccess;
static cudaError_t fail_sync = cudaSuccess;
static cudaError_t fail_malloc = cudaSuccess;
static int device_queries = 0;
static size_t next_address = 1 << 20;

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       enum cudaMemcpyKind) {
  cudaError_t e = fail_next_copy;
  call c = {"cudaMemcpy", (size_t)dst, (size_t)src, bytes};
  calls.push_back(c);
  fail_next_copy = cudaSuccess;
  return e;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src,
                         size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind) {
  call c = {"cudaMemcpy2D", (size_t)dst, (size_t)src, width * height};
  calls.push_back(c);
  /* as the real one: pitches beyond the device's limit are refused */
  return dpitch >= ((size_t)1 << 31) || spitch >= ((size_t)1 << 31)
             ? cudaErrorInvalidPitchValue
             : cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t bytes) {
  call c = {"cudaMalloc", 0, 0, bytes};
  calls.push_back(c);
  if (fail_malloc != cudaSuccess) {
    *p = NULL;
    return fail_malloc;
  }
  *p = (void *)next_address;
  next_address += bytes + 256;
  return cudaSuccess;
}

cudaError_t cudaFree(void *) { return cudaSuccess; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return fail_sync; }
cudaError_t cudaGetDevice(int *device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr, int) {
  *value = 132;
  return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e) {
  return e == cudaErrorIllegalAddress ? "an illegal memory access was "
                                        "encountered"
                                      : "some error";
}
const char *cudaGetErrorName(cudaError_t e) {
  return e == cudaErrorIllegalAddress     ? "cudaErrorIllegalAddress"
         : e == cudaErrorMemoryAllocation ? "cudaErrorMemoryAllocation"
                                          : "cudaErrorSomething";
}

/* the C interface host.cuh's device_guard calls */
extern "C" ghmix_status ghmix_cuda_device_count(int *count, ghmix_error *err) {
  device_queries++;
  ghmix_error_clear(err);
  *count = 1;
  return GHMIX_OK;
}

/* ------------------------------------------------------------ harness */

static size_t count_calls(const char *fn) {
  size_t k = 0;
  for (size_t i = 0; i < calls.size(); i++)
    k += strcmp(calls[i].fn, fn) == 0;
  return k;
}

using namespace ghmix_cu;

static void test_copies(void) {
  const size_t n = ((size_t)1 << 28) + 3, ldx = n + 5;
  const int d = 3;
  double *dev = (double *)((size_t)1 << 40),
         *host = (double *)((size_t)1 << 44);
  ghmix_error err;
  ghmix_status st;
  int ok = 1, j;
  calls.clear();
  st = copy_rows_in(dev, host, n, n, d, "the data", &err);
  check(st == GHMIX_OK && calls.size() == 1 &&
            strcmp(calls[0].fn, "cudaMemcpy") == 0 &&
            calls[0].bytes == n * d * sizeof(double),
        "copy_rows_in, %.0f x %d contiguous rows: one cudaMemcpy of %.0f "
        "bytes (%lu calls)",
        (double)n, d, (double)(n * d * sizeof(double)),
        (unsigned long)calls.size());
  calls.clear();
  st = copy_rows_in(dev, host, n, ldx, d, "the data", &err);
  ok = st == GHMIX_OK && calls.size() == (size_t)d;
  for (j = 0; ok && j < d; j++)
    ok = strcmp(calls[j].fn, "cudaMemcpy") == 0 &&
         calls[j].dst == (size_t)(dev + (size_t)j * n) &&
         calls[j].src == (size_t)(host + (size_t)j * ldx) &&
         calls[j].bytes == n * sizeof(double);
  check(ok && count_calls("cudaMemcpy2D") == 0,
        "copy_rows_in, leading dimension > n: one cudaMemcpy per column at "
        "the column's offsets, no cudaMemcpy2D (pitch %.0f bytes)",
        (double)(ldx * sizeof(double)));
  calls.clear();
  check(copy_rows_in(dev, host, 0, 0, d, "the data", &err) == GHMIX_OK &&
            calls.empty(),
        "copy_rows_in of no rows: no call");
  fail_next_copy = cudaErrorInvalidValue;
  st = copy_rows_in(dev, host, 10, 12, d, "the data", &err);
  check(st == GHMIX_ERR_CUDA && strstr(err.message, "the data") != NULL &&
            calls.size() == 1 && ghmix_cuda_fault() == NULL,
        "a failed copy is GHMIX_ERR_CUDA naming what was copied, and stops "
        "(%s)",
        err.message);
}

static void test_scratch(void) {
  device_scratch s = {NULL, 0};
  ghmix_error err;
  ghmix_status st;
  calls.clear();
  st = scratch_reserve(&s, 1000, "the test", 0, &err);
  st = st == GHMIX_OK ? scratch_reserve(&s, 500, "the test", 0, &err) : st;
  st = st == GHMIX_OK ? scratch_reserve(&s, 1000, "the test", 0, &err) : st;
  check(st == GHMIX_OK && count_calls("cudaMalloc") == 1 && s.bytes == 1000,
        "scratch_reserve: one allocation for 1000, 500, 1000 bytes");
  st = scratch_reserve(&s, 4096, "the test", 0, &err);
  check(st == GHMIX_OK && count_calls("cudaMalloc") == 2 && s.bytes == 4096,
        "scratch_reserve: grows for 4096 bytes");
  fail_malloc = cudaErrorMemoryAllocation;
  st = scratch_reserve(&s, (size_t)3 << 33, "the test", 0, &err);
  fail_malloc = cudaSuccess;
  check(st == GHMIX_ERR_CUDA && strstr(err.message, "25769803776") != NULL &&
            s.bytes == 0 && s.p == NULL && ghmix_cuda_fault() == NULL,
        "scratch_reserve: out of memory is GHMIX_ERR_CUDA with the bytes, "
        "no fault (%s)",
        err.message);
}

static void test_fault(void) {
  ghmix_error err;
  ghmix_status st;
  device_guard guard;
  int queries;
  fail_sync = cudaErrorMemoryAllocation;
  st = finish_launch("test", &err);
  check(st == GHMIX_ERR_CUDA && ghmix_cuda_fault() == NULL,
        "an ordinary error while a kernel runs: GHMIX_ERR_CUDA, no fault");
  fail_sync = cudaErrorIllegalAddress;
  st = finish_launch("E-step", &err);
  fail_sync = cudaSuccess;
  check(st == GHMIX_ERR_CUDA_FAULT && ghmix_cuda_fault() != NULL &&
            strstr(err.message, "running the E-step kernel") != NULL &&
            strstr(err.message, "cudaErrorIllegalAddress") != NULL &&
            strstr(err.message, "restart R") != NULL,
        "an illegal address while a kernel runs: GHMIX_ERR_CUDA_FAULT saying "
        "to restart R (%s)",
        err.message);
  queries = device_queries;
  st = guard.enter(0, &err);
  check(st == GHMIX_ERR_CUDA_FAULT && device_queries == queries &&
            strcmp(err.message, ghmix_cuda_fault()) == 0,
        "every later call: GHMIX_ERR_CUDA_FAULT with the first fault's "
        "message, before any CUDA call");
  fail_next_copy = cudaErrorLaunchFailure;
  st = copy_in((void *)1, (const void *)2, 8, "x", &err);
  check(st == GHMIX_ERR_CUDA_FAULT &&
            strstr(err.message, "running the E-step kernel") != NULL,
        "a second sticky error keeps the first one's message");
}

int main(void) {
  test_copies();
  test_scratch();
  test_fault();
  printf("test_cuda_host: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed > 0;
}
