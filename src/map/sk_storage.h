/* Socket storage (sk_storage.c): the values programs keep on a socket with
 * bpf_sk_storage_get(), one per (socket, map); and task storage, the same table keyed by pid.
 *
 * The sockets programs reach are the dummy ones of test runs (__sk_buff.sk), each holding the
 * list of its storage, and the kernel's sockets they look up (bpf_sk_lookup_*()); bpf() reaches
 * kernel sockets through their fds.  The map keeps kernel sockets' storage, under their
 * cookies, so a program and bpf() see the same values for one, as in the kernel.
 */
#ifndef USERBPF_MAP_SK_STORAGE_H
#define USERBPF_MAP_SK_STORAGE_H

#include "util.h"

struct bpf_map;
struct sk_storage_elem;

/* A socket's storage: one element per map, in creation order.  Deleted elements wait in
 * retired until the socket goes: the program that deleted one may still hold its value (the
 * kernel frees it after an RCU grace period). */
struct sk_storage_list {
	struct sk_storage_elem *head;
	struct sk_storage_elem *retired;
};

/* bpf_sk_storage_get(): the socket's value for map, or NULL; with create, a new one (init's
 * value_size bytes, or zeros when init is NULL) where there is none, NULL only without memory. */
void *sk_storage_get(struct sk_storage_list *l, struct bpf_map *map, const void *init,
		     bool create);
/* bpf_sk_storage_delete(): 0, or -ENOENT when the socket has no value for map. */
int sk_storage_delete(struct sk_storage_list *l, struct bpf_map *map);
/* The socket goes: all of its storage with it. */
void sk_storage_free(struct sk_storage_list *l);

/* The same two for a kernel socket a program found (bpf_sk_lookup_*()), by its cookie: the
 * storage the map keeps for it, which bpf() reaches through the socket's fd.  A deleted value
 * is freed with the map (a program, here or in another thread, may still hold it). */
void *sk_storage_sock_get(struct bpf_map *map, u64 cookie, const void *init, bool create);
int sk_storage_sock_delete(struct bpf_map *map, u64 cookie);

/* A task storage map's (BPF_MAP_TYPE_TASK_STORAGE) the same way, by the task's pid:
 * bpf_task_storage_get() and _delete() are these two with the pid as the owner. */
#define task_storage_get(map, pid, init, create) sk_storage_sock_get(map, pid, init, create)
#define task_storage_delete(map, pid) sk_storage_sock_delete(map, pid)

/* A cgroup storage map's (BPF_MAP_TYPE_CGRP_STORAGE) the same way, by the cgroup's id. */
#define cgrp_storage_get(map, id, init, create) sk_storage_sock_get(map, id, init, create)
#define cgrp_storage_delete(map, id) sk_storage_sock_delete(map, id)

#endif
