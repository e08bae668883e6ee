# loadtest: benchmarks (never run by make check) and, later, the wrk driver.
# reapbench compares reaps with Debian's APR pools and with malloc/free.
if HAVE_APR
noinst_PROGRAMS += loadtest/reapbench
loadtest_reapbench_SOURCES = loadtest/reapbench.c
loadtest_reapbench_CFLAGS = $(AM_CFLAGS) $(APR_CFLAGS) -O2
loadtest_reapbench_LDADD = libreap/libreap.la $(APR_LIBS)
endif

include loadtest/mt/local.mk
