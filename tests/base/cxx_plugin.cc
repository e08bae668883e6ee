/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * cxx_plugin.cc - a C++ library that a C program (cxx_probe's dlopen
 * case, in preload_probe.c) opens with RTLD_LOCAL, so that the C++ runtime
 * is in no global scope: an operator new that fails must still throw
 * std::bad_alloc there, under libreap-malloc.so as without it.
 */
#include <cstdint>
#include <new>

/* 1 when a request no allocator can meet threw std::bad_alloc, and an
 * ordinary one was served and given back. */
extern "C" __attribute__((visibility("default"))) int cxx_plugin_bad_alloc(void)
{
    void *small = ::operator new(64);
    ::operator delete(small);
    try {
        void *p = ::operator new(SIZE_MAX / 4);
        ::operator delete(p);
    } catch (const std::bad_alloc &) {
        return 1;
    }
    return 0;
}
