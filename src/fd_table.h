/* Internals of the fd -> object table shared by fd.c and hooks.c (see fd.c). */
#ifndef USERBPF_FD_TABLE_H
#define USERBPF_FD_TABLE_H

#include "fd.h"

/* A slot whose fd is being closed by a wrapper: not ours any more, not adoptable yet. */
#define SLOT_CLOSING ((struct bpf_object *)1)


/* The slot for fd, allocating its chunk if create.  NULL if fd is out of range (or no memory). */
struct bpf_object **fd_slot(int fd, bool create);

/* Sets fd's access byte (its slot's chunk exists); before the slot is published. */
void fd_set_access(int fd, int access);

#endif
