/* A BPF object loaded by the ELF loader on both sides of a differential test (the kernel's bpf()
 * and userbpf's): for the loader tests that drive one program on both and compare. */
#ifndef TESTS_LOADER_SIDES_H
#define TESTS_LOADER_SIDES_H

#include <stdbool.h>

#include "kbpf.h"
#include "userbpf/loader.h"

struct obj_sides {
	struct userbpf_object *obj[NSIDES];
	int prog[NSIDES];	/* the object's first program */
};

/* Opens and loads path on both sides; false (with a test failure) if either cannot be. */
bool obj_sides_open(struct obj_sides *os, const char *path);
/* The fd of map name on side s, or -1 (with a test failure). */
int obj_sides_map(struct obj_sides *os, int s, const char *name);
/* The fds of map name on both sides into fds; false (with a test failure) if either has none. */
bool obj_sides_maps(struct obj_sides *os, const char *name, int fds[NSIDES]);
/* The fds of the object's .bss map (its name the object's, cut, then ".bss") on both sides. */
bool obj_sides_bss(struct obj_sides *os, int fds[NSIDES]);
void obj_sides_close(struct obj_sides *os);

#endif
