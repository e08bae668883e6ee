/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * trace.c - the recorder of REAP_TRACE (format in trace.h).
 *
 * Each thread appends its events to a 64 KiB buffer of its own, mapped
 * with mmap, and writes it out as one block with one write(2) to the
 * process's file (opened O_APPEND) when it fills, when the thread exits (a
 * pthread key's destructor) and when the process exits (a destructor that
 * flushes every thread's buffer).  Nothing here calls malloc, so
 * libreap-malloc.so can record its own malloc calls: buffers come from
 * mmap, the file name is built on the stack, and the only library calls
 * are system calls, pthread mutexes and keys.  An event takes the clock
 * (CLOCK_MONOTONIC, through the vDSO) and a few varints: no lock, except
 * the buffer's own flag, which only rp_trace_flush_all() contends for.
 *
 * The file is made whole before anyone appends to it: the header goes into
 * a temporary file that is then linked to prefix.<pid>, so when libreap and
 * libreap-malloc.so trace one process the first to flush creates it and the
 * other appends (link fails with EEXIST).  A fork child starts a file of
 * its own (atfork handler), flagged as a child's.  An error (unwritable
 * path, full disk) is reported once on stderr and stops tracing; the
 * program goes on.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "trace.h"

#define BUF_BYTES (64u << 10)
#define HEAD_ROOM 48u  /* a block header: 'B' and four varints */
#define EVENT_MAX 320u /* the longest event: a TAG */
#define PATH_MAX_ 4096

typedef struct tbuf {
    struct tbuf *next, *prev; /* every thread's buffer, under list_lock */
    atomic_flag busy;         /* the owner records, or a flush_all flushes */
    uint32_t tid;
    uint64_t base, last_ts;   /* the block's first event, the last one */
    uintptr_t last_ptr;       /* the last pointer written in the block */
    size_t len;               /* bytes of events after HEAD_ROOM */
    uint8_t data[];
} tbuf_t;

#define CAPACITY (BUF_BYTES - sizeof(tbuf_t) - HEAD_ROOM)

int rp_trace_state = -1; /* -1 not read yet, 0 off, 1 on */
static atomic_int init_claim;
static rp_trace_source_t source;
static const char *prefix;
static int fd = -1;
static bool forked;
static atomic_uint next_tid;
static atomic_int reported;
static pthread_key_t exit_key;
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static tbuf_t *buffers;
static __thread tbuf_t *my_buf;

/* ---- errors and the file -------------------------------------------------- */

static const char *who(void) { return source == RP_TRACE_MALLOC ? "libreap-malloc" : "libreap"; }

/* Stop tracing and say why, once per process (a fork child says it again). */
static RP_COLD void fail(const char *path, int err)
{
    __atomic_store_n(&rp_trace_state, 0, __ATOMIC_RELAXED);
    if (atomic_exchange(&reported, 1))
        return;
    const char *part[] = {who(), ": REAP_TRACE: cannot write ", path, ": ", strerror(err),
                          "; tracing stopped\n"};
    char line[PATH_MAX_ + 256];
    size_t at = 0;
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++) {
        size_t n = strlen(part[i]);
        if (at + n >= sizeof line)
            n = sizeof line - 1 - at;
        memcpy(line + at, part[i], n);
        at += n;
    }
    (void)!write(2, line, at);
}

/* s followed by the decimal v into buf; false when it does not fit. */
static bool with_number(char *buf, size_t len, const char *s, const char *sep, unsigned long v)
{
    char num[24], *d = num + sizeof num;
    *--d = '\0';
    do
        *--d = (char)('0' + v % 10);
    while (v /= 10);
    size_t a = strlen(s), b = strlen(sep), c = strlen(d);
    if (a + b + c + 1 > len)
        return false;
    memcpy(buf, s, a);
    memcpy(buf + a, sep, b);
    memcpy(buf + a + b, d, c + 1);
    return true;
}

static bool write_all(int to, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(to, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return false;
        }
        p += w, n -= (size_t)w;
    }
    return true;
}

/* Create path whole (header written) unless it exists; errno on failure. */
static bool create_file(const char *path)
{
    char tmp[PATH_MAX_];
    if (!with_number(tmp, sizeof tmp, path, source == RP_TRACE_MALLOC ? ".tmpm" : ".tmpr", 0))
        return errno = ENAMETOOLONG, false;
    int t = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (t < 0)
        return false;
    uint8_t head[40], *p = head;
    memcpy(p, RP_TRACE_MAGIC, 8);
    p = rp_varint_put(p + 8, RP_TRACE_VERSION);
    p = rp_varint_put(p, forked ? RP_TRACE_FORKED : 0);
    p = rp_varint_put(p, (uint64_t)getpid());
    bool ok = write_all(t, head, (size_t)(p - head));
    int err = errno;
    close(t);
    if (ok && link(tmp, path) != 0 && errno != EEXIST)
        ok = false, err = errno;
    unlink(tmp);
    errno = err;
    return ok;
}

