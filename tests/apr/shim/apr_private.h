/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * apr_private.h for compiling apr-patch/src/memory/unix/apr_pools.c outside
 * APR's tree, into the fast tier's test programs (tests/apr/local.mk).
 *
 * In APR's tree this header is written by configure.  Of what it defines,
 * the pool code reads only the allocator's build options; they are set
 * here as Debian's libapr1 is configured (debian/rules:
 * --enable-allocator-uses-mmap; guard pages and the pool concurrency
 * check off).  Everything else the file needs comes from the public APR
 * headers of libapr1-dev, which match the library the tests link.
 */
#ifndef REAP_TEST_APR_PRIVATE_H
#define REAP_TEST_APR_PRIVATE_H

#define APR_ALLOCATOR_USES_MMAP 1
/* #undef APR_ALLOCATOR_GUARD_PAGES */
/* #undef APR_POOL_CONCURRENCY_CHECK */

#endif
