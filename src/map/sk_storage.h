/* Socket storage (sk_storage.c): the values programs keep on a socket with
 * bpf_sk_storage_get(), one per (socket, map).
 *
 * The sockets programs reach are the dummy ones of test runs (__sk_buff.sk), each holding the
 * list of its storage; bpf() reaches real sockets through their fds, whose storage the map
 * keeps (sk_storage.c).  The two never meet, as in the kernel, where the test run's socket is
 * no user's.
 */
#ifndef USERBPF_MAP_SK_STORAGE_H
#define USERBPF_MAP_SK_STORAGE_H

#include "util.h"

struct bpf_map;
struct sk_storage_elem;

/* A socket's storage: one element per map, in creation order. */
struct sk_storage_list {
	struct sk_storage_elem *head;
};

/* bpf_sk_storage_get(): the socket's value for map, or NULL; with create, a new one (init's
 * value_size bytes, or zeros when init is NULL) where there is none, NULL only without memory. */
void *sk_storage_get(struct sk_storage_list *l, struct bpf_map *map, const void *init,
		     bool create);
/* bpf_sk_storage_delete(): 0, or -ENOENT when the socket has no value for map. */
int sk_storage_delete(struct sk_storage_list *l, struct bpf_map *map);
/* The socket goes: all of its storage with it. */
void sk_storage_free(struct sk_storage_list *l);

#endif