/* The file's descriptor, opened on the first flush; -1 after a failure. */
static int trace_fd(char *path, size_t len)
{
    if (!with_number(path, len, prefix, ".", (unsigned long)getpid())) {
        fail(prefix, ENAMETOOLONG);
        return -1;
    }
    pthread_mutex_lock(&file_lock);
    if (fd < 0 && rp_tracing() > 0) {
        if (create_file(path))
            fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
            fail(path, errno);
    }
    int f = fd;
    pthread_mutex_unlock(&file_lock);
    return f;
}

/* ---- buffers ---------------------------------------------------------------- */

/* Write b's events as one block and empty it. */
static void flush(tbuf_t *b)
{
    if (b->len == 0)
        return;
    uint8_t head[HEAD_ROOM], *p = head;
    *p++ = RP_TRACE_BLOCK;
    p = rp_varint_put(p, source);
    p = rp_varint_put(p, b->tid);
    p = rp_varint_put(p, b->base);
    p = rp_varint_put(p, b->len);
    size_t hlen = (size_t)(p - head);
    uint8_t *start = b->data + HEAD_ROOM - hlen;
    memcpy(start, head, hlen);
    size_t n = hlen + b->len;
    b->len = 0;
    char path[PATH_MAX_];
    int f = rp_tracing() > 0 ? trace_fd(path, sizeof path) : -1;
    if (f >= 0 && !write_all(f, start, n))
        fail(path, errno);
}

static void list_remove(tbuf_t *b)
{
    pthread_mutex_lock(&list_lock);
    if (b->prev)
        b->prev->next = b->next;
    else
        buffers = b->next;
    if (b->next)
        b->next->prev = b->prev;
    pthread_mutex_unlock(&list_lock);
}

/* Thread exit: write what is left, give the buffer back.  A later event of
 * this thread (another key's destructor) maps a new one, and glibc then
 * runs this destructor again. */
static void thread_exit(void *arg)
{
    tbuf_t *b = arg;
    while (atomic_flag_test_and_set_explicit(&b->busy, memory_order_acquire))
        ;
    flush(b);
    list_remove(b);
    my_buf = NULL;
    munmap(b, BUF_BYTES);
}

