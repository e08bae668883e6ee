# The base allocator behind reaps (see libreap/src/base.h).  Today: plain
# mmap with a small chunk cache.  The Hoard-style allocator replaces this line.
RP_BASE_SOURCES = libreap/src/base_mmap.c
