#ifdef _WIN32
/* CreateWaitableTimerExW() needs Windows Vista's API */
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0600
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0600
#endif
#include <windows.h>
#elif !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 199309L /* nanosleep() under -std=c99 */
#endif

#include "nap.h"

#ifdef _WIN32

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

void ghmix_nap(int microseconds) {
  HANDLE timer;
  LARGE_INTEGER due;
  if (microseconds <= 0)
    return;
  timer = CreateWaitableTimerExW(
      NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
  if (timer == NULL) /* before Windows 10 1803: a timer of the tick */
    timer = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
  if (timer == NULL) {
    Sleep((DWORD)((microseconds + 999) / 1000));
    return;
  }
  due.QuadPart = -10 * (LONGLONG)microseconds; /* relative, 100 ns units */
  if (SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE))
    WaitForSingleObject(timer, INFINITE);
  CloseHandle(timer);
}

#else

#include <time.h>

void ghmix_nap(int microseconds) {
  struct timespec ts;
  if (microseconds <= 0)
    return;
  ts.tv_sec = microseconds / 1000000;
  ts.tv_nsec = (microseconds % 1000000) * 1000;
  nanosleep(&ts, NULL); /* a signal ends it early (EINTR) */
}

#endif
