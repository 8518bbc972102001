/* The map the global-function dynptr programs make their local dynptrs over: one 32-byte
 * value. */
#ifndef CORPUS_DYNPTR_VALS_H
#define CORPUS_DYNPTR_VALS_H

struct val {
	__u8 b[32];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct val);
} vals SEC(".maps");

#endif
