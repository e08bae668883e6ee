/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The reap project authors (see NOTICE). */
/*
 * list.h - the doubly linked lists of both layers, written once.
 *
 * Reaps list their children, chunks and large objects, and a reap's heap
 * its free blocks in bins; the base allocator lists superblocks by heap,
 * class and fullness.  Each list threads two fields of its own structure
 * (next/prev, fd/bk, older/newer, ...) and starts at a plain pointer; it
 * is NULL-ended both ways: the first element's prev is NULL, the last
 * one's next is NULL.
 *
 * RP_LIST(name, type, next, prev) defines, for lists of `type' threaded
 * through its fields `next' and `prev', three static inline functions:
 *   name_push(head, n)          n becomes the first element;
 *   name_insert(head, after, n) n goes just after `after', or first when
 *                               `after' is NULL;
 *   name_unlink(head, n)        n leaves the list (its own links are left
 *                               stale).
 * They compile to the loads and stores written out by hand: the type and
 * the fields are known where they are used.
 */
#ifndef RP_LIST_H
#define RP_LIST_H

#include <stddef.h>

#define RP_LIST(name, type, next, prev)                                      \
    __attribute__((unused)) static inline void name##_insert(type **head, type *after, type *n) \
    {                                                                        \
        type *nx = after ? after->next : *head;                              \
        n->next = nx;                                                        \
        n->prev = after;                                                     \
        if (nx)                                                              \
            nx->prev = n;                                                    \
        if (after)                                                           \
            after->next = n;                                                 \
        else                                                                 \
            *head = n;                                                       \
    }                                                                        \
    __attribute__((unused)) static inline void name##_push(type **head, type *n) \
    {                                                                        \
        name##_insert(head, NULL, n);                                        \
    }                                                                        \
    __attribute__((unused)) static inline void name##_unlink(type **head, type *n) \
    {                                                                        \
        if (n->prev)                                                         \
            n->prev->next = n->next;                                         \
        else                                                                 \
            *head = n->next;                                                 \
        if (n->next)                                                         \
            n->next->prev = n->prev;                                         \
    }

#endif /* RP_LIST_H */