static RP_NOINLINE tbuf_t *new_buf(void)
{
    void *m = mmap(NULL, BUF_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    tbuf_t *b = m;
    atomic_flag_clear(&b->busy);
    b->tid = atomic_fetch_add(&next_tid, 1) + 1;
    pthread_mutex_lock(&list_lock);
    b->next = buffers;
    if (buffers)
        buffers->prev = b;
    buffers = b;
    pthread_mutex_unlock(&list_lock);
    my_buf = b;
    pthread_setspecific(exit_key, b);
    return b;
}

/* This thread's buffer, held, with room for one event; NULL when tracing
 * is off or no buffer could be mapped. */
static inline tbuf_t *begin(void)
{
    if (RP_UNLIKELY(rp_tracing() <= 0))
        return NULL;
    tbuf_t *b = my_buf;
    if (RP_UNLIKELY(b == NULL) && (b = new_buf()) == NULL)
        return NULL;
    while (atomic_flag_test_and_set_explicit(&b->busy, memory_order_acquire))
        ;
    if (b->len + EVENT_MAX > CAPACITY)
        flush(b);
    return b;
}

static inline void end(tbuf_t *b) { atomic_flag_clear_explicit(&b->busy, memory_order_release); }

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Start an event of kind k at the end of b; returns where its fields go. */
static inline uint8_t *event(tbuf_t *b, rp_trace_kind_t k)
{
    uint64_t t = now_ns();
    if (b->len == 0) {
        b->base = b->last_ts = t;
        b->last_ptr = 0;
    }
    uint8_t *p = b->data + HEAD_ROOM + b->len;
    *p++ = (uint8_t)k;
    p = rp_varint_put(p, t >= b->last_ts ? t - b->last_ts : 0);
    b->last_ts = t > b->last_ts ? t : b->last_ts;
    return p;
}

static inline uint8_t *put_ptr(tbuf_t *b, uint8_t *p, const void *v)
{
    uintptr_t u = (uintptr_t)v;
    p = rp_varint_put(p, rp_zigzag((int64_t)(u - b->last_ptr)));
    b->last_ptr = u;
    return p;
}

static inline void commit(tbuf_t *b, uint8_t *p)
{
    b->len = (size_t)(p - (b->data + HEAD_ROOM));
    end(b);
}

/* ---- events ---------------------------------------------------------------- */

void rp_trace_create(const void *r, const void *parent)
{
    tbuf_t *b = begin();
    if (b)
        commit(b, put_ptr(b, put_ptr(b, event(b, RP_TRACE_CREATE), r), parent));
}

void rp_trace_reap(rp_trace_kind_t kind, const void *r)
{
    tbuf_t *b = begin();
    if (b)
        commit(b, put_ptr(b, event(b, kind), r));
}

void rp_trace_alloc(const void *r, size_t size, const void *p)
{
    tbuf_t *b = begin();
    if (b) {
        uint8_t *q = rp_varint_put(put_ptr(b, event(b, RP_TRACE_ALLOC), r), size);
        commit(b, put_ptr(b, q, p));
    }
}

void rp_trace_free(const void *r, const void *p)
{
    tbuf_t *b = begin();
    if (b)
        commit(b, put_ptr(b, put_ptr(b, event(b, RP_TRACE_FREE), r), p));
}

void rp_trace_realloc(const void *r, const void *old, const void *p, size_t size)
{
    tbuf_t *b = begin();
    if (b) {
        uint8_t *q = put_ptr(b, put_ptr(b, put_ptr(b, event(b, RP_TRACE_REALLOC), r), old), p);
        commit(b, rp_varint_put(q, size));
    }
}

void rp_trace_tag(const void *r, const char *tag)
{
    tbuf_t *b = tag ? begin() : NULL;
    if (!b)
        return;
    size_t n = strnlen(tag, RP_TRACE_TAG_MAX);
    uint8_t *q = rp_varint_put(put_ptr(b, event(b, RP_TRACE_TAG), r), n);
    memcpy(q, tag, n);
    commit(b, q + n);
}

void rp_trace_align(const void *r, size_t alignment)
{
    tbuf_t *b = begin();
    if (b)
        commit(b, rp_varint_put(put_ptr(b, event(b, RP_TRACE_ALIGN), r), alignment));
}

/* ---- start, fork, exit --------------------------------------------------------- */

void rp_trace_flush_all(void)
{
    if (rp_tracing() <= 0)
        return;
    pthread_mutex_lock(&list_lock);
    for (tbuf_t *b = buffers; b; b = b->next) {
        while (atomic_flag_test_and_set_explicit(&b->busy, memory_order_acquire))
            ;
        flush(b);
        end(b);
    }
    pthread_mutex_unlock(&list_lock);
}

/* The forking thread's events go to the parent's file before the fork. */
static void fork_prepare(void)
{
    tbuf_t *b = my_buf;
    if (b && rp_tracing() > 0) {
        while (atomic_flag_test_and_set_explicit(&b->busy, memory_order_acquire))
            ;
        flush(b);
        end(b);
    }
    pthread_mutex_lock(&list_lock);
    pthread_mutex_lock(&file_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&file_lock);
    pthread_mutex_unlock(&list_lock);
}

/* The child has only this thread: the other buffers hold the parent's
 * events (the parent writes them) and are dropped; a new file follows. */
static void fork_child(void)
{
    pthread_mutex_init(&file_lock, NULL);
    pthread_mutex_init(&list_lock, NULL);
    if (fd >= 0)
        close(fd);
    fd = -1;
    forked = true;
    atomic_store(&reported, 0);
    buffers = my_buf;
    if (my_buf) {
        my_buf->next = my_buf->prev = NULL;
        my_buf->len = 0;
    }
}

__attribute__((destructor)) static void trace_exit(void) { rp_trace_flush_all(); }

void rp_trace_init(rp_trace_source_t src)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&init_claim, &expected, 1))
        return; /* another thread reads it; events until then are not traced */
    const char *p = getenv("REAP_TRACE");
    if (!p || !*p) {
        __atomic_store_n(&rp_trace_state, 0, __ATOMIC_RELEASE);
        return;
    }
    source = src;
    prefix = p;
    if (pthread_key_create(&exit_key, thread_exit) != 0) {
        fail(p, EAGAIN);
        return;
    }
    __atomic_store_n(&rp_trace_state, 1, __ATOMIC_RELEASE);
    /* after the state: registering may call malloc, which is then traced */
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}
