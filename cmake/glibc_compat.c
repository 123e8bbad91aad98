/* Portable-wheel build only (ROPELAB_PORTABLE_GLIBC=ON, set by `make wheel`): bind the glibc
 * symbols whose default version on the build machine is newer than glibc 2.31 to the older
 * versions that every glibc >= 2.31 provides, so the extension loads on manylinux_2_31 systems
 * (Debian 11, Ubuntu 20.04, RHEL 9 and newer).
 *
 * The link wraps each symbol (-Wl,--wrap=NAME, the list is ROPELAB_GLIBC_WRAPPED in
 * CMakeLists.txt): every undefined reference to NAME, including those from the statically linked
 * libstdc++, goes to __wrap_NAME below, which calls the old version through a .symver alias.
 * This file is compiled without LTO so the aliases survive.
 *
 * The old and the new versions compute the same results:
 * - hypot@GLIBC_2.2.5 is the SVID-compatible wrapper around the same __ieee754_hypot that
 *   hypot@GLIBC_2.35 is (2.35 only dropped the wrapper; both give +inf and ERANGE on overflow);
 * - the pthread functions @GLIBC_2.2.5 / @GLIBC_2.30 (pthread_sigmask included, moved in 2.32)
 *   are the same code that glibc 2.32-2.34 moved from libpthread.so.0 into libc.so.6 under a new
 *   version (the extension therefore also lists
 *   libpthread.so.0 as a dependency: the real library before 2.34, an empty stub after);
 * - fstat64 became a symbol of its own in glibc 2.33; before, <sys/stat.h> called
 *   __fxstat64(_STAT_VER, ...), which every glibc still exports;
 * - arc4random (glibc 2.36) is only reachable through std::random_device, which ropelab never
 *   uses (its random numbers are Philox streams); the replacement reads getrandom(2) (2.25);
 * - __libc_single_threaded (glibc 2.32) only lets libstdc++ skip atomic reference counts while
 *   a process has one thread; the local copy is always 0 ("may be multi-threaded"), so
 *   libstdc++ always takes the atomic path, which is correct everywhere.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>

#if !defined(__x86_64__) || !defined(__GLIBC__)
#error "glibc_compat.c is for x86-64 glibc builds only"
#endif

#define ROPELAB_HIDDEN __attribute__((visibility("hidden")))

/* ROPELAB_OLD(ret, name, version, params, args): __wrap_name(params) calls name@version(args). */
#define ROPELAB_OLD(ret, name, version, params, args)                                  \
  ret ropelab_old_##name params;                                                        \
  __asm__(".symver ropelab_old_" #name ", " #name "@" version);                        \
  ROPELAB_HIDDEN ret __wrap_##name params;                                              \
  ret __wrap_##name params { return ropelab_old_##name args; }

ROPELAB_OLD(double, hypot, "GLIBC_2.2.5", (double x, double y), (x, y))
ROPELAB_OLD(int, pthread_once, "GLIBC_2.2.5", (pthread_once_t *o, void (*f)(void)), (o, f))
ROPELAB_OLD(int, pthread_cond_clockwait, "GLIBC_2.30",
            (pthread_cond_t *c, pthread_mutex_t *m, clockid_t k, const struct timespec *t),
            (c, m, k, t))
ROPELAB_OLD(int, pthread_create, "GLIBC_2.2.5",
            (pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *p), (t, a, f, p))
ROPELAB_OLD(int, pthread_join, "GLIBC_2.2.5", (pthread_t t, void **r), (t, r))
ROPELAB_OLD(int, pthread_detach, "GLIBC_2.2.5", (pthread_t t), (t))
ROPELAB_OLD(int, pthread_key_create, "GLIBC_2.2.5", (pthread_key_t *k, void (*d)(void *)), (k, d))
ROPELAB_OLD(int, pthread_key_delete, "GLIBC_2.2.5", (pthread_key_t k), (k))
ROPELAB_OLD(void *, pthread_getspecific, "GLIBC_2.2.5", (pthread_key_t k), (k))
ROPELAB_OLD(int, pthread_setspecific, "GLIBC_2.2.5", (pthread_key_t k, const void *v), (k, v))
ROPELAB_OLD(int, pthread_mutex_trylock, "GLIBC_2.2.5", (pthread_mutex_t *m), (m))
ROPELAB_OLD(int, pthread_sigmask, "GLIBC_2.2.5", (int h, const sigset_t *s, sigset_t *o), (h, s, o))

int ropelab_old___fxstat64(int ver, int fd, void *buf);
__asm__(".symver ropelab_old___fxstat64, __fxstat64@GLIBC_2.2.5");
ROPELAB_HIDDEN int __wrap_fstat64(int fd, void *buf);
int __wrap_fstat64(int fd, void *buf) {
  return ropelab_old___fxstat64(1 /* _STAT_VER_LINUX on x86-64 */, fd, buf);
}

ROPELAB_HIDDEN uint32_t __wrap_arc4random(void);
uint32_t __wrap_arc4random(void) {
  uint32_t r;
  while (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
  }
  return r;
}

ROPELAB_HIDDEN char __wrap___libc_single_threaded = 0;
