/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * cxx_probe.cc - C++'s operator new and delete, every form, the way
 * programs use them; run by preload.sh with and without
 * LD_PRELOAD=libreap-malloc.so, which must print the same.  Checks that
 * the objects are usable and aligned, that a request no allocator can
 * meet throws std::bad_alloc after calling the new-handler (from the C++
 * runtime, which libreap-malloc's operators hand failures to), and that
 * the nothrow forms return nullptr.  With REAP_PROBE_EXPECT=reap it also
 * checks that the operators resolve to libreap-malloc.so and that what
 * new returns is the allocator's (malloc_usable_size).  Prints
 * "cxx probe ok".
 */
#include <dlfcn.h>
#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

static int failures;
#define CHECK(c) do { if (!(c)) { std::fprintf(stderr, "cxx probe: %s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static bool from_reap(const char *sym)
{
    Dl_info info;
    void *f = dlsym(RTLD_DEFAULT, sym);
    return f && dladdr(f, &info) && info.dli_fname && std::strstr(info.dli_fname, "libreap-malloc");
}

struct alignas(256) Wide {
    char bytes[300];
};

static void check_forms(void)
{
    char *a = new char[1000];
    std::memset(a, 'a', 1000);
    delete[] a;

    auto *s = new std::string(5000, 'x'); /* new, and new inside the string */
    CHECK(s->size() == 5000 && (*s)[4999] == 'x');
    delete s;

    int *i = new int(7);
    CHECK(*i == 7);
    ::operator delete(i, sizeof *i); /* sized delete */

    Wide *w = new Wide; /* over-aligned: operator new(size_t, align_val_t) */
    CHECK(reinterpret_cast<std::uintptr_t>(w) % 256 == 0);
    std::memset(w->bytes, 1, sizeof w->bytes);
    delete w;
    Wide *ws = new Wide[3];
    for (int k = 0; k < 3; k++)
        CHECK(reinterpret_cast<std::uintptr_t>(&ws[k]) % 256 == 0);
    delete[] ws;

    void *z = ::operator new(0); /* unique, not null */
    void *z2 = ::operator new(0);
    CHECK(z != nullptr && z2 != nullptr && z != z2);
    ::operator delete(z);
    ::operator delete(z2);

    char *n = new (std::nothrow) char[64];
    CHECK(n != nullptr);
    delete[] n;

    /* many sizes, on two threads, freed on the other */
    std::vector<std::vector<char> *> boxes;
    std::thread t([&boxes] {
        for (int k = 0; k < 20000; k++)
            boxes.push_back(new std::vector<char>(static_cast<size_t>(k % 700 + 1), 'v'));
    });
    t.join();
    for (auto *b : boxes) {
        CHECK(b->back() == 'v');
        delete b;
    }
}

static int handler_calls;
static void handler(void)
{
    if (++handler_calls == 3)
        std::set_new_handler(nullptr); /* the next failure throws */
}

static void check_failures(void)
{
    const size_t huge = SIZE_MAX / 4; /* more than any machine maps */
    bool threw = false;
    try { /* explicit calls: a new-expression's allocation may be elided */
        void *p = ::operator new[](huge);
        ::operator delete[](p);
    } catch (const std::bad_alloc &) {
        threw = true;
    }
    CHECK(threw);

    handler_calls = 0;
    std::set_new_handler(handler);
    threw = false;
    try {
        void *p = ::operator new(huge);
        ::operator delete(p);
    } catch (const std::bad_alloc &) {
        threw = true;
    }
    CHECK(threw && handler_calls == 3);
    std::set_new_handler(nullptr);

    CHECK(::operator new[](huge, std::nothrow) == nullptr);
    CHECK(::operator new(huge, std::align_val_t(64), std::nothrow) == nullptr);
    threw = false;
    try {
        void *p = ::operator new(huge, std::align_val_t(64));
        ::operator delete(p, std::align_val_t(64));
    } catch (const std::bad_alloc &) {
        threw = true;
    }
    CHECK(threw);
}

int main(void)
{
    const char *expect = std::getenv("REAP_PROBE_EXPECT");
    if (expect && std::strcmp(expect, "reap") == 0) {
        for (const char *sym : {"_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZnwmSt11align_val_t",
                                "_ZdlPvSt11align_val_t", "_ZnwmRKSt9nothrow_t"})
            if (!from_reap(sym)) {
                std::fprintf(stderr, "cxx probe: %s is not libreap-malloc's\n", sym);
                failures++;
            }
        char *p = new char[100];
        CHECK(malloc_usable_size(p) >= 100);
        delete[] p;
    }
    check_forms();
    check_failures();
    if (failures)
        return 1;
    std::puts("cxx probe ok");
    return 0;
}
